import type { Destination } from '../core/destinations';
import type { TaskReading } from '../rank/types';
import type { InsertOutcome } from '../insert/index';
import type { LandmarkTable } from './landmarks';

/**
 * A site adapter declares where it applies (hosts), what it reads (read), and what it watches (scope; the
 * watcher observes that element with a debounced MutationObserver and disconnects it on teardown or when the
 * field goes away). Adapters read by structure first (test ids, roles, ids, form names, the shape of a region) and
 * by words only as one more hint; when the structure they expect is gone read() returns null and the reading degrades
 * to the generic one (never to nothing), and `landmarks` lets the side panel say so.
 */
export interface SiteAdapter {
  name: string;
  /**
   * The hostnames this adapter reads, declared once here: the install-time site list and host permissions
   * (lib/sites/site-access.ts, wxt.config.ts) are made from them. Empty for the generic adapter.
   */
  hosts: readonly string[];
  /**
   * Where the user writes on its pages, declared once here: every reading on them carries it (even one that fell
   * back to the generic reading), and an instruction's destination scope, the package's format, a card's reasons
   * and the phrase offers read it from the reading.
   */
  destination: Destination;
  /**
   * The path its pages live under, where the host also serves pages it must not read: Google Docs documents are
   * under /document/, while docs.google.com also serves Google Forms, which anyone can author. The host permission
   * and the content script are narrowed to it. Every path when absent.
   */
  path?: string;
  /**
   * When its selectors were last compared with maintained open-source code that works on the live site
   * (YYYY-MM-DD; what was compared is in lib/sites/REFERENCES.md). Not a claim that the live site itself was checked.
   */
  seen?: string;
  /** The site as the user knows it ("Notion"), for the panel's words; the adapter's name when absent. */
  label?: string;
  /**
   * The structure it reads by, name → selector or check (lib/sites/landmarks.ts). Every reading on its pages reports
   * which were found; none found makes the panel say that only the focused field is read. An adapter without a table
   * counts its read() as its one landmark.
   */
  landmarks?: LandmarkTable;
  /** Where it applies; by default the declared hosts, exactly. */
  matches(loc: Location): boolean;
  /** Extra fields of the reading for this site (recipients, subject, turns...), or null when the page no longer
   * has the structure this adapter knows. Must not throw (a throw is treated as null). */
  read(doc: Document, focused: HTMLElement | null): Partial<TaskReading> | null;
  /** The element whose changes should trigger a fresh reading (a compose window, a conversation), if any. */
  scope?(doc: Document, focused: HTMLElement | null): Element | null;
  /** What the scoped observer watches; childList + subtree by default. */
  observe?: MutationObserverInit;
  /**
   * Fetches what read() takes from the site's own server for this page (Google Docs' text export), so that the next
   * read() has it; resolves true when something new came in (the page is read again then). Never rejects.
   */
  preload?(doc: Document): Promise<boolean>;
  /** A long field is read as the section around the caret (documents, block editors), not as a whole. */
  sections?: boolean;
  /** The page's text for "Remember this page" where the DOM does not hold it (a canvas-painted document). */
  pageText?(doc: Document): string | null;
  /** Site-specific insertion (an editor the generic technique loop would get wrong); null to use the generic one. */
  insert?(doc: Document, target: HTMLElement | null, text: string): Promise<InsertOutcome> | null;
}

/** `matches` for an adapter that applies on exactly its declared hosts. */
export function onHosts(hosts: readonly string[]): (loc: Location) => boolean {
  return (loc) => hosts.includes(loc.hostname);
}

/** The match patterns of what an adapter reads: `https://<host><path>*` for each declared host. */
export function adapterPatterns(a: Pick<SiteAdapter, 'hosts' | 'path'>): string[] {
  return a.hosts.map((h) => `https://${h}${a.path ?? '/'}*`);
}
