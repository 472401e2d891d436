/** The texts made from an item: what the lexical index reads and what the model embeds. */
import { splitPassages, type Passage } from './passages';
import { textHash } from '../../core/text-hash';

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
  return [embedHead(item) + item.text.trim(), item.aux ?? ''].filter(Boolean).join(' ');
}

/** "Title: " when the title says something the body does not start with (see embedText), else nothing. */
function embedHead(item: { title?: string; text: string }): string {
  const title = (item.title ?? '').trim();
  const text = item.text.trim();
  // A title made from the first line (`titleFrom`: heading marks dropped, long lines cut with "…") repeats the body.
  const start = title.replace(/(…|\.\.\.)$/, '').trimEnd().toLowerCase();
  const repeats = text.replace(/^#+\s*/, '').toLowerCase().startsWith(start);
  return title && title.length <= 80 && !repeats ? `${title}: ` : '';
}

/** The item's passages (lib/memory/index/passages.ts): one, the whole text, unless the item is longer than a window. */
export function passagesOf(item: { text: string }): Passage[] {
  return splitPassages(item.text);
}

/**
 * The texts to embed for an item, one per passage: `embedText(item)` for an item of one passage (as before
 * passages); for a long item, each passage after the title (the title names what every part is about), the
 * captions with the first.
 */
export function passageEmbedTexts(item: { title?: string; text: string; aux?: string }, passages = passagesOf(item)): string[] {
  if (passages.length === 1) return [embedText(item)];
  const head = embedHead(item);
  return passages.map((p, k) => [head + item.text.slice(p.start, p.end).trim(), k === 0 ? (item.aux ?? '') : ''].filter(Boolean).join(' '));
}

/**
 * The text to embed for an item's context vector (`IndexedMemory.setContextVector`): the previous item of its thread
 * followed by the item, so a reply ("Yes, last Tuesday!") is found by what it answers; of a long predecessor its last
 * passage, of a long item its first. Undefined when the item has
 * no predecessor (its own vector then stands alone).
 */
export function contextText(
  item: { title?: string; text: string; aux?: string },
  prev: { title?: string; text: string; aux?: string } | undefined,
): string | undefined {
  if (!prev) return undefined;
  // The end of a long predecessor and the start of a long item: both inside the model's window (a long answer's
  // start alone would fill it, and the turn after it would not be read at all).
  const before = passageEmbedTexts(prev);
  return `${before[before.length - 1]}\n${passageEmbedTexts(item)[0]}`;
}

const SEP = '\u0000';

/**
 * FNV-1a of what an item's vectors and BM25 entry read of its words (title, body, captions): kept in memory for every
 * item while the texts stay in IndexedDB (the pack's prints, the same-text index).
 */
export function contentPrint(item: { title?: string; text: string; aux?: string }): number {
  // The same number as hashing `title \0 text \0 aux` joined (packs hold it), without copying the text.
  return textHash(item.aux ?? '', textHash(SEP, textHash(item.text, textHash(SEP, textHash(item.title ?? '')))));
}
