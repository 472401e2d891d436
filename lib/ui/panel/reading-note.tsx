import type { Destination } from '../../core/destinations';
import type { ReadingLandmarks } from '../../rank/types';
import { fieldOnly } from '../../sites/landmarks';

/** What a site's adapter reads there, as the user would say it. */
const WHAT_IT_READS: Record<Destination, string> = {
  email: 'the recipients, the subject or the conversation',
  chat: 'the conversation',
  documents: 'the document around the field',
};

/** The reading is the focused field alone: the sentence the panel shows, and the one *Why?* adds to each card. */
export function readingNoteWords(landmarks: ReadingLandmarks | undefined, destination: Destination | undefined): { note: string; why: string } | null {
  if (!landmarks || !fieldOnly(landmarks)) return null;
  const site = landmarks.label;
  return {
    note: `Backstory can’t find ${WHAT_IT_READS[destination ?? 'documents']} on this ${site} page: the page is not laid out the way it knows. It reads only the field you are typing in, so the cards come from that text alone.`,
    why: `Ranked on the field you are typing in alone: Backstory could not read ${WHAT_IT_READS[destination ?? 'documents']} on this ${site} page.`,
  };
}

/** Shown on a known site where its adapter found none of its landmarks (contract: `reading-note`). */
export function ReadingNote(props: { landmarks: ReadingLandmarks | undefined; destination: Destination | undefined }) {
  const words = readingNoteWords(props.landmarks, props.destination);
  if (!words) return null;
  return (
    <div class="empty reading-note" data-testid="reading-note" role="note">
      <p>{words.note}</p>
      <p class="muted">Options → “Diagnose this page” lists what it looked for, for a bug report.</p>
    </div>
  );
}
