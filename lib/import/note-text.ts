import { markupToText } from './html-text';
import { rewriteAt, withoutSpans, type NextOf, type Rewrite } from './scan';

/** A stretch of Markdown: prose, or code (a fenced block or an inline code span) that is kept byte for byte. */
export interface MarkdownPiece {
  code: boolean;
  text: string;
}

/** An opening or closing code fence, after any indentation and blockquote markers ("> ```md" in a callout). */
const FENCE = /^([ \t>]*)(`{3,}|~{3,})(.*)$/;

/**
 * Markdown cut into prose and code: fenced blocks (``` or ~~~, closed by a fence of the same character at least as
 * long, or running to the end) and inline code spans (a run of backticks closed by a run of the same length within
 * the paragraph). Joining the pieces gives the input back. Linear in the length of the text.
 */
export function markdownPieces(md: string): MarkdownPiece[] {
  const out: MarkdownPiece[] = [];
  const push = (code: boolean, text: string) => {
    if (!text) return;
    const last = out[out.length - 1];
    if (last && last.code === code && !code) last.text += text;
    else out.push({ code, text });
  };
  let prose = '';
  let fence: { char: string; len: number } | undefined;
  let block = '';
  let at = 0;
  while (at < md.length) {
    const nl = md.indexOf('\n', at);
    const end = nl < 0 ? md.length : nl + 1;
    const line = md.slice(at, end);
    const m = FENCE.exec(line.replace(/\r?\n$/, ''));
    if (fence) {
      block += line;
      if (m && m[2][0] === fence.char && m[2].length >= fence.len && !m[3].trim()) {
        push(true, block);
        fence = undefined;
        block = '';
      }
    } else if (m && !(m[2][0] === '`' && m[3].includes('`'))) {
      for (const p of inlinePieces(prose)) push(p.code, p.text);
      prose = '';
      fence = { char: m[2][0], len: m[2].length };
      block = line;
    } else prose += line;
    at = end;
  }
  if (fence) push(true, block);
  for (const p of inlinePieces(prose)) push(p.code, p.text);
  return out;
}

/** Inline code spans of prose; a backtick run with no closer of its length in its paragraph is literal text. */
function inlinePieces(prose: string): MarkdownPiece[] {
  if (!prose.includes('`')) return prose ? [{ code: false, text: prose }] : [];
  const runs: { at: number; len: number }[] = [];
  for (const m of prose.matchAll(/`+/g)) runs.push({ at: m.index!, len: m[0].length });
  // For each run, the index of the next run of the same length (one backward pass keeps this linear).
  const next: number[] = new Array(runs.length).fill(-1);
  // The paragraph each run is in: a span does not cross a blank line.
  const breaks = [...prose.matchAll(/\n[ \t]*\n/g)].map((m) => m.index!);
  const para: number[] = [];
  let b = 0;
  for (const r of runs) {
    while (b < breaks.length && breaks[b] < r.at) b++;
    para.push(b);
  }
  const seen = new Map<number, number>();
  for (let i = runs.length - 1; i >= 0; i--) {
    next[i] = seen.get(runs[i].len) ?? -1;
    seen.set(runs[i].len, i);
  }
  const out: MarkdownPiece[] = [];
  let from = 0;
  let i = 0;
  while (i < runs.length) {
    const j = next[i];
    const open = runs[i];
    const close = j >= 0 ? runs[j] : undefined;
    if (close && para[j] === para[i]) {
      if (open.at > from) out.push({ code: false, text: prose.slice(from, open.at) });
      out.push({ code: true, text: prose.slice(open.at, close.at + close.len) });
      from = close.at + close.len;
      i = j + 1;
    } else i++;
  }
  if (from < prose.length) out.push({ code: false, text: prose.slice(from) });
  return out;
}

/** Markdown prose (never code) made readable: comments, embeds and HTML tags out, links as their words. */
function proseToText(md: string): string {
  // Each step is a left-to-right scan (lib/import/scan.ts): a note of 100,000 "[" costs no more than its length.
  // Obsidian comments and HTML comments are notes to self about the page, not its content.
  let s = markupToText(withoutSpans(withoutSpans(md, '%%', '%%'), '<!--', '-->'));
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
  return (
    s
      // A line that is only a thematic break (---, ***) is layout, not words.
      .replace(/^[ \t]*([-*_])(?:[ \t]*\1){2,}[ \t]*$/gm, '')
      .replace(/[ \t]{2,}/g, ' ')
      .replace(/\n{3,}/g, '\n\n')
  );
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

/**
 * Markdown made readable as memory text: links kept as their words, embeds, comments and HTML tags left out. Code
 * (fenced blocks and inline spans) is kept exactly as written.
 */
export function markdownToText(md: string): string {
  const pieces = markdownPieces(md).map((p) => ({ code: p.code, text: p.code ? p.text : proseToText(p.text) }));
  // The ends are trimmed where they are prose; code keeps its indentation, losing only a last line break.
  const first = pieces[0];
  const last = pieces[pieces.length - 1];
  if (first && !first.code) first.text = first.text.trimStart();
  if (last) last.text = last.code ? last.text.replace(/\r?\n$/, '') : last.text.trimEnd();
  return pieces.map((p) => p.text).join('');
}

/** Inline Markdown of a title or heading as plain words: **bold**, _italics_, ~~strikes~~, ==marks==, `code`, links. */
export function plainInline(md: string): string {
  const s = markdownPieces(md.slice(0, 300))
    .map((p) => (p.code ? p.text.replace(/^`+ ?|`+$/g, '').replace(/ $/, '') : proseToText(p.text)))
    .join('');
  const before = '(^|[\\s(\\[{"\'“‘])';
  const after = '(?=$|[\\s)\\]}.,;:!?"\'”’])';
  const mark = (m: string) => new RegExp(`${before}${m}(?=\\S)([^\\n]*?\\S)${m}${after}`, 'g');
  return s
    .replace(mark('\\*\\*'), '$1$2')
    .replace(mark('__'), '$1$2')
    .replace(mark('~~'), '$1$2')
    .replace(mark('=='), '$1$2')
    .replace(mark('\\*'), '$1$2')
    .replace(mark('_'), '$1$2')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Obsidian's inline #tags (not headings, not "#1" issue numbers, not inside code). */
export function inlineTags(md: string): string[] {
  const out = new Set<string>();
  const noCode = markdownPieces(md)
    .map((p) => (p.code ? ' ' : p.text))
    .join('');
  for (const m of noCode.matchAll(/(?:^|[\s(])#([\p{L}\p{N}_\-/]*[\p{L}_\-/][\p{L}\p{N}_\-/]*)/gu)) out.add(m[1]);
  return [...out];
}

/** Messages longer than this (a pasted document, a long answer) become several items of their thread. */
export const LONG_MESSAGE = 20_000;

/** Text in blocks: paragraphs of prose, and each fenced code block whole (its blank lines do not split it). */
function blocks(text: string): { text: string; code: boolean }[] {
  const out: { text: string; code: boolean }[] = [{ text: '', code: false }];
  for (const p of markdownPieces(text)) {
    const fenced = p.code && /^[ \t>]*(```|~~~)/.test(p.text);
    if (fenced) {
      const last = out[out.length - 1];
      if (last.text.trim()) out.push({ text: p.text.replace(/\n$/, ''), code: true });
      else {
        last.text = p.text.replace(/\n$/, '');
        last.code = true;
      }
      out.push({ text: '', code: false });
      continue;
    }
    if (p.code) {
      out[out.length - 1].text += p.text;
      continue;
    }
    const paras = p.text.split(/\n\s*\n/);
    paras.forEach((para, k) => {
      if (k === 0) out[out.length - 1].text += para;
      else out.push({ text: para, code: false });
    });
  }
  return out.map((b) => (b.code ? b : { text: b.text.replace(/^\n+|\n+$/g, ''), code: false })).filter((b) => b.text.trim());
}

/**
 * Splits text at blank lines into pieces of about `max` characters (a paragraph longer than twice that is cut at a
 * space), so no piece comes near the store's limit on one memory. A fenced code block stays in one piece unless it is
 * longer than LONG_MESSAGE, and is then cut only at line ends.
 */
export function paragraphs(text: string, max = 1500): string[] {
  if (text.length <= max + 500) return text ? [text] : [];
  const out: string[] = [];
  let chunk = '';
  for (const block of blocks(text)) {
    const units = block.code ? (block.text.length > Math.max(max * 2, LONG_MESSAGE) ? cutLines(block.text, LONG_MESSAGE) : [block.text]) : block.text.length > max * 2 ? cut(block.text, max) : [block.text];
    for (const unit of units) {
      if (chunk && chunk.length + unit.length > max) {
        out.push(chunk);
        chunk = '';
      }
      chunk = chunk ? `${chunk}\n\n${unit}` : unit;
    }
  }
  if (chunk) out.push(chunk);
  return out;
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

/** A code block too long for one item, cut at line ends so the lines come through whole. */
function cutLines(text: string, max: number): string[] {
  const out: string[] = [];
  let rest = text;
  while (rest.length > max) {
    let at = rest.lastIndexOf('\n', max);
    if (at < max / 2) at = max;
    out.push(rest.slice(0, at));
    rest = rest.slice(at + (rest[at] === '\n' ? 1 : 0));
  }
  if (rest) out.push(rest);
  return out;
}

/** A message's text in pieces: itself, or parts of about LONG_MESSAGE characters. */
export function messagePieces(text: string): string[] {
  return text.length <= LONG_MESSAGE ? [text] : paragraphs(text, LONG_MESSAGE);
}

/** For each line of `md`, whether it is part of a fenced code block (where a "# " line is not a heading). */
export function fencedLines(md: string): boolean[] {
  const out: boolean[] = [];
  let atLineStart = true;
  for (const p of markdownPieces(md)) {
    const fenced = p.code && /^[ \t>]*(```|~~~)/.test(p.text) && atLineStart;
    const lines = p.text.split('\n');
    lines.forEach((_l, k) => {
      // The first line of a piece continues the current line unless the previous piece ended one.
      if (k === 0 && !atLineStart) {
        if (fenced) out[out.length - 1] = true;
        return;
      }
      if (k === lines.length - 1 && lines[k] === '') return;
      out.push(fenced);
    });
    atLineStart = p.text.endsWith('\n');
  }
  return out;
}
