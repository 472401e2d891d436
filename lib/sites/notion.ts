import type { TaskReading } from '../rank/types';
import { onHosts, type SiteAdapter } from './adapter';
import { clipboardFallback, verifyInsert, type InsertOutcome } from '../insert/index';
import { rememberInserted, savedSelection, stripInsertedText, whileInserting } from '../insert/state';
import { sectionOfBlocks, sectionText } from './section';
import { withoutTitleSuffix } from './text';

/**
 * Notion and its block editor: every block is a [data-block-id] element with its own contenteditable leaf; heading
 * blocks are .notion-header-block / .notion-sub_header-block / .notion-sub_sub_header-block. The task is the focused
 * block with the heading above it and the block before it, under the page title. A card is pasted as text/plain,
 * which the editor turns into blocks of its own (one per line), and checked against the page's text, not the
 * one block. Last seen working on the live site: 2026-11-20.
 */
const NOTION_HOSTS = ['www.notion.so', 'notion.so'];
const BLOCK = '[data-block-id]';
const PAGE = '.notion-page-content';
const TITLE = '.notion-page-block h1, h1[contenteditable], .notion-page-block [contenteditable="true"][placeholder="Untitled" i]';
const HEADING_LEVEL: [string, number][] = [
  ['notion-header-block', 1],
  ['notion-sub_header-block', 2],
  ['notion-sub_sub_header-block', 3],
];

function level(block: Element): number {
  for (const [cls, lv] of HEADING_LEVEL) if (block.classList.contains(cls)) return lv;
  return 0;
}

/** A block's own text: its leaf, not the blocks nested in it (toggles, list children). */
function ownText(block: Element): string {
  const leaf = Array.from(block.querySelectorAll('[data-content-editable-leaf], [contenteditable="true"]')).find((l) => l.closest(BLOCK) === block);
  return ((leaf ?? block).textContent ?? '').replace(/\s+/g, ' ').trim();
}

function pageTitle(doc: Document): string {
  const el = doc.querySelector(TITLE);
  return ((el?.textContent ?? '').trim() || withoutTitleSuffix(doc.title, '|–-', /Notion$/)).trim();
}

function pageBlocks(doc: Document): Element[] {
  const page = doc.querySelector(PAGE) ?? doc.body;
  return Array.from(page.querySelectorAll(BLOCK)).filter((b) => !b.matches('.notion-page-block'));
}

function pageText(doc: Document): string {
  return pageBlocks(doc)
    .map(ownText)
    .filter(Boolean)
    .join('\n');
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

async function insertIntoBlocks(doc: Document, target: HTMLElement | null, text: string): Promise<InsertOutcome> {
  const leaf = target?.closest(BLOCK) ? target : null;
  if (!leaf) return clipboardFallback(doc.body, text, 'Click into a block first; the card is on the clipboard, press Ctrl+V.');
  return whileInserting(async () => {
    const before = pageText(doc);
    leaf.focus({ preventScroll: true });
    // Back to the caret the user left in the block (the side panel took focus since).
    const saved = savedSelection(leaf);
    const sel = doc.getSelection();
    if (sel && saved?.kind === 'range' && leaf.contains(saved.range.startContainer)) {
      sel.removeAllRanges();
      sel.addRange(saved.range.cloneRange());
    }
    const data = new DataTransfer();
    data.setData('text/plain', text);
    leaf.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
    for (const end = Date.now() + 1000; Date.now() < end; await sleep(30)) {
      const result = verifyInsert(before, pageText(doc), text);
      if (result === 'took') {
        // Each block the card became is its own leaf: mark them all so none is read back as the user's ask.
        for (const b of pageBlocks(doc)) {
          const l = b.querySelector<HTMLElement>('[contenteditable="true"]');
          if (l) rememberInserted(l, text);
        }
        return { ok: true, technique: 'paste', editor: 'contenteditable', tried: ['paste'] };
      }
      if (result === 'changed') return { ok: false, technique: 'paste', tried: ['paste'], hint: 'The page changed unexpectedly; check it (Ctrl+Z undoes it).' };
    }
    return clipboardFallback(leaf, text, undefined, ['paste']);
  });
}

export const notionAdapter: SiteAdapter = {
  name: 'notion',
  hosts: NOTION_HOSTS,
  destination: 'documents',
  seen: '2026-11-20',
  matches: onHosts(NOTION_HOSTS),
  read(doc, focused) {
    const blocks = pageBlocks(doc);
    if (!blocks.length) return null;
    const title = pageTitle(doc);
    const out: Partial<TaskReading> = title ? { subject: title } : {};
    const current = focused?.closest(BLOCK);
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
    return doc.querySelector(PAGE);
  },
  observe: { childList: true, subtree: true, characterData: true },
  insert(doc, target, text) {
    return insertIntoBlocks(doc, target, text);
  },
};
