import { isDestination } from '../core/destinations';
import type { TaskReading } from './types';

/**
 * How much of a page's reading is kept. A page writes every one of these strings, and readings come every few tens
 * of milliseconds: the ranker's cost must not follow whatever length a page chooses. Each cap is well above what a
 * real page gives (an address is at most 254 characters, a title a line, a turn what the site adapters clip to).
 */
export const READING_LIMITS = {
  url: 4_000,
  title: 300,
  site: 253,
  adapter: 40,
  field: 20_000,
  label: 200,
  selection: 5_000,
  subject: 300,
  person: 320,
  people: 20,
  turn: 2_000,
  turns: 6,
  heading: 200,
  headings: 5,
  thread: 300,
  landmark: 60,
  landmarks: 20,
} as const;

const str = (v: unknown, max: number): string => (typeof v === 'string' ? v.slice(0, max) : '');
const opt = (v: unknown, max: number): string | undefined => (typeof v === 'string' ? v.slice(0, max) : undefined);

function list(v: unknown, count: number, max: number): string[] | undefined {
  if (!Array.isArray(v)) return undefined;
  const out: string[] = [];
  for (const x of v) {
    if (out.length >= count) break;
    if (typeof x === 'string' && x) out.push(x.slice(0, max));
  }
  return out;
}

/**
 * A reading cut to READING_LIMITS, fields of the wrong type left out: applied by the content script before it sends
 * and again by the worker when it receives (a page is not trusted to have run the first).
 */
export function boundReading(r: TaskReading): TaskReading {
  const L = READING_LIMITS;
  const out: TaskReading = {
    url: str(r.url, L.url),
    title: str(r.title, L.title),
    site: str(r.site, L.site),
    adapter: str(r.adapter, L.adapter),
    // Only the three known destinations; anything else a page sends counts as a document.
    destination: isDestination(r.destination) ? r.destination : 'documents',
    at: typeof r.at === 'number' && Number.isFinite(r.at) ? r.at : Date.now(),
  };
  const f = r.field;
  if (f && typeof f === 'object' && typeof f.text === 'string' && (f.kind === 'textarea' || f.kind === 'input' || f.kind === 'contenteditable')) {
    out.field = { text: f.text.slice(0, L.field), kind: f.kind };
    const label = opt(f.label, L.label);
    if (label !== undefined) out.field.label = label;
  }
  const selection = opt(r.selection, L.selection);
  if (selection !== undefined) out.selection = selection;
  const subject = opt(r.subject, L.subject);
  if (subject !== undefined) out.subject = subject;
  const people = list(r.people, L.people, L.person);
  if (people) out.people = people;
  // The latest turns are the ones that describe the task.
  const turns = list(Array.isArray(r.turns) ? r.turns.slice(-L.turns) : undefined, L.turns, L.turn);
  if (turns) out.turns = turns;
  const headings = list(r.headings, L.headings, L.heading);
  if (headings) out.headings = headings;
  if (r.thread && typeof r.thread === 'object' && typeof r.thread.id === 'string') out.thread = { id: r.thread.id.slice(0, L.thread) };
  const lm = r.landmarks;
  if (lm && typeof lm === 'object' && typeof lm.adapter === 'string') {
    out.landmarks = {
      adapter: lm.adapter.slice(0, L.adapter),
      label: str(lm.label, L.landmark) || lm.adapter.slice(0, L.adapter),
      found: list(lm.found, L.landmarks, L.landmark) ?? [],
      missing: list(lm.missing, L.landmarks, L.landmark) ?? [],
    };
  }
  return out;
}
