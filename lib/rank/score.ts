import type { MemoryItem } from '../memory/types';
import type { FactorScores, RankSettings, TaskReading } from './types';
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

export function priorityFactor(item: MemoryItem): number {
  if (item.pinned) return 1;
  if (item.tags.some((t) => /^(star(red)?|important|priority)$/i.test(t))) return 0.6;
  return 0;
}

/** Was it used in this tab, or is it part of a thread something was used from? */
export function continuityFactor(
  item: MemoryItem,
  used: Set<string>,
  usedThreads: Set<string>,
  now: number,
): { value: number; reason?: string } {
  if (used.has(item.id)) return { value: 1, reason: 'you inserted it earlier in this tab' };
  if (item.thread && usedThreads.has(item.thread.id))
    return { value: 0.6, reason: 'same thread as something you inserted in this tab' };
  if (item.lastUsedAt && now - item.lastUsedAt < DAY) return { value: 0.3, reason: 'used in the last day' };
  return { value: 0 };
}

export function scoreItem(
  item: MemoryItem,
  signal: Signal,
  task: TaskReading,
  settings: RankSettings,
  used: Set<string>,
  usedThreads: Set<string>,
  now: number,
): Scored {
  const sit = situationMatch(item, task);
  const cont = continuityFactor(item, used, usedThreads, now);
  const factors: FactorScores = {
    semantic: signal.semantic,
    lexical: signal.lexical,
    recency: recencyFactor(item, now, settings.halfLifeDays),
    priority: priorityFactor(item),
    continuity: cont.value,
    situation: sit.score,
  };
  // Written out in WEIGHT_NAMES order (the sums below add up in that order): this runs for every candidate.
  const w = settings.weights;
  const wSem = Math.max(0, w.semantic ?? 0);
  const wLex = Math.max(0, w.lexical ?? 0);
  const wRec = Math.max(0, w.recency ?? 0);
  const wPri = Math.max(0, w.priority ?? 0);
  const wCon = Math.max(0, w.continuity ?? 0);
  const wSit = Math.max(0, w.situation ?? 0);
  const contributions: FactorScores = {
    semantic: wSem * factors.semantic,
    lexical: wLex * factors.lexical,
    recency: wRec * factors.recency,
    priority: wPri * factors.priority,
    continuity: wCon * factors.continuity,
    situation: wSit * factors.situation,
  };
  const total =
    0 + contributions.semantic + contributions.lexical + contributions.recency + contributions.priority + contributions.continuity + contributions.situation;
  const wsum = 0 + wSem + wLex + wRec + wPri + wCon + wSit;
  // Normalise by the weight sum so the threshold means the same whatever the sliders' scale.
  if (wsum > 0) {
    contributions.semantic /= wsum;
    contributions.lexical /= wsum;
    contributions.recency /= wsum;
    contributions.priority /= wsum;
    contributions.continuity /= wsum;
    contributions.situation /= wsum;
  }
  return {
    item,
    signal,
    factors,
    contributions,
    score: wsum > 0 ? total / wsum : 0,
    situationReasons: sit.reasons,
    continuityReason: cont.reason,
  };
}
