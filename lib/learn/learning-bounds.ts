import { FACTORS, FACTOR_NAMES } from '../core/factors';

/**
 * How learning fits (lib/learn/fit-weights.ts) and how far it may move the weights from the sliders: each weight's
 * multiplier within `bound`, and the balance of the factors that decide relevance within `moveBudget`, however the
 * change was made or stored.
 */
export const LEARNING = {
  /** No learning before this many preference pairs, about ten uses (globally, and per site for a site's own change). */
  minPairs: 60,
  /** |θ| ≤ ln 3: a learned weight stays within a third and three times the slider's. */
  bound: Math.log(3),
  /** Pull toward the defaults, per pair's worth of evidence. */
  l2Global: 0.2,
  l2Site: 0.3,
  /** Sharpness of the logistic on score differences (scores are in [0, 1] and differ by a few hundredths). */
  sharpness: 25,
  iterations: 300,
  /** How much better than the sliders a change must order the newest feedback to be kept. */
  mustGain: 0.02,
  rate: 2,
  /** A change smaller than this (as a multiplier, ±15%) is not worth saying or acting on. */
  noticeable: Math.log(1.15),
  /**
   * At most this share of the weight of meaning, shared words and recency moves between them (half the summed change
   * of their shares). They decide what is relevant to any task, and the sliders' balance of them is tuned for that:
   * the multiplier bound alone let a light factor triple while a heavy one lost two fifths (recency ×3, shared words
   * ×0.6), which cost LoCoMo recall (bench:learning, docs/benchmarks.md). A habit now reorders what is relevant instead of swapping in what is not.
   * Priority, continuity and situation lift only items tied to the situation and keep the multiplier bound alone.
   */
  moveBudget: 0.035,
  /** How hard the fit is pulled back inside the budget (what is still past it at the end is cut off). */
  budgetStiffness: 2,
};

/**
 * The factors every item has a value for, whose balance decides what counts as relevant to any task; the others
 * only lift items tied to the user's situation.
 */
export const CORE: readonly boolean[] = FACTOR_NAMES.map((n) => FACTORS[n].relevance);

/**
 * How much of the core factors' weight the change offset + α·θ (log-multipliers on the weights `b`) moves between
 * them: half the summed change of each one's share of their total.
 */
function movedShare(b: readonly number[], theta: ArrayLike<number>, alpha = 1, offset?: ArrayLike<number>): number {
  let B = 0;
  let W = 0;
  const w = b.map((x, j) => (CORE[j] ? x * Math.exp(clampTheta((offset ? offset[j] : 0) + alpha * theta[j])) : 0));
  for (let j = 0; j < b.length; j++) if (CORE[j]) {
    B += b[j];
    W += w[j];
  }
  if (!(B > 0) || !(W > 0)) return 0;
  let d = 0;
  for (let j = 0; j < b.length; j++) if (CORE[j]) d += Math.abs(w[j] / W - b[j] / B);
  return d / 2;
}

/**
 * Shortens the core part of the change θ (on top of `offset`, already within the budget) until it moves no more than
 * the budget: the direction learning found is kept. Only the core factors' balance is touched, not their level
 * against the others, which the budget does not limit.
 */
export function keepWithinBudget(b: readonly number[], theta: { [j: number]: number; length: number }, offset?: ArrayLike<number>): void {
  if (movedShare(b, theta, 1, offset) <= LEARNING.moveBudget) return;
  let level = 0;
  let k = 0;
  for (let j = 0; j < b.length; j++) if (CORE[j]) {
    level += theta[j];
    k++;
  }
  level /= k || 1;
  const balance = Array.from({ length: b.length }, (_, j) => (CORE[j] ? theta[j] - level : 0));
  let lo = 0;
  let hi = 1;
  for (let it = 0; it < 30; it++) {
    const mid = (lo + hi) / 2;
    if (movedShare(b, balance, mid, offset) <= LEARNING.moveBudget) lo = mid;
    else hi = mid;
  }
  for (let j = 0; j < b.length; j++) if (CORE[j]) theta[j] = level + lo * balance[j];
}

export function clampTheta(x: number): number {
  return Math.max(-LEARNING.bound, Math.min(LEARNING.bound, Number.isFinite(x) ? x : 0));
}

