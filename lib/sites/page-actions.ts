import { showHint } from '../insert/hint';
import { insertOnPage } from './insert-on-page';
import { serveContent } from '../messaging/rpc';
import { deepActiveElement, editableRoot, isSecretField } from '../dom/editable';
import { readPageForCapture, readTaskNow } from './index';

/** The selection as the user sees it, including a selection inside a focused textarea or input (never a secret one). */
export function fullSelection(): { text: string; secret?: true } {
  const active = deepActiveElement(document);
  if (active && isSecretField(active)) return { text: '', secret: true };
  const el = editableRoot(active);
  if (el instanceof HTMLTextAreaElement || el instanceof HTMLInputElement) {
    const { selectionStart: a, selectionEnd: b } = el;
    if (a !== null && b !== null && b > a) return { text: el.value.slice(a, b) };
  }
  return { text: document.getSelection()?.toString() ?? '' };
}

/**
 * Answers the service worker's requests about this page: insert, capture, read the task, the selection. The content
 * agent serves these with its watcher's last field; the one-shot page-actions script with the focused one.
 */
export function servePageActions(focusedEditable: () => HTMLElement | null = () => editableRoot(deepActiveElement(document))): () => void {
  return serveContent({
    'page:insert': ({ text }) => insertOnPage(document, focusedEditable(), text),
    'page:capture': () => readPageForCapture(document, focusedEditable()),
    'page:read': () => readTaskNow(document, focusedEditable()),
    'page:selection': () => fullSelection(),
    'page:hint': ({ text }) => {
      showHint(focusedEditable(), `Backstory: ${text}`);
      return { ok: true as const };
    },
  });
}
