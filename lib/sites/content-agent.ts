import { browser } from 'wxt/browser';
import { insertText } from '../insert/index';
import { stripInsertedText } from '../insert/state';
import { callBackground, serveContent } from '../messaging/rpc';
import { siteListed } from '../settings/settings';
import { startSentCapture } from './capture-sent';
import { deepActiveElement, editableRoot, editableText } from './editable';
import { readPageForCapture, readTask, watchTask, type TaskWatcher } from './index';

/** The selection as the user sees it, including a selection inside a focused textarea or input (never a secret one). */
function fullSelection(): string {
  const el = editableRoot(deepActiveElement(document));
  if (el instanceof HTMLTextAreaElement || el instanceof HTMLInputElement) {
    const { selectionStart: a, selectionEnd: b } = el;
    if (a !== null && b !== null && b > a) return el.value.slice(a, b);
  }
  return document.getSelection()?.toString() ?? '';
}

/**
 * The content script's whole job: report the task (unless the user switched Backstory off for this site), act on
 * the service worker's insert and capture requests, and, only where the user turned it on, capture sent messages.
 */
export function startContentAgent(): () => void {
  let watcher: TaskWatcher | undefined;
  const site = location.hostname;
  const focusedEditable = () => watcher?.lastEditable() ?? editableRoot(deepActiveElement(document));

  const applySettings = (raw: unknown) => {
    const excluded = siteListed((raw as { excludedSites?: string[] } | undefined)?.excludedSites, site);
    if (excluded && watcher) {
      watcher.stop();
      watcher = undefined;
    } else if (!excluded && !watcher) {
      watcher = watchTask(document, (reading) => {
        callBackground('task:update', { reading }).catch(() => {
          // The worker is restarting or the extension was reloaded; the next change reports again.
        });
      });
    }
  };
  void browser.storage.local.get('settings').then((got) => applySettings(got.settings));
  const onChanged = (changes: Record<string, { newValue?: unknown }>, area: string) => {
    if (area === 'local' && changes.settings) applySettings(changes.settings.newValue);
  };
  browser.storage.onChanged.addListener(onChanged);

  serveContent({
    'page:insert': ({ text }) => insertText(focusedEditable(), text),
    'page:capture': () => readPageForCapture(document, focusedEditable()),
    'page:read': () => readTask(document, focusedEditable()),
    'page:selection': () => ({ text: fullSelection() }),
  });

  const stopCapture = startSentCapture({
    readField: (el) => {
      const root = editableRoot(el);
      return root ? stripInsertedText(root, editableText(root)) : null;
    },
    send: (m) => callBackground('capture:sent', m),
    people: () => readTask(document, focusedEditable()).people,
  });

  return () => {
    watcher?.stop();
    stopCapture();
    browser.storage.onChanged.removeListener(onChanged);
  };
}
