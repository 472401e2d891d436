import * as v from 'valibot';
import { KEEP_EVENTS, validEvent } from './feedback-store';
import { validPhraseRow, type PhraseRow } from './phrase-tally';
import type { FeedbackEvent } from './types';

/** A memory file's top-level `feedback`: lists of events and phrases; whether learning is on is the user's alone. */
const Block = v.looseObject(
  {
    events: v.optional(v.array(v.unknown(), 'its "events" is not a list')),
    phrases: v.optional(v.array(v.unknown(), 'its "phrases" is not a list')),
  },
  'it is not an object',
);

/** The feedback of a memory file, checked and capped before the import commits, with what was left out. */
export interface FeedbackBlock {
  events: FeedbackEvent[];
  phrases: PhraseRow[];
  /** What was wrong or left out, in the user's words (shown on the import; never a failed import). */
  warnings: string[];
}

const count = (n: number) => n.toLocaleString('en-US');

/**
 * Reads a memory file's feedback block: events and phrase rows that are not valid are left out, and at most the
 * feedback store's cap of events is kept (the most recent). Its `enabled` is ignored: a file never switches learning
 * on or off. Never throws.
 */
export function readFeedbackBlock(raw: unknown): FeedbackBlock {
  const r = v.safeParse(Block, raw);
  if (!r.success) return { events: [], phrases: [], warnings: [`The file's feedback was left out: ${r.issues[0].message}.`] };
  const warnings: string[] = [];
  const given = r.output.events ?? [];
  let events = given.map(validEvent).filter((e): e is FeedbackEvent => !!e);
  if (events.length < given.length) warnings.push(`${count(given.length - events.length)} of the file's ${count(given.length)} feedback events were not valid and were left out.`);
  if (events.length > KEEP_EVENTS) {
    warnings.push(`The file holds ${count(events.length)} feedback events; the ${count(KEEP_EVENTS)} most recent were kept.`);
    events = events.sort((a, b) => a.at - b.at).slice(-KEEP_EVENTS);
  }
  const rows = r.output.phrases ?? [];
  const phrases = rows.map(validPhraseRow).filter((p): p is PhraseRow => !!p);
  if (phrases.length < rows.length) warnings.push(`${count(rows.length - phrases.length)} of the file's phrase counts were not valid and were left out.`);
  return { events, phrases, warnings };
}
