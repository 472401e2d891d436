// Learning as it syncs (docs/sync.md, "What syncs"): the settings field `learning` carries whether learning is on and
// the most recent feedback events, compactly. Devices' feedback is a union: concurrent values are merged event by
// event (an event is known by when, what, which card and where), never one list replacing another. What was learned
// is not sent: each device fits it again from the events it holds.
import { isDestination } from '../core/destinations';
import { FACTOR_NAMES, perFactor } from '../core/factors';
import { lastWhere } from '../core/last-where';
import type { FeedbackAction, FeedbackEvent, ShownCard } from './types';

/**
 * Events synced at most: the newest. The whole list is sealed and written at every change, so it is kept small: with
 * the panel's 8 cards an event is about 600 characters of JSON, 100 of them about 60 KB. 100 uses give about 700
 * preference pairs, ten times what learning needs before it changes anything (LEARNING.minPairs); each device's fit
 * also reads its own older events.
 */
export const SYNC_EVENTS = 100;
/** Characters the events may take at most as the field check counts them, whatever the cards (its limit is 200,000). */
export const SYNC_CHARS = 150_000;
/** Factor scores are sent to three decimals: the fit cannot tell the difference, and the list is a third shorter. */
const round = (x: number) => Math.round(x * 1000) / 1000;

/** What one device says about learning. */
export interface SyncedLearning {
  /** Whether learning is on, and when that was last set (the later setting wins); undefined before it was set. */
  enabled?: { on: boolean; at: number };
  /** Feedback given before this time was reset (forgotten) on some device: every device forgets it. */
  resetAt: number;
  events: FeedbackEvent[];
}

/** An event's identity: the same use of the same card at the same moment on the same site is one event. */
export const eventKey = (e: Pick<FeedbackEvent, 'at' | 'action' | 'itemId' | 'site'>): string => `${e.at}\u0000${e.action}\u0000${e.itemId}\u0000${e.site}`;

const newestLast = (a: FeedbackEvent, b: FeedbackEvent) => a.at - b.at || (eventKey(a) < eventKey(b) ? -1 : eventKey(a) > eventKey(b) ? 1 : 0);

/**
 * At least what the field check counts for a value (lib/sync/fields.ts `jsonWithin`: 8 for any number, whatever its
 * digits), so a value within SYNC_CHARS here is never refused by another device.
 */
function measured(w: WireEvent): number {
  let numbers = 0;
  const walk = (x: unknown): void => {
    if (typeof x === 'number') numbers++;
    else if (Array.isArray(x)) x.forEach(walk);
  };
  walk(w);
  return JSON.stringify(w).length + 1 + 8 * numbers;
}

type WireCard = [string, number[]] | [string, number[], 1];
type WireEvent = [number, FeedbackAction, string, string, string, WireCard[]] | [number, FeedbackAction, string, string, string, WireCard[], string[]];

function wireEvent(e: FeedbackEvent): WireEvent {
  const cards = e.shown.map((c): WireCard => {
    const scores = FACTOR_NAMES.map((n) => round(c.factors[n] ?? 0));
    return c.pinned ? [c.id, scores, 1] : [c.id, scores];
  });
  const head = [e.at, e.action, e.itemId, e.site, e.destination, cards] as const;
  return e.together?.length ? [...head, [...e.together]] : [...head];
}

/**
 * The `learning` value this device sends: its newest events (at most SYNC_EVENTS, within SYNC_CHARS), oldest first,
 * factors named once. The same events give the same value on every device, so devices that hold the same feedback
 * send nothing more.
 */
export function encodeLearning(l: SyncedLearning): unknown {
  const sorted = dedupe(l.events.filter((e) => e.at > l.resetAt)).sort(newestLast);
  // Each event as another device reads it back (capped, clamped, rounded), so that device sends the same value:
  // an event it would read differently would make the two send their versions to each other forever.
  const wire = sorted
    .map((e) => eventOf(wireEvent(e), FACTOR_NAMES))
    .filter((e): e is FeedbackEvent => !!e)
    .slice(-SYNC_EVENTS)
    .map(wireEvent)
    .reverse();
  const sizes = wire.map(measured);
  let total = 0;
  const sums = sizes.map((s) => (total += s));
  const n = sums.length && sums[0] <= SYNC_CHARS ? lastWhere(1, sums.length, (k) => sums[k - 1] <= SYNC_CHARS) : 0;
  return {
    v: 1,
    ...(l.enabled ? { enabled: l.enabled } : {}),
    resetAt: l.resetAt,
    factors: [...FACTOR_NAMES],
    events: wire.slice(0, n).reverse(),
  };
}

const isObject = (x: unknown): x is Record<string, unknown> => !!x && typeof x === 'object' && !Array.isArray(x);
const time = (x: unknown): number | undefined => (typeof x === 'number' && Number.isFinite(x) && x >= 0 ? x : undefined);
const ACTIONS = new Set<string>(['insert', 'copy', 'drag', 'dismiss']);
const MAX_ID = 4096;
const text = (x: unknown, max = MAX_ID): x is string => typeof x === 'string' && x.length <= max;

function cardOf(raw: unknown, factors: readonly string[]): ShownCard | undefined {
  if (!Array.isArray(raw) || !text(raw[0]) || !Array.isArray(raw[1])) return undefined;
  const scores = raw[1] as unknown[];
  const at = new Map(factors.map((n, i) => [n, scores[i]]));
  const factorScores = perFactor((n) => {
    const x = at.get(n);
    return typeof x === 'number' && Number.isFinite(x) ? Math.max(0, Math.min(1, x)) : 0;
  });
  return { id: raw[0], factors: factorScores, ...(raw[2] === 1 ? { pinned: true } : {}) };
}

function eventOf(raw: unknown, factors: readonly string[]): FeedbackEvent | undefined {
  if (!Array.isArray(raw) || raw.length < 6) return undefined;
  const [at, action, itemId, site, destination, shown, together] = raw as unknown[];
  if (time(at) === undefined || !ACTIONS.has(action as string) || !text(itemId) || !text(site, 253) || !isDestination(destination) || !Array.isArray(shown)) return undefined;
  const cards = shown.slice(0, 50).map((c) => cardOf(c, factors));
  if (cards.some((c) => !c)) return undefined;
  const with_ = Array.isArray(together) ? together.filter((id): id is string => text(id)).slice(0, 50) : [];
  return { at: at as number, action: action as FeedbackAction, itemId, site, destination, shown: cards as ShownCard[], ...(with_.length ? { together: with_ } : {}) };
}

/**
 * A synced `learning` value read back, checked as hostile: what is not an event is left out, and a value that is not
 * one at all says nothing (no events, no switch).
 */
export function decodeLearning(raw: unknown): SyncedLearning {
  if (!isObject(raw)) return { resetAt: 0, events: [] };
  const factors = Array.isArray(raw.factors) ? raw.factors.map((f) => (typeof f === 'string' ? f : '')) : [...FACTOR_NAMES];
  const e = raw.enabled;
  const enabled = isObject(e) && typeof e.on === 'boolean' && time(e.at) !== undefined ? { on: e.on, at: e.at as number } : undefined;
  const events = Array.isArray(raw.events) ? raw.events.slice(0, SYNC_EVENTS * 2).map((x) => eventOf(x, factors)).filter((x): x is FeedbackEvent => !!x) : [];
  return { ...(enabled ? { enabled } : {}), resetAt: time(raw.resetAt) ?? 0, events };
}

/**
 * Whether switch `a` replaces switch `b`: the later one wins, and at the same moment off wins (every device must
 * pick the same one, or each would keep sending its own).
 */
export function laterSwitch(a: { on: boolean; at: number } | undefined, b: { on: boolean; at: number } | undefined): boolean {
  if (!a) return false;
  if (!b) return true;
  return a.at > b.at || (a.at === b.at && !a.on && b.on);
}

function dedupe(events: FeedbackEvent[]): FeedbackEvent[] {
  const seen = new Set<string>();
  return events.filter((e) => !seen.has(eventKey(e)) && !!seen.add(eventKey(e)));
}

/**
 * The union of devices' learning values (a register's concurrent heads): every event once, the latest reset, and
 * the switch as it was last set.
 */
export function unionLearning(values: readonly unknown[]): SyncedLearning {
  const all = values.map(decodeLearning);
  const resetAt = Math.max(0, ...all.map((l) => l.resetAt));
  let enabled: SyncedLearning['enabled'];
  for (const l of all) if (laterSwitch(l.enabled, enabled)) enabled = l.enabled;
  const events = dedupe(all.flatMap((l) => l.events)).filter((e) => e.at > resetAt).sort(newestLast);
  return { ...(enabled ? { enabled } : {}), resetAt, events };
}
