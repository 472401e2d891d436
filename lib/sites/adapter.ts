import type { TaskReading } from '../rank/types';

/**
 * A site adapter declares where it applies (matches), what it reads (read), and what it watches (scope; the
 * watcher observes that element with a debounced MutationObserver and disconnects it on teardown or when the
 * field goes away). Adapters read by roles, labels and stable attributes; when the structure they expect is gone
 * read() returns null and the reading degrades to the generic one (never to nothing).
 */
export interface SiteAdapter {
  name: string;
  matches(loc: Location): boolean;
  /** Extra fields of the reading for this site (recipients, subject, turns...), or null when the page no longer
   * has the structure this adapter knows. Must not throw (a throw is treated as null). */
  read(doc: Document, focused: HTMLElement | null): Partial<TaskReading> | null;
  /** The element whose changes should trigger a fresh reading (a compose window, a conversation), if any. */
  scope?(doc: Document, focused: HTMLElement | null): Element | null;
  /** What the scoped observer watches; childList + subtree by default. */
  observe?: MutationObserverInit;
}
