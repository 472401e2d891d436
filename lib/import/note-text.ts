import { rewriteAt, withoutSpans, type NextOf, type Rewrite } from './scan';

/** Markdown made readable as memory text: links kept as their words, embeds and comments left out. */
export function markdownToText(md: string): string {
  // Each step is a left-to-right scan (lib/import/scan.ts): a note of 100,000 "[" costs no more than its length.
  let s = md;
  // Obsidian comments and HTML comments are notes to self about the page, not its content.
  s = withoutSpans(s, '%%', '%%');
  s = withoutSpans(s, '<!--', '-->');
  // Embedded files (![[diagram.png]], ![alt](img.png)): the alt text if any.
  s = rewriteAt(s, '![[', (i, next) => {
    const close = next.find(']', i + 3);
    return close >= 0 && s[close + 1] === ']' ? { end: close + 2, text: '' } : undefined;
  });
  s = rewriteAt(s, '![', (i, next) => bracketThenParens(s, i + 2, next, false, (words) => words));
  // [[Target|shown words]] → shown words; [[Target#Heading]] → Target › Heading; [[Target]] → Target.
  s = rewriteAt(s, '[[', (i, next) => {
    const [bar, which] = next.first([']', '|'], i + 2);
    if (which !== 1 || bar === i + 2) return undefined;
    const close = next.find(']', bar + 1);
    return close > bar + 1 && s[close + 1] === ']' ? { end: close + 2, text: s.slice(bar + 1, close) } : undefined;
  });
  s = rewriteAt(s, '[[', (i, next) => {
    const [hash, which] = next.first([']', '#', '|'], i + 2);
    if (which !== 1) return undefined;
    const [close, ends] = next.first([']', '|'], hash + 1);
    if (ends !== 0 || close === hash + 1 || s[close + 1] !== ']') return undefined;
    const target = s.slice(i + 2, hash);
    const heading = s.slice(hash + 1, close);
    return { end: close + 2, text: target ? `${target} › ${heading.replace(/^\^/, '')}` : heading };
  });
  s = rewriteAt(s, '[[', (i, next) => {
    const close = next.find(']', i + 2);
    return close > i + 2 && s[close + 1] === ']' ? { end: close + 2, text: s.slice(i + 2, close) } : undefined;
  });
  // [words](https://…) keeps the address, which is something one searches for; relative links keep the words.
  s = rewriteAt(s, '[', (i, next) =>
    bracketThenParens(s, i + 1, next, true, (words, target) => {
      const address = /^https?:\/\/[^)\s]+/.exec(target);
      return address ? `${words} (${address[0]})` : undefined;
    }),
  );
  s = rewriteAt(s, '[', (i, next) => bracketThenParens(s, i + 1, next, true, (words) => words));
  return s
    .replace(/[ \t]{2,}/g, ' ')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/**
 * "words](target)" from `start` (just after the opening bracket): the words up to the first "]" (`needWords`: at
 * least one), a "(" right after it and the target up to the first ")"; `make` gives the text that replaces it all.
 */
function bracketThenParens(
  s: string,
  start: number,
  next: NextOf,
  needWords: boolean,
  make: (words: string, target: string) => string | undefined,
): Rewrite | undefined {
  const close = next.find(']', start);
  if (close < 0 || (needWords && close === start) || s[close + 1] !== '(') return undefined;
  const end = next.find(')', close + 2);
  if (end < 0) return undefined;
  const text = make(s.slice(start, close), s.slice(close + 2, end));
  return text === undefined ? undefined : { end: end + 1, text };
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
