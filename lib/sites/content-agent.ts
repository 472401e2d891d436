import { insertText } from '../insert/index';
import { callBackground, serveContent } from '../messaging/rpc';
import { readPageForCapture, readTask, watchTask } from './index';

/** The content script's whole job: report the task, and act on the service worker's insert and capture requests. */
export function startContentAgent(): () => void {
  const watcher = watchTask(document, (reading) => {
    callBackground('task:update', { reading }).catch(() => {
      // The worker is restarting or the extension was reloaded; the next change reports again.
    });
  });
  serveContent({
    'page:insert': ({ text }) => insertText(watcher.lastEditable(), text),
    'page:capture': () => readPageForCapture(document, watcher.lastEditable()),
    'page:read': () => readTask(document, watcher.lastEditable()),
  });
  return () => watcher.stop();
}
