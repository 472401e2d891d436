import type { TaskReading } from '../rank/types';
import type { SiteAdapter } from './adapter';
import { clipboardFallback, verifyInsert, type InsertOutcome } from '../insert/index';
import { rememberInserted, stripInsertedText, whileInserting } from '../insert/state';
import { DOCS_HOST, DOCS_PATH } from './docs-annotate';
import { exportedText, loadExport } from './docs-export';
import { sectionOfBlocks, sectionText, type CaretSection } from './section';
import { withoutTitleSuffix } from './text';

export { DOCS_HOST };

/**
 * Google Docs paints its text on canvas tiles: there is no DOM text to read. With the flag the main-world script
 * sets at document_start (entrypoints/docs-annotate.content.ts), Docs also draws an annotated SVG layer over the
 * tiles: one rect per painted line, its text in aria-label and its font in data-font-css, grouped by paragraph.
 * Keystrokes and pastes go to a contenteditable in the same-origin iframe.docs-texteventtarget-iframe, which Docs
 * empties after applying them, so a read-back of that element always says "unchanged": an insertion is verified
 * against the document text of the layer instead, and tried once. Docs draws the layer only for the extensions on
 * its own allowlist, so for Backstory the page is usually canvas only: the reading is then the title, the selection
 * Docs mirrors into the event target, and the section around it in the document's own text (Docs' plain-text export,
 * lib/sites/docs-export.ts); and a card goes to the clipboard with a "press Ctrl+V" hint, never typed unchecked.
 * Compared with Automattic/harper's Docs bridge on 2026-12-06 (lib/sites/REFERENCES.md; not checked on the live site).
 */
const LINE = '.kix-canvas-tile-content svg rect[aria-label]';
const CARET = '#kix-current-user-cursor-caret, .kix-cursor-caret';
const EVENT_TARGET = 'iframe.docs-texteventtarget-iframe';
const SELECTION = '.kix-canvas-tile-selection svg rect';
const EDITOR = '.kix-appview-editor';

interface Para {
  text: string;
  /** Font size of its first line, px. */
  px: number;
  bold: boolean;
  rects: Element[];
}

function fontPx(css: string): number {
  const px = /(\d+(?:\.\d+)?)px/.exec(css);
  if (px) return Number(px[1]);
  const pt = /(\d+(?:\.\d+)?)pt/.exec(css);
  return pt ? Number(pt[1]) * (4 / 3) : 0;
}

/** The paragraphs of the annotated layer in document order, or null when Docs drew no layer. */
export function annotatedParagraphs(doc: Document): Para[] | null {
  const rects = Array.from(doc.querySelectorAll(LINE));
  if (!rects.length) return null;
  const paras: Para[] = [];
  let group: Element | null = null;
  for (const r of rects) {
    const label = (r.getAttribute('aria-label') ?? '').replace(/\s+/g, ' ').trim();
    const g = r.closest('g[role="paragraph"]') ?? r;
    if (g !== group || !paras.length) {
      const css = r.getAttribute('data-font-css') ?? '';
      paras.push({ text: label, px: fontPx(css), bold: /\b(bold|[6-9]00)\b/.test(css), rects: [r] });
      group = g;
    } else {
      const p = paras[paras.length - 1];
      p.text = `${p.text} ${label}`.trim();
      p.rects.push(r);
    }
  }
  return paras.filter((p) => p.text);
}

/** The document's text as the layer shows it: one line per paragraph. */
export function documentText(doc: Document): string | null {
  const paras = annotatedParagraphs(doc);
  return paras ? paras.map((p) => p.text).join('\n') : null;
}

/** Heading levels from font sizes: the body size is the commonest one; larger (or bold, not longer than a line) is a heading. */
function levels(paras: Para[]): number[] {
  const count = new Map<number, number>();
  for (const p of paras) count.set(p.px, (count.get(p.px) ?? 0) + p.text.length);
  const body = [...count.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 0;
  const sizes = [...new Set(paras.map((p) => p.px).filter((px) => px > body * 1.1))].sort((a, b) => b - a);
  return paras.map((p) => {
    if (p.px > body * 1.1) return Math.min(6, sizes.indexOf(p.px) + 1);
    return p.bold && p.rects.length === 1 && p.text.length < 120 ? Math.min(6, sizes.length + 1) : 0;
  });
}

/** Which paragraph the caret is in and how far into it, from the caret's box and the lines' boxes. */
function caretPlace(doc: Document, paras: Para[]): { at: number; offset: number } | null {
  const caret = Array.from(doc.querySelectorAll<HTMLElement>(CARET)).find((c) => c.getClientRects().length > 0);
  if (!caret) return null;
  const box = caret.getBoundingClientRect();
  if (!box.height && !box.width && !box.top) return null;
  const cy = box.top + box.height / 2;
  let best: { at: number; offset: number; d: number } | null = null;
  paras.forEach((p, at) => {
    let before = 0;
    for (const r of p.rects) {
      const rb = r.getBoundingClientRect();
      const label = (r.getAttribute('aria-label') ?? '').trim();
      const d = cy < rb.top ? rb.top - cy : cy > rb.bottom ? cy - rb.bottom : 0;
      if (!best || d < best.d) {
        const frac = rb.width > 0 ? Math.max(0, Math.min(1, (box.left - rb.left) / rb.width)) : 1;
        best = { at, offset: before + Math.round(frac * label.length), d };
      }
      before += label.length + 1;
    }
  });
  return best ? { at: (best as { at: number }).at, offset: (best as { offset: number }).offset } : null;
}

let measurer: CanvasRenderingContext2D | null | undefined;

/** How many characters of a painted line fit in `width` px, measured in the line's own font. */
function charsWithin(doc: Document, label: string, font: string, width: number, full: number): number {
  if (width <= 0) return 0;
  if (width >= full - 0.5) return label.length;
  measurer ??= doc.createElement('canvas').getContext?.('2d') ?? null;
  if (!measurer) return Math.round((width / full) * label.length);
  measurer.font = font;
  let n = 0;
  while (n < label.length && measurer.measureText(label.slice(0, n + 1)).width <= width + 1) n++;
  return n;
}

/** The selected text: the parts of the painted lines that the selection's rects cover. */
export function docsSelection(doc: Document): string {
  const marks = Array.from(doc.querySelectorAll(SELECTION)).map((r) => r.getBoundingClientRect()).filter((b) => b.width > 0 && b.height > 0);
  if (!marks.length) return '';
  const parts: string[] = [];
  for (const r of Array.from(doc.querySelectorAll(LINE))) {
    const rb = r.getBoundingClientRect();
    const label = r.getAttribute('aria-label') ?? '';
    const font = r.getAttribute('data-font-css') ?? '';
    for (const m of marks) {
      const overlapY = Math.min(rb.bottom, m.bottom) - Math.max(rb.top, m.top);
      if (overlapY < rb.height / 2) continue;
      const from = charsWithin(doc, label, font, m.left - rb.left, rb.width);
      const to = charsWithin(doc, label, font, m.right - rb.left, rb.width);
      const piece = label.slice(from, to).trim();
      if (piece) parts.push(piece);
    }
  }
  return parts.join(' ').slice(0, 5000);
}

function title(doc: Document): string {
  const input = doc.querySelector<HTMLInputElement>('input.docs-title-input');
  return (input?.value || withoutTitleSuffix(doc.title, '-', /Google Docs$/)).trim();
}

/** Docs mirrors the selection into its event target (so the browser's copy finds it): the selected text, canvas only. */
export function mirroredSelection(doc: Document): string {
  const et = eventTarget(doc);
  return (et?.innerText || et?.textContent || '').replace(/\s+/g, ' ').trim().slice(0, 5000);
}

/** Without the layer, the start of the exported text is the ask when nothing is selected. */
const EXPORT_START_CHARS = 1500;

/**
 * The part of the exported document that is the ask: the section around the selection (a paragraph per line in the
 * export), or the document's start when nothing is selected or the selection is not found.
 */
export function exportSection(text: string, selected: string): CaretSection | null {
  const blocks = text.split('\n').map((t) => t.trim()).filter(Boolean).map((t) => ({ text: t, level: 0 }));
  if (!blocks.length) return null;
  const probe = selected.slice(0, 200).toLowerCase();
  const at = probe ? blocks.findIndex((b) => b.text.replace(/\s+/g, ' ').toLowerCase().includes(probe)) : -1;
  if (at >= 0) return sectionOfBlocks(blocks, at, blocks[at].text.replace(/\s+/g, ' ').toLowerCase().indexOf(probe));
  let start = '';
  for (const b of blocks) {
    if (start.length >= EXPORT_START_CHARS) break;
    start = start ? `${start}\n${b.text}` : b.text;
  }
  return { trail: [], paragraph: start.slice(0, EXPORT_START_CHARS) };
}

/** The contenteditable Docs reads keystrokes and pastes from, inside its event-target iframe. */
export function eventTarget(doc: Document): HTMLElement | null {
  const frame = doc.querySelector<HTMLIFrameElement>(EVENT_TARGET);
  try {
    const idoc = frame?.contentDocument;
    return idoc?.querySelector<HTMLElement>('[contenteditable="true"]') ?? (idoc?.body?.isContentEditable ? idoc.body : null);
  } catch {
    return null;
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** How long Docs may take to apply an edit and repaint the layer. */
const APPLY_MS = 1500;

async function settled(doc: Document, before: string, text: string): Promise<'took' | 'changed' | 'unchanged'> {
  const end = Date.now() + APPLY_MS;
  for (;;) {
    const now = documentText(doc) ?? before;
    const result = verifyInsert(before, now, text);
    if (result === 'took' || Date.now() > end) return result;
    await sleep(30);
  }
}

/** Shown in the panel, and on the page after "Backstory: ". */
const UNCHECKED_HINT = 'The card is on the clipboard, press Ctrl+V (nothing was typed: Backstory cannot check what it types into this document).';

/**
 * Inserts once into the event target, checked against the document text: the next technique is tried only while the
 * document is unchanged, so a card is never typed twice. Without the layer nothing can be checked: clipboard.
 */
export async function insertIntoDocs(doc: Document, text: string): Promise<InsertOutcome> {
  const editable = eventTarget(doc);
  const before = documentText(doc);
  if (!editable || before === null) {
    // Docs' export is minutes-fresh at best: it cannot confirm an insertion, so nothing is typed unchecked.
    const outcome = await clipboardFallback(doc.querySelector<HTMLElement>(EDITOR) ?? doc.body, text, UNCHECKED_HINT);
    // Once pasted, the card is in the document's text: it is not the user's ask.
    if (editable && outcome.technique === 'clipboard') rememberInserted(editable, text);
    return outcome;
  }
  return whileInserting(async () => {
    const tried: string[] = [];
    editable.focus({ preventScroll: true });
    for (const technique of ['paste', 'execCommand'] as const) {
      tried.push(technique);
      try {
        if (technique === 'paste') {
          const data = new DataTransfer();
          data.setData('text/plain', text);
          editable.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
        } else editable.ownerDocument.execCommand('insertText', false, text);
      } catch {
        // refused: the document tells whether anything arrived
      }
      const result = await settled(doc, before, text);
      if (result === 'took') {
        // Kept with the event target, so the reading does not take the card for the user's own words.
        rememberInserted(editable, text);
        return { ok: true, technique, editor: 'contenteditable', tried };
      }
      if (result === 'changed') return { ok: false, technique, editor: 'contenteditable', tried, hint: 'The document changed unexpectedly; check it (Ctrl+Z undoes it).' };
    }
    return clipboardFallback(doc.querySelector<HTMLElement>(EDITOR) ?? doc.body, text, undefined, tried);
  });
}

/** The canvas-only reading: the section of the exported text around the selection, once an export was read. */
function readExport(doc: Document, out: Partial<TaskReading>, selected: string, name: string): Partial<TaskReading> {
  const text = exportedText(doc.location);
  const section = text ? exportSection(text, selected) : null;
  if (!section) return out;
  const et = eventTarget(doc);
  const ask = sectionText(section);
  out.field = { text: et ? stripInsertedText(et, ask) : ask, kind: 'contenteditable', label: name || 'Google Docs document' };
  const headings = Array.from(new Set([...section.trail, ...(name ? [name] : [])])).slice(0, 5);
  if (headings.length) out.headings = headings;
  return out;
}

export const gdocsAdapter: SiteAdapter = {
  name: 'gdocs',
  hosts: [DOCS_HOST],
  label: 'Google Docs',
  destination: 'documents',
  path: DOCS_PATH,
  seen: '2026-12-06',
  landmarks: {
    editor: EDITOR,
    'text input frame': EVENT_TARGET,
    'annotated text layer': LINE,
    caret: CARET,
  },
  matches: (loc) => loc.hostname === DOCS_HOST && loc.pathname.startsWith(DOCS_PATH),
  read(doc) {
    const name = title(doc);
    const out: Partial<TaskReading> = name ? { subject: name } : {};
    const paras = annotatedParagraphs(doc);
    const selected = paras ? docsSelection(doc) : mirroredSelection(doc);
    if (selected) out.selection = selected;
    // No layer (Backstory is not on Docs' allowlist, or Docs stopped drawing it): the document's exported text.
    if (!paras?.length) return readExport(doc, out, selected, name);
    const lv = levels(paras);
    const blocks = paras.map((p, i) => ({ text: p.text, level: lv[i] }));
    const place = caretPlace(doc, paras);
    const section = place ? sectionOfBlocks(blocks, place.at, place.offset) : null;
    if (section) {
      const et = eventTarget(doc);
      const text = sectionText(section);
      out.field = { text: et ? stripInsertedText(et, text) : text, kind: 'contenteditable', label: name || 'Google Docs document' };
      out.headings = Array.from(new Set([...section.trail, ...(name ? [name] : [])])).slice(0, 5);
    } else {
      const heads = blocks.filter((b) => b.level).map((b) => b.text);
      if (heads.length) out.headings = heads.slice(0, 5);
    }
    return out;
  },
  scope(doc) {
    return doc.querySelector(EDITOR);
  },
  preload(doc) {
    return annotatedParagraphs(doc) ? Promise.resolve(false) : loadExport(doc.location);
  },
  // The layer is redrawn on every edit, and the caret moves by its style.
  observe: { childList: true, subtree: true, attributes: true, attributeFilter: ['style', 'aria-label'] },
  pageText: documentText,
  insert(doc, _target, text) {
    return insertIntoDocs(doc, text);
  },
};
