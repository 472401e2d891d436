/** The texts made from an item: what the lexical index reads and what the model embeds. */

/** The text an item is found by: title, body, image captions and the like, tags and people. */
export function searchText(item: {
  title?: string;
  text: string;
  aux?: string;
  tags?: string[];
  people?: string[];
}): string {
  return [item.title ?? '', item.text, item.aux ?? '', (item.tags ?? []).join(' '), (item.people ?? []).join(' ')]
    .filter(Boolean)
    .join('\n');
}

/**
 * The text to embed for an item (what the store should embed on save): "Title: body" and captions. A short title
 * (a speaker, a subject) in front of the body measurably helps the small model tie the text to who or what it is
 * about; a title that merely repeats the body's start is left out.
 */
export function embedText(item: { title?: string; text: string; aux?: string }): string {
  const title = (item.title ?? '').trim();
  const text = item.text.trim();
  // A title made from the first line (`titleFrom`: heading marks dropped, long lines cut with "…") repeats the body.
  const start = title.replace(/(…|\.\.\.)$/, '').trimEnd().toLowerCase();
  const repeats = text.replace(/^#+\s*/, '').toLowerCase().startsWith(start);
  const head = title && title.length <= 80 && !repeats ? `${title}: ` : '';
  return [head + text, item.aux ?? ''].filter(Boolean).join(' ');
}

/**
 * The text to embed for an item's context vector (`IndexedMemory.setContextVector`): the previous item of its thread
 * followed by the item, so a reply ("Yes, last Tuesday!") is found by what it answers. Undefined when the item has
 * no predecessor (its own vector then stands alone).
 */
export function contextText(
  item: { title?: string; text: string; aux?: string },
  prev: { title?: string; text: string; aux?: string } | undefined,
): string | undefined {
  return prev ? `${embedText(prev)}\n${embedText(item)}` : undefined;
}
