/**
 * The section being written in a long document: the heading above the caret and the paragraph around it, instead
 * of the whole field (whose tail would otherwise be the ask wherever the caret is). Works on a textarea holding
 * Markdown (ATX `#` headings, paragraphs split by blank lines) and on a rich contenteditable (h1-h6 or
 * [role=heading] blocks, or paragraphs that start with `#`).
 */
import { savedSelection, selectionFor } from '../insert/state';

/** A field shorter than this with fewer than two headings is read whole (an email, a chat prompt). */
export const LONG_FIELD_CHARS = 1500;
/** The paragraph around the caret is cut to this much, centred on the caret. */
const PARAGRAPH_CHARS = 900;
/** A paragraph this short gets the one before it too (a line just started says little). */
const SHORT_PARAGRAPH_CHARS = 120;

export interface CaretSection {
  /** Heading above the caret (nearest), if any. */
  heading?: string;
  /** Headings from the nearest outwards (h3, then its h2, then the h1). */
  trail: string[];
  /** The paragraph around the caret (with its predecessor when it is very short). */
  paragraph: string;
}

/** The section's text as the task's ask: heading line, then the paragraph. */
export function sectionText(s: CaretSection): string {
  return [s.heading, s.paragraph].filter(Boolean).join('\n');
}

interface Block {
  text: string;
  /** Heading level 1-6, 0 for a paragraph. */
  level: number;
}

const HEADING_MARK = /^(#{1,6})\s+/;
const LINE_END = /[\n\r\u2028\u2029]/;
const SPACE = /\s/;

/**
 * A Markdown heading line ("## Budget ##"): its level and words, closing #'s left out. Read from the ends inward, not
 * with a pattern like /^#+\s+(.+?)\s*#*\s*$/, whose retries cost the cube of a line of spaces a page can type.
 */
export function markdownHeading(line: string): { level: number; text: string } | null {
  const m = HEADING_MARK.exec(line);
  if (!m) return null;
  const start = m[0].length;
  if (start === line.length) {
    // Only white space after the #'s: the words are its last character that is not a line end, if one is left.
    let k = line.length - 1;
    while (k > m[1].length && LINE_END.test(line[k])) k--;
    return k > m[1].length ? { level: m[1].length, text: line[k] } : null;
  }
  let end = line.length;
  while (end > start && SPACE.test(line[end - 1])) end--;
  while (end > start && line[end - 1] === '#') end--;
  while (end > start && SPACE.test(line[end - 1])) end--;
  const text = line.slice(start, Math.max(end, start + 1));
  return LINE_END.test(text) ? null : { level: m[1].length, text };
}

function trailOf(blocks: Block[], at: number): string[] {
  const trail: string[] = [];
  let above = 7;
  for (let i = at; i >= 0 && above > 1; i--) {
    const b = blocks[i];
    if (b.level && b.level < above) {
      trail.push(b.text);
      above = b.level;
    }
  }
  return trail;
}

function centred(text: string, offset: number, max: number): string {
  if (text.length <= max) return text;
  const start = Math.max(0, Math.min(text.length - max, offset - Math.floor(max / 2)));
  return text.slice(start, start + max).trim();
}

/** Section of a block list around the block `at`, where the caret sits `offset` characters into that block. */
export function sectionOfBlocks(blocks: Block[], at: number, offset: number): CaretSection | null {
  if (at < 0 || at >= blocks.length) return null;
  let idx = at;
  // The caret on a heading line: the section is the heading and the paragraph under it.
  if (blocks[idx].level) {
    const next = blocks[idx + 1];
    const trail = trailOf(blocks, idx);
    return { heading: blocks[idx].text, trail, paragraph: next && !next.level ? centred(next.text, 0, PARAGRAPH_CHARS) : '' };
  }
  let paragraph = centred(blocks[idx].text, offset, PARAGRAPH_CHARS);
  const prev = blocks[idx - 1];
  if (paragraph.length < SHORT_PARAGRAPH_CHARS && prev && !prev.level) {
    paragraph = `${centred(prev.text, prev.text.length, PARAGRAPH_CHARS - paragraph.length)}\n${paragraph}`.trim();
    idx -= 1;
  }
  const trail = trailOf(blocks, idx);
  return { heading: trail[0], trail, paragraph };
}

/** Splits Markdown-ish plain text into blocks, with each block's start offset. */
export function textBlocks(text: string): { blocks: Block[]; starts: number[] } {
  const blocks: Block[] = [];
  const starts: number[] = [];
  let cur: string[] = [];
  let curStart = 0;
  let pos = 0;
  const flush = () => {
    const t = cur.join('\n').trim();
    if (t) {
      blocks.push({ text: t, level: 0 });
      starts.push(curStart);
    }
    cur = [];
  };
  for (const line of text.split('\n')) {
    const m = markdownHeading(line);
    if (m) {
      flush();
      blocks.push(m);
      starts.push(pos);
    } else if (!line.trim()) flush();
    else {
      if (!cur.length) curStart = pos;
      cur.push(line);
    }
    pos += line.length + 1;
  }
  flush();
  return { blocks, starts };
}

/** Section of plain text (a textarea) around a caret offset. */
export function sectionOfText(text: string, caret: number): CaretSection | null {
  const { blocks, starts } = textBlocks(text);
  if (!blocks.length) return null;
  let at = 0;
  for (let i = 0; i < starts.length; i++) if (starts[i] <= caret) at = i;
  return sectionOfBlocks(blocks, at, caret - starts[at]);
}

const RICH_BLOCK = 'p, li, h1, h2, h3, h4, h5, h6, blockquote, pre, [role="heading"], [data-block-id]';

function headingLevel(el: Element, text: string): number {
  const tag = /^H([1-6])$/.exec(el.tagName);
  if (tag) return Number(tag[1]);
  if (el.getAttribute('role') === 'heading') return Number(el.getAttribute('aria-level')) || 2;
  return markdownHeading(text)?.level ?? 0;
}

/**
 * The leaf blocks of a rich editor in document order (a block holding other blocks is not itself one). A div is a
 * block too when it holds no block and sits in none: Draft.js (and Slate without its own elements) writes each
 * paragraph as a div, and leaving them out made the paragraph under the caret vanish from the ask. Inside a named
 * block (Draft.js's <h2><div>text</div></h2>) the named block is the one.
 */
function richBlocks(root: HTMLElement): Element[] {
  const inBlock = (el: Element) => {
    const b = el.parentElement?.closest(RICH_BLOCK);
    return !!b && b !== root && root.contains(b);
  };
  let els = Array.from(root.querySelectorAll(`${RICH_BLOCK}, div`)).filter((el) =>
    el.tagName === 'DIV' && !el.matches(RICH_BLOCK) ? !el.querySelector(`${RICH_BLOCK}, div`) && !inBlock(el) : !el.querySelector(RICH_BLOCK),
  );
  if (!els.length) els = Array.from(root.children);
  return els;
}

function caretNode(root: HTMLElement): { node: Node; offset: number } | null {
  const sel = selectionFor(root);
  if (sel && sel.rangeCount) {
    const r = sel.getRangeAt(0);
    if (root.contains(r.startContainer)) return { node: r.startContainer, offset: r.startOffset };
  }
  const saved = savedSelection(root);
  if (saved?.kind === 'range' && root.contains(saved.range.startContainer)) return { node: saved.range.startContainer, offset: saved.range.startOffset };
  return null;
}

/** Section of a contenteditable around its caret (the live selection, or the one saved before focus left). */
export function sectionOfEditable(root: HTMLElement): CaretSection | null {
  const caret = caretNode(root);
  if (!caret) return null;
  const all = richBlocks(root).map((el) => {
    const text = (el.textContent ?? '').replace(/\s+/g, ' ').trim();
    const level = headingLevel(el, text);
    return { el, block: { text: level && text.startsWith('#') ? text.replace(/^#+\s*/, '') : text, level } };
  });
  const parts = all.filter((p) => p.block.text);
  if (!parts.length) return null;
  const caretEl = caret.node.nodeType === Node.ELEMENT_NODE ? (caret.node as Element) : caret.node.parentElement;
  let at = parts.findIndex((p) => p.el === caretEl || p.el.contains(caret.node));
  let offset = 0;
  if (at === -1) {
    // Caret between blocks (an empty line, the root itself): the last block before it.
    at = 0;
    parts.forEach((p, i) => {
      if (p.el.compareDocumentPosition(caret.node) & Node.DOCUMENT_POSITION_FOLLOWING) at = i;
    });
    offset = parts[at].block.text.length;
  } else if (caret.node.nodeType === Node.TEXT_NODE) {
    // Characters before the caret inside its block.
    const range = root.ownerDocument.createRange();
    range.selectNodeContents(parts[at].el);
    range.setEnd(caret.node, caret.offset);
    offset = range.toString().replace(/\s+/g, ' ').length;
  }
  return sectionOfBlocks(parts.map((p) => p.block), at, offset);
}

/** Whether a field's text is a document whose section, not its whole, is the task. */
export function isLongDocument(text: string, headingCount: number): boolean {
  return text.length >= LONG_FIELD_CHARS || (headingCount >= 2 && text.length >= 400);
}

/** The section around the caret of a long field, or null when the field is read whole. */
export function caretSection(root: HTMLElement, text: string): CaretSection | null {
  if (root instanceof HTMLInputElement) return null;
  if (root instanceof HTMLTextAreaElement) {
    const headings = text.split('\n').filter((l) => markdownHeading(l)).length;
    if (!isLongDocument(text, headings)) return null;
    return sectionOfText(root.value, root.selectionStart ?? root.value.length);
  }
  const headings = root.querySelectorAll('h1, h2, h3, h4, h5, h6, [role="heading"]').length;
  if (!isLongDocument(text, headings)) return null;
  return sectionOfEditable(root);
}
