/**
 * Per-field memory shared by the task watcher (lib/sites) and the inserter: where the caret was before the side
 * panel took focus, when the user last typed, and which strings Backstory inserted (so they are not read back as
 * the user's own ask). Kept in WeakMaps so a removed field takes its state with it.
 */

export type SavedSelection = { kind: 'range'; range: Range } | { kind: 'offsets'; start: number; end: number };

const selections = new WeakMap<HTMLElement, SavedSelection>();
const lastInputAt = new WeakMap<HTMLElement, number>();
const insertedTexts = new WeakMap<HTMLElement, string[]>();
let insertingDepth = 0;

/** Text Backstory inserted is marked so it is not read back as the user's own ask. */
export const INSERTED_ATTR = 'data-backstory-inserted';

export function isInserting(): boolean {
  return insertingDepth > 0;
}
export async function whileInserting<T>(fn: () => Promise<T>): Promise<T> {
  insertingDepth++;
  try {
    return await fn();
  } finally {
    insertingDepth--;
  }
}

/**
 * The selection that covers root: the document's, or (Chromium) its shadow root's when the field lives in a shadow
 * tree, where the document's selection only shows the host.
 */
export function selectionFor(root: Node): Selection | null {
  const rn = root.getRootNode() as (ShadowRoot & { getSelection?: () => Selection | null }) | Document;
  if (typeof ShadowRoot !== 'undefined' && rn instanceof ShadowRoot && typeof rn.getSelection === 'function') return rn.getSelection();
  return (root.ownerDocument ?? (root as Document)).getSelection();
}

/** Remembers the caret / selection of `root` if the document's selection is inside it. */
export function saveSelection(root: HTMLElement): void {
  if (root instanceof HTMLTextAreaElement || root instanceof HTMLInputElement) {
    try {
      if (root.selectionStart != null && root.selectionEnd != null) {
        selections.set(root, { kind: 'offsets', start: root.selectionStart, end: root.selectionEnd });
      }
    } catch {
      // Input types without a selection API.
    }
    return;
  }
  const sel = selectionFor(root);
  if (!sel || sel.rangeCount === 0) return;
  const range = sel.getRangeAt(0);
  if (root.contains(range.startContainer) && root.contains(range.endContainer)) selections.set(root, { kind: 'range', range: range.cloneRange() });
}

export function savedSelection(root: HTMLElement): SavedSelection | undefined {
  return selections.get(root);
}

export function noteUserInput(root: HTMLElement, at = Date.now()): void {
  if (!isInserting()) lastInputAt.set(root, at);
}
export function lastUserInput(root: HTMLElement): number | undefined {
  return lastInputAt.get(root);
}

export function rememberInserted(root: HTMLElement, text: string): void {
  const list = insertedTexts.get(root) ?? [];
  list.push(text);
  if (list.length > 20) list.shift();
  insertedTexts.set(root, list);
  root.setAttribute(INSERTED_ATTR, String(list.length));
}
export function insertedInto(root: HTMLElement): readonly string[] {
  return insertedTexts.get(root) ?? [];
}

/**
 * The field's text without what Backstory inserted into it. Matching is by lines, whitespace-insensitive, because
 * editors re-flow inserted text into their own paragraphs.
 */
export function stripInsertedText(root: HTMLElement, text: string): string {
  let out = text;
  for (const ins of insertedInto(root)) {
    const lines = ins.split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
    if (!lines.length) continue;
    const pattern = lines.map((l) => l.split(/\s+/).map(escapeRe).join('[\\s\\u00a0]+')).join('[\\s\\u00a0]+');
    out = out.replace(new RegExp(pattern, 'g'), ' ');
  }
  return out === text ? text : out.replace(/[ \t]{2,}/g, ' ').replace(/\n{3,}/g, '\n\n').trim();
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
