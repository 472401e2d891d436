/** Markdown made readable as memory text: links kept as their words, embeds and comments left out. */
export function markdownToText(md: string): string {
  return (
    md
      // Obsidian comments and HTML comments are notes to self about the page, not its content.
      .replace(/%%[\s\S]*?%%/g, '')
      .replace(/<!--[\s\S]*?-->/g, '')
      // Embedded files (![[diagram.png]], ![alt](img.png)): the alt text if any.
      .replace(/!\[\[[^\]]*\]\]/g, '')
      .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
      // [[Target|shown words]] → shown words; [[Target#Heading]] → Target › Heading; [[Target]] → Target.
      .replace(/\[\[([^\]|]+)\|([^\]]+)\]\]/g, '$2')
      .replace(/\[\[([^\]#|]*)#([^\]|]+)\]\]/g, (_m, t: string, h: string) => (t ? `${t} › ${h.replace(/^\^/, '')}` : h))
      .replace(/\[\[([^\]]+)\]\]/g, '$1')
      // [words](https://…) keeps the address, which is something one searches for; relative links keep the words.
      .replace(/\[([^\]]+)\]\((https?:\/\/[^)\s]+)[^)]*\)/g, '$1 ($2)')
      .replace(/\[([^\]]+)\]\([^)]*\)/g, (_m, words: string) => words)
      .replace(/[ \t]{2,}/g, ' ')
      .replace(/\n{3,}/g, '\n\n')
      .trim()
  );
}

/** Obsidian's inline #tags (not headings, not "#1" issue numbers, not inside `code`). */
export function inlineTags(md: string): string[] {
  const out = new Set<string>();
  const noCode = md.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  for (const m of noCode.matchAll(/(?:^|[\s(])#([\p{L}\p{N}_\-/]*[\p{L}_\-/][\p{L}\p{N}_\-/]*)/gu)) out.add(m[1]);
  return [...out];
}

/**
 * Splits text at blank lines into pieces of about `max` characters (a paragraph longer than twice that is cut at a
 * space), so no piece comes near the store's limit on one memory.
 */
export function paragraphs(text: string, max = 1500): string[] {
  if (text.length <= max + 500) return text ? [text] : [];
  const out: string[] = [];
  let chunk = '';
  for (const para of text.split(/\n\s*\n/)) {
    if (chunk && chunk.length + para.length > max) {
      out.push(chunk);
      chunk = '';
    }
    chunk = chunk ? `${chunk}\n\n${para}` : para;
  }
  if (chunk) out.push(chunk);
  return out.flatMap((piece) => (piece.length > max * 2 ? cut(piece, max) : [piece]));
}

function cut(text: string, max: number): string[] {
  const out: string[] = [];
  let rest = text;
  while (rest.length > max * 2) {
    let at = rest.lastIndexOf(' ', max);
    if (at < max / 2) at = max;
    out.push(rest.slice(0, at).trim());
    rest = rest.slice(at).trim();
  }
  if (rest) out.push(rest);
  return out;
}

/** Messages longer than this (a pasted document, a long answer) become several items of their thread. */
export const LONG_MESSAGE = 20_000;

/** A message's text in pieces: itself, or parts of about LONG_MESSAGE characters. */
export function messagePieces(text: string): string[] {
  return text.length <= LONG_MESSAGE ? [text] : paragraphs(text, LONG_MESSAGE);
}
