import { stripInsertedText } from '../insert/state';
import { callBackground } from '../messaging/rpc';
import { siteListed } from '../core/hosts';
import { readSettings, watchSettings } from '../settings/settings-item';
import type { Settings } from '../settings/types';
import { startSentCapture } from './capture-sent';
import { deepActiveElement, editableRoot, editableText, watchSecretFields } from '../dom/editable';
import { readTask, watchTask, type TaskWatcher } from './index';
import { servePageActions } from './page-actions';

/**
 * The content script's whole job: report the task (unless the user switched Backstory off for this site), act on
 * the service worker's insert and capture requests, and, only where the user turned it on, capture sent messages.
 */
export function startContentAgent(): () => void {
  // First, so a password field is known as one before a "show password" toggle makes it type=text.
  const stopSecretWatch = watchSecretFields(document);
  let watcher: TaskWatcher | undefined;
  const site = location.hostname;
  const focusedEditable = () => watcher?.lastEditable() ?? editableRoot(deepActiveElement(document));

  const applySettings = (s: Settings) => {
    const excluded = siteListed(s.ui.excludedSites, site);
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
  void readSettings().then(applySettings);
  const stopWatchingSettings = watchSettings(applySettings);

  const stopServing = servePageActions(focusedEditable);

  const stopCapture = startSentCapture({
    readField: (el) => {
      const root = editableRoot(el);
      return root ? stripInsertedText(root, editableText(root)) : null;
    },
    send: (m) => callBackground('capture:sent', m),
    people: () => readTask(document, focusedEditable()).people,
    thread: () => readTask(document, focusedEditable()).thread,
  });

  return () => {
    stopServing();
    watcher?.stop();
    stopCapture();
    stopWatchingSettings();
    stopSecretWatch();
  };
}
