import type { ReadingLandmarks } from '../rank/types';
import type { SiteAdapter } from './adapter';

/**
 * A landmark: part of a site's structure an adapter reads by (a conversation, the recipients, the document). A
 * selector found anywhere in the page, or a check given the page and the focused field. Only whether it is there is
 * reported: never any text, so a report can go into a bug report as it is.
 */
export type Landmark = string | ((doc: Document, focused: HTMLElement | null) => boolean);
export type LandmarkTable = Readonly<Record<string, Landmark>>;

/** The name an adapter without a table reports: its read() found what it reads. */
export const READ_LANDMARK = 'page structure';

function present(mark: Landmark, doc: Document, focused: HTMLElement | null): boolean {
  try {
    return typeof mark === 'string' ? doc.querySelector(mark) !== null : mark(doc, focused);
  } catch {
    return false;
  }
}

/** Which of the table's landmarks the page has. */
export function probeLandmarks(table: LandmarkTable, doc: Document, focused: HTMLElement | null): { found: string[]; missing: string[] } {
  const found: string[] = [];
  const missing: string[] = [];
  for (const [name, mark] of Object.entries(table)) (present(mark, doc, focused) ? found : missing).push(name);
  return { found, missing };
}

/** What a reading on this adapter's page reports; `readFound`: its read() gave a reading. */
export function readingLandmarks(adapter: SiteAdapter, doc: Document, focused: HTMLElement | null, readFound: boolean): ReadingLandmarks {
  const label = adapter.label ?? adapter.name;
  if (!adapter.landmarks) {
    return { adapter: adapter.name, label, found: readFound ? [READ_LANDMARK] : [], missing: readFound ? [] : [READ_LANDMARK] };
  }
  return { adapter: adapter.name, label, ...probeLandmarks(adapter.landmarks, doc, focused) };
}

/** The reading is the focused field alone: a known site whose adapter found none of its landmarks. */
export function fieldOnly(landmarks: ReadingLandmarks | undefined): boolean {
  return !!landmarks && landmarks.found.length === 0;
}
