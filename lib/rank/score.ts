import type { MemoryItem } from '../memory/types';
import { FACTOR_NAMES, newScores, weighFactors, type FactorName, type FactorScores } from '../core/factors';
import type { RankSettings, TaskReading } from './types';
import type { Signal } from './retrieve';
import { situationMatch } from './situation';

const DAY = 86_400_000;

export interface Scored {
  item: MemoryItem;
  signal: Signal;
  factors: FactorScores;
  contributions: FactorScores;
  /** Weighted mean of the factors, in [0, 1]. */
  score: number;
  situationReasons: string[];
  continuityReason?: string;
  /** A newer decision on the same subject (lib/rank/supersede.ts); this one is ranked just below it. */
  supersededBy?: MemoryItem;
  /** Its place among its conversation's turns in this ranking, when past the free ones and discounted for it (weigh.ts `spreadThreads`). */
  threadPlace?: number;
}

/**
 * Exponential decay from the item's latest touch: created, edited or used, whichever is newest. An undated item's
 * stored times say when it was imported, not written, so only its use counts.
 */
export function recencyFactor(item: MemoryItem, now: number, halfLifeDays: number): number {
  const touched = item.undated ? item.lastUsedAt || 0 : Math.max(item.createdAt || 0, item.updatedAt || 0, item.lastUsedAt || 0);
  const age = Math.max(0, now - touched) / DAY;
  return halfLifeDays > 0 ? Math.pow(0.5, age / halfLifeDays) : 0;
}

const EMPHASIS = /^(star(red)?|important|priority)$/i;

export function priorityFactor(item: MemoryItem): number {
  if (item.pinned) return 1;
  for (const t of item.tags) if (EMPHASIS.test(t)) return 0.6;
  return 0;
}

/** Was it used in this tab, or is it part of a thread something was used from? */
export function continuityFactor(
  item: MemoryItem,
  used: Set<string>,
  usedThreads: Set<string>,
  now: number,
): Continuity {
  if (used.has(item.id)) return INSERTED_HERE;
  if (item.thread && usedThreads.has(item.thread.id)) return SAME_THREAD;
  if (item.lastUsedAt && now - item.lastUsedAt < DAY) return USED_TODAY;
  return NO_CONTINUITY;
}

interface Continuity {
  readonly value: number;
  readonly reason?: string;
}
// Asked of every candidate: the answers are shared, not made per item.
const INSERTED_HERE: Continuity = { value: 1, reason: 'you inserted it earlier in this tab' };
const SAME_THREAD: Continuity = { value: 0.6, reason: 'same thread as something you inserted in this tab' };
const USED_TODAY: Continuity = { value: 0.3, reason: 'used in the last day' };
const NO_CONTINUITY: Continuity = { value: 0 };

/** What the factors of one item are computed from. */
interface FactorInputs {
  item: MemoryItem;
  signal: Signal;
  settings: RankSettings;
  now: number;
  situation: { score: number };
  continuity: { value: number };
}

/** How each factor is computed (lib/core/factors.ts declares them): a factor missing here does not compile. */
const FACTOR_VALUE: Record<FactorName, (x: FactorInputs) => number> = {
  semantic: (x) => x.signal.semantic,
  lexical: (x) => x.signal.lexical,
  recency: (x) => recencyFactor(x.item, x.now, x.settings.halfLifeDays),
  priority: (x) => priorityFactor(x.item),
  continuity: (x) => x.continuity.value,
  situation: (x) => x.situation.score,
};

const scratch = {} as FactorInputs;

export function scoreItem(
  item: MemoryItem,
  signal: Signal,
  task: TaskReading,
  settings: RankSettings,
  used: Set<string>,
  usedThreads: Set<string>,
  now: number,
): Scored {
  const situation = situationMatch(item, task);
  const continuity = continuityFactor(item, used, usedThreads, now);
  // Thousands of candidates a ranking: one inputs record, refilled (the factors read it and keep nothing), no closure.
  const inputs = scratch;
  inputs.item = item;
  inputs.signal = signal;
  inputs.settings = settings;
  inputs.now = now;
  inputs.situation = situation;
  inputs.continuity = continuity;
  const factors = newScores();
  for (const n of FACTOR_NAMES) factors[n] = FACTOR_VALUE[n](inputs);
  const { score, contributions } = weighFactors(settings.weights, factors);
  return {
    item,
    signal,
    factors,
    contributions,
    score,
    situationReasons: situation.reasons,
    continuityReason: continuity.reason,
  };
}
