import type { TaskReading } from '../rank/types';
import { onHosts, type SiteAdapter } from './adapter';
import { clipboardFallback, verifyInsert, type InsertOutcome } from '../insert/index';
import { rememberInserted, savedSelection, stripInsertedText, whileInserting } from '../insert/state';
import { sectionOfBlocks, sectionText } from './section';
import { withoutTitleSuffix } from './text';

/**
 * Notion and its block editor. Every block is a [data-block-id] element whose own text is a
 * [data-content-editable-leaf] inside it; heading blocks are .notion-header-block / .notion-sub_header-block /
 * .notion-sub_sub_header-block. Notion now wraps the whole page in one editable root ([data-content-editable-root]):
 * focus and events stay on that root and only the selection says which leaf is edited, so the block is found from
 * the selection (or the caret saved before the side panel took focus), not from the focused element. The older shape,
 * one contenteditable per leaf, is read the same way. The task is that block with the heading above it and the block
 * before it, under the page title. A card is pasted as text/plain, which the editor turns into blocks of its own (one
 * per line), and checked against the page's text. Notion reverts a write made right after the selection moved (within
 * about a second): the caret is put back first and left to settle, and an insert counts only if it is still there once
 * that window has passed; otherwise the card goes to the clipboard with a hint.
 * Compared with the references in lib/sites/REFERENCES.md on 2026-12-06 (not checked on the live site).
 */
const NOTION_HOSTS = ['www.notion.so', 'notion.so'];
const ROOT = '[data-content-editable-root]';
const LEAF = '[data-content-editable-leaf]';
const BLOCK = '[data-block-id]';
const PAGE = '.notion-page-content';
const TITLE = '.notion-page-block h1, h1[contenteditable], .notion-page-block [contenteditable="true"][placeholder="Untitled" i]';
const HEADING_LEVEL: [string, number][] = [
  ['notion-header-block', 1],
  ['notion-sub_header-block', 2],
  ['notion-sub_sub_header-block', 3],
];
/** How long after the selection moved Notion may still revert a write (seen by others on the live site; REFERENCES.md). */
export const NOTION_REVERT_WINDOW_MS = 1000;
/** Past the window, so a revert at its very end is seen. */
const REVERT_MARGIN_MS = 250;

function level(block: Element): number {
  for (const [cls, lv] of HEADING_LEVEL) if (block.classList.contains(cls)) return lv;
  return 0;
}

/** A block's own text: its leaf, not the blocks nested in it (toggles, list children). */
function ownText(block: Element): string {
  const leaf = Array.from(block.querySelectorAll(`${LEAF}, [contenteditable="true"]`)).find((l) => l.closest(BLOCK) === block);
  return ((leaf ?? block).textContent ?? '').replace(/\s+/g, ' ').trim();
}

function pageTitle(doc: Document): string {
  const el = doc.querySelector(TITLE);
  return ((el?.textContent ?? '').trim() || withoutTitleSuffix(doc.title, '|–-', /Notion$/)).trim();
}

function pageBlocks(doc: Document): Element[] {
  const page = doc.querySelector(PAGE) ?? doc.querySelector(ROOT) ?? doc.body;
  return Array.from(page.querySelectorAll(BLOCK)).filter((b) => !b.matches('.notion-page-block'));
}

function pageText(doc: Document): string {
  return pageBlocks(doc)
    .map(ownText)
    .filter(Boolean)
    .join('\n');
}

/** Where the caret is inside `field`: the page's selection, or the one saved before the side panel took focus. */
function caretNode(doc: Document, field: HTMLElement): Node | null {
  const sel = doc.getSelection();
  if (sel && sel.rangeCount && field.contains(sel.getRangeAt(0).startContainer)) return sel.getRangeAt(0).startContainer;
  const saved = savedSelection(field);
  return saved?.kind === 'range' && field.contains(saved.range.startContainer) ? saved.range.startContainer : null;
}

/**
 * The leaf being edited. With one editable root over the page the focused element is that root, and the selection
 * names the leaf; with a contenteditable per leaf the focused element is the leaf itself.
 */
export function currentLeaf(doc: Document, focused: HTMLElement | null): HTMLElement | null {
  if (!focused) return null;
  if (focused.closest(BLOCK) && !focused.querySelector(BLOCK)) return focused;
  const node = caretNode(doc, focused);
  const el = node ? (node.nodeType === Node.ELEMENT_NODE ? (node as Element) : node.parentElement) : null;
  if (!el || !focused.contains(el)) return null;
  const leaf = el.closest<HTMLElement>(LEAF) ?? el.closest<HTMLElement>(BLOCK);
  return leaf && focused.contains(leaf) ? leaf : null;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Puts focus and the caret back in `leaf` (where the user left it); true when anything had to move. */
function placeCaret(doc: Document, field: HTMLElement, leaf: HTMLElement): boolean {
  const sel = doc.getSelection();
  const range = sel && sel.rangeCount ? sel.getRangeAt(0) : null;
  const inLeaf = !!range && leaf.contains(range.startContainer) && leaf.contains(range.endContainer);
  const active = doc.activeElement;
  if (inLeaf && (active === field || (!!active && field.contains(active)))) return false;
  field.focus({ preventScroll: true });
  if (!sel) return true;
  const saved = savedSelection(field);
  let next: Range;
  if (saved?.kind === 'range' && leaf.contains(saved.range.startContainer) && leaf.contains(saved.range.endContainer)) next = saved.range.cloneRange();
  else if (inLeaf && range) next = range.cloneRange();
  else {
    next = doc.createRange();
    next.selectNodeContents(leaf);
    next.collapse(false);
  }
  sel.removeAllRanges();
  sel.addRange(next);
  return true;
}

async function insertIntoBlocks(doc: Document, target: HTMLElement | null, text: string): Promise<InsertOutcome> {
  const leaf = currentLeaf(doc, target);
  if (!target || !leaf) return clipboardFallback(doc.body, text, 'Click into a block first; the card is on the clipboard, press Ctrl+V.');
  const field = target;
  return whileInserting(async () => {
    const before = pageText(doc);
    // A write right after the selection moved is reverted by Notion: when the caret had to be put back, let it settle.
    if (placeCaret(doc, field, leaf)) await sleep(NOTION_REVERT_WINDOW_MS + REVERT_MARGIN_MS);
    const data = new DataTransfer();
    data.setData('text/plain', text);
    leaf.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
    let result: ReturnType<typeof verifyInsert> = 'unchanged';
    for (const end = Date.now() + 1000; Date.now() < end; await sleep(30)) {
      result = verifyInsert(before, pageText(doc), text);
      if (result !== 'unchanged') break;
    }
    if (result === 'took') {
      // Marked at once, before the page is read again: each block the card became is its own leaf, so mark them all
      // (and the root) and none is read back as the user's ask.
      rememberInserted(field, text);
      for (const b of pageBlocks(doc)) {
        const l = b.querySelector<HTMLElement>(`${LEAF}, [contenteditable="true"]`);
        if (l && l !== field) rememberInserted(l, text);
      }
      // It counts only if Notion has not taken it back once its window has passed.
      await sleep(NOTION_REVERT_WINDOW_MS + REVERT_MARGIN_MS);
      result = verifyInsert(before, pageText(doc), text);
      if (result === 'took') return { ok: true, technique: 'paste', editor: 'contenteditable', tried: ['paste'] };
    }
    if (result === 'changed') return { ok: false, technique: 'paste', tried: ['paste'], hint: 'The page changed unexpectedly; check it (Ctrl+Z undoes it).' };
    // Taken back (the leaf may be a new element now): the hint goes next to what is on the page.
    return clipboardFallback(leaf.isConnected ? leaf : field, text, 'Notion did not keep the text; the card is on the clipboard, press Ctrl+V.', ['paste']);
  });
}

export const notionAdapter: SiteAdapter = {
  name: 'notion',
  label: 'Notion',
  hosts: NOTION_HOSTS,
  destination: 'documents',
  seen: '2026-12-06',
  landmarks: {
    'editable root': ROOT,
    'page content': PAGE,
    blocks: BLOCK,
    'block text': LEAF,
    'block at the caret': (doc, focused) => currentLeaf(doc, focused) !== null,
  },
  matches: onHosts(NOTION_HOSTS),
  read(doc, focused) {
    const blocks = pageBlocks(doc);
    if (!blocks.length) return null;
    const title = pageTitle(doc);
    const out: Partial<TaskReading> = title ? { subject: title } : {};
    const current = currentLeaf(doc, focused)?.closest(BLOCK) ?? null;
    const parts = blocks.map((el) => ({ el, block: { text: ownText(el), level: level(el) } })).filter((p) => p.block.text || p.el === current);
    const at = current ? parts.findIndex((p) => p.el === current) : -1;
    if (at >= 0 && focused) {
      const section = sectionOfBlocks(parts.map((p) => p.block), at, parts[at].block.text.length);
      if (section) {
        out.field = { text: stripInsertedText(focused, sectionText(section)), kind: 'contenteditable', label: title || 'Notion page' };
        out.headings = Array.from(new Set([...section.trail, ...(title ? [title] : [])])).slice(0, 5);
      }
    } else {
      const heads = parts.filter((p) => p.block.level).map((p) => p.block.text);
      if (heads.length) out.headings = heads.slice(0, 5);
    }
    return out;
  },
  scope(doc) {
    return doc.querySelector(PAGE) ?? doc.querySelector(ROOT);
  },
  observe: { childList: true, subtree: true, characterData: true },
  insert(doc, target, text) {
    return insertIntoBlocks(doc, target, text);
  },
};
