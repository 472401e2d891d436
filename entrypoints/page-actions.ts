import { servePageActions } from '../lib/sites/page-actions';

type Marked = { __backstoryAgent?: { isInvalid: boolean }; __backstoryActions?: () => void };

/**
 * Injected only when the user invokes Backstory on a page it may not otherwise read ("Remember this", the insert
 * shortcut: the browser's activeTab grant). It answers the service worker's one-off requests and never watches.
 */
export default defineUnlistedScript(() => {
  const w = window as unknown as Marked;
  if ((w.__backstoryAgent && !w.__backstoryAgent.isInvalid) || w.__backstoryActions) return;
  w.__backstoryActions = servePageActions();
});
