import { deepActiveElement, editableKind, editableRoot, isSecretField } from '../dom/editable';
import { detectEditor, techniquesFor, UNDO_GROUP_MS, type EditorKind, type Technique } from './detect';
import { showHint } from './hint';
import { lastUserInput, rememberInserted, savedSelection, saveSelection, selectionFor, whileInserting } from './state';

export { detectEditor, techniquesFor, type EditorKind, type Technique } from './detect';
export { INSERTED_ATTR, stripInsertedText, insertedInto } from './state';

export interface InsertOutcome {
  ok: boolean;
  /** Which technique took: 'execCommand' | 'paste' | 'beforeinput' | 'value' | 'clipboard' | 'none'. */
  technique: string;
  /** Shown to the user when nothing took, e.g. "press Ctrl+V". */
  hint?: string;
  /** The editor the field belongs to ('prosemirror', 'lexical', 'quill', 'slate', 'draft', 'ckeditor5', ...). */
  editor?: EditorKind;
  /** Every technique tried, in order. */
  tried?: string[];
}

export interface InsertOptions {
  /** Draw the "press Ctrl+V" note next to the field when the text ends up on the clipboard. Default true. */
  showHint?: boolean;
  /** Fall back to the clipboard when no technique took. Default true. */
  clipboard?: boolean;
  /** Techniques to try instead of the editor's measured order (tests, site-specific tweaks). */
  techniques?: Technique[];
}

const CLIPBOARD_HINT = 'Backstory could not type into this field: the text is on the clipboard, press Ctrl+V.';

/**
 * Inserts text at the caret (or over the selection) of the given editable, verifying by reading the field back
 * that it took; a technique that did not take is followed by the next, then the clipboard with a visible hint.
 * Never writes HTML: every technique carries text/plain only.
 */
export async function insertText(target: HTMLElement | null, text: string, options: InsertOptions = {}): Promise<InsertOutcome> {
  if (target && isSecretField(target)) return { ok: false, technique: 'none', hint: 'Backstory never types into a password field.' };
  const root = target && target.isConnected ? editableRoot(target) : null;
  if (!root || !editableKind(root)) return { ok: false, technique: 'none', hint: 'Click into a text field first.' };
  const editor = detectEditor(root);
  const payload = normalizeText(text, editor);
  if (!payload) return { ok: false, technique: 'none', hint: 'Nothing to insert.', editor };
  return whileInserting(async () => {
    await waitForUndoGroup(root, editor);
    await placeCaret(root);
    const before = readBack(root);
    const tried: Technique[] = [];
    for (const technique of options.techniques ?? techniquesFor(editor)) {
      tried.push(technique);
      let handled: boolean;
      try {
        handled = apply(technique, root, payload);
      } catch {
        handled = false;
      }
      const result = await settle(root, before, payload, editor, handled ? 400 : 60);
      if (result === 'took') {
        rememberInserted(root, payload);
        saveSelection(root);
        return { ok: true, technique, editor, tried };
      }
      if (result === 'changed') {
        // The field changed but not into the expected text: trying more would stack a second copy.
        return { ok: false, technique, editor, tried, hint: 'The field changed unexpectedly; check it (Ctrl+Z undoes it).' };
      }
    }
    if (options.clipboard === false) return { ok: false, technique: 'none', editor, tried, hint: 'This field refused the text.' };
    return { ...(await clipboardFallback(root, payload, undefined, tried, options.showHint !== false)), editor };
  });
}

/**
 * The last resort: the text goes to the clipboard and a "press Ctrl+V" note appears next to `anchor`. Also what an
 * editor whose text cannot be checked gets (Google Docs without its annotated layer), so nothing is typed twice.
 */
export async function clipboardFallback(anchor: HTMLElement, text: string, hint?: string, tried: string[] = [], show = true): Promise<InsertOutcome> {
  const copied = await copyToClipboard(text, anchor);
  const message = copied ? (hint ?? CLIPBOARD_HINT) : 'This field refused the text and the clipboard is not available.';
  if (show) showHint(anchor, copied ? `Backstory: ${hint ? hint : 'text copied, press Ctrl+V to paste it.'}` : message);
  return { ok: false, technique: copied ? 'clipboard' : 'none', tried, hint: message };
}

function normalizeText(text: string, editor: EditorKind): string {
  const t = text.replace(/\r\n?/g, '\n');
  return editor === 'input' ? t.replace(/[ \t]*\n+[ \t]*/g, ' ').trim() : t;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Editors that group by time would fold the insertion into the user's last typing: wait out their window. */
async function waitForUndoGroup(root: HTMLElement, editor: EditorKind): Promise<void> {
  const window = UNDO_GROUP_MS[editor];
  const last = lastUserInput(root);
  if (!window || !last) return;
  const wait = last + window - Date.now();
  if (wait > 0) await sleep(Math.min(wait, window));
}

/**
 * Focuses the field and re-applies the caret the user left there (or the one saved before the side panel took
 * focus). Re-applying also keeps the insertion a separate undo step from the typing before it.
 */
async function placeCaret(root: HTMLElement): Promise<void> {
  const doc = root.ownerDocument;
  if (root instanceof HTMLTextAreaElement || root instanceof HTMLInputElement) {
    // A text field keeps its own selection when it loses focus: that is the user's caret.
    const start = root.selectionStart ?? root.value.length;
    const end = root.selectionEnd ?? root.value.length;
    root.focus({ preventScroll: true });
    try {
      root.setSelectionRange(start, end);
    } catch {
      // email inputs have no selection API
    }
    return;
  }
  const sel = selectionFor(root);
  let range: Range | null = null;
  if (sel && sel.rangeCount > 0) {
    const r = sel.getRangeAt(0);
    if (root.contains(r.startContainer) && root.contains(r.endContainer)) range = r.cloneRange();
  }
  if (!range) {
    const saved = savedSelection(root);
    if (saved?.kind === 'range' && root.contains(saved.range.startContainer) && root.contains(saved.range.endContainer)) {
      range = saved.range.cloneRange();
    }
  }
  const active = deepActiveElement(doc);
  const hadFocus = active === root || (!!active && root.contains(active));
  if (!hadFocus) root.focus({ preventScroll: true });
  if (!range) {
    // No caret known: the end of the field, where a reply would go.
    range = doc.createRange();
    range.selectNodeContents(lastTextContainer(root));
    range.collapse(false);
  }
  if (sel) {
    sel.removeAllRanges();
    sel.addRange(range);
  }
  // Editors that keep their own selection (Lexical, Draft.js, CKEditor 5) sync it on `selectionchange`, which
  // fires after this task: let it run before inserting. Slate throttles that sync; its `beforeinput` handler,
  // tried first for it, flushes the sync itself (detect.ts).
  if (!hadFocus) await sleep(30);
}

function lastTextContainer(root: HTMLElement): Node {
  let node: Node = root;
  while (node.lastChild && !(node.lastChild.nodeType === Node.ELEMENT_NODE && (node.lastChild as Element).tagName === 'BR')) {
    node = node.lastChild;
  }
  return node;
}

function apply(technique: Technique, root: HTMLElement, text: string): boolean {
  const doc = root.ownerDocument;
  switch (technique) {
    case 'execCommand':
      return doc.execCommand('insertText', false, text);
    case 'paste': {
      const data = new DataTransfer();
      data.setData('text/plain', text);
      const ev = new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true, composed: true });
      selectionTarget(root).dispatchEvent(ev);
      return ev.defaultPrevented;
    }
    case 'beforeinput': {
      const data = new DataTransfer();
      data.setData('text/plain', text);
      const ev = new InputEvent('beforeinput', {
        inputType: 'insertFromPaste',
        dataTransfer: data,
        bubbles: true,
        cancelable: true,
        composed: true,
      });
      selectionTarget(root).dispatchEvent(ev);
      return ev.defaultPrevented;
    }
    case 'value': {
      const el = root as HTMLTextAreaElement | HTMLInputElement;
      const start = el.selectionStart ?? el.value.length;
      const end = el.selectionEnd ?? el.value.length;
      // setRangeText bypasses React's value tracker, so the input event below is seen as a change and the
      // controlled value follows (it sticks through the next render).
      el.setRangeText(text, start, end, 'end');
      el.dispatchEvent(new InputEvent('input', { bubbles: true, inputType: 'insertFromPaste', data: text }));
      el.dispatchEvent(new Event('change', { bubbles: true }));
      return true;
    }
  }
}

/** The element holding the caret inside root (editors listen on their root; the event bubbles there). */
function selectionTarget(root: HTMLElement): Element {
  const sel = selectionFor(root);
  const node = sel && sel.rangeCount ? sel.getRangeAt(0).startContainer : null;
  const el = node ? (node.nodeType === Node.ELEMENT_NODE ? (node as Element) : node.parentElement) : null;
  return el && root.contains(el) ? el : root;
}

export function readBack(el: HTMLElement): string {
  return el instanceof HTMLTextAreaElement || el instanceof HTMLInputElement ? el.value : (el.innerText ?? el.textContent ?? '');
}

/** Lines, whitespace-collapsed, blank lines dropped: how editors re-flow plain text varies, the words do not. */
export function normalizeForCompare(s: string, joiner = '\n'): string {
  return s
    .replace(/\u00a0/g, ' ')
    .split(/\r?\n/)
    .map((l) => l.replace(/[ \t]+/g, ' ').trim())
    .filter(Boolean)
    .join(joiner);
}

function occurrences(hay: string, needle: string): number {
  if (!needle) return 0;
  let n = 0;
  for (let i = hay.indexOf(needle); i !== -1; i = hay.indexOf(needle, i + needle.length)) n++;
  return n;
}

/** 'took' when the field now holds one more copy of the text (line breaks kept), 'changed' or 'unchanged' otherwise. */
export function verifyInsert(before: string, after: string, text: string, singleLine = false): 'took' | 'changed' | 'unchanged' {
  const j = singleLine ? ' ' : '\n';
  const want = normalizeForCompare(text, j);
  if (occurrences(normalizeForCompare(after, j), want) > occurrences(normalizeForCompare(before, j), want)) return 'took';
  return after === before ? 'unchanged' : 'changed';
}

async function settle(root: HTMLElement, before: string, text: string, editor: EditorKind, timeoutMs: number): Promise<'took' | 'changed' | 'unchanged'> {
  const deadline = Date.now() + timeoutMs;
  let result = verifyInsert(before, readBack(root), text, editor === 'input');
  while (result !== 'took' && Date.now() < deadline) {
    await sleep(16);
    result = verifyInsert(before, readBack(root), text, editor === 'input');
  }
  return result;
}

async function copyToClipboard(text: string, root: HTMLElement): Promise<boolean> {
  const doc = root.ownerDocument;
  try {
    const nav = doc.defaultView?.navigator;
    if (nav?.clipboard?.writeText) {
      await Promise.race([nav.clipboard.writeText(text), sleep(1000).then(() => Promise.reject(new Error('timeout')))]);
      return true;
    }
  } catch {
    // Refused without a user gesture or permission: try the copy command.
  }
  saveSelection(root);
  const ta = doc.createElement('textarea');
  ta.value = text;
  ta.setAttribute('readonly', '');
  ta.setAttribute('aria-hidden', 'true');
  ta.style.cssText = 'position:fixed;top:0;left:0;width:1px;height:1px;opacity:0;pointer-events:none;';
  let ok = false;
  try {
    doc.body.append(ta);
    ta.select();
    ok = doc.execCommand('copy');
  } catch {
    ok = false;
  } finally {
    ta.remove();
    if (editableKind(root)) await placeCaret(root);
  }
  return ok;
}
