import { FACTOR_NAMES, type FactorScores, type Weights } from '../core/factors';
import { siteKey } from '../core/hosts';
import { CORE, LEARNING, clampTheta, keepWithinBudget } from './learning-bounds';
import type { Adjustment, LearnedWeights } from './types';

/**
 * Learning from feedback: pairwise logistic regression on the ranker's factor scores. Each preference ("the user
 * took this card over that one") asks the score of the taken card to exceed the other's; the fit moves the weights
 * away from the sliders only as far as the evidence pays for, pulled back toward them (L2 on the log-multipliers),
 * and never beyond fixed bounds (each weight's multiplier, and how far the balance of the factors that decide
 * relevance may move: `moveBudget`, lib/learn/learning-bounds.ts); a change is kept only where it orders the user's
 * newest feedback better than the sliders do. Per-site changes come on top of the global one, with a stronger pull,
 * and only for sites with enough feedback of their own.
 */

export interface PreferencePair {
  better: FactorScores;
  worse: FactorScores;
  site: string;
  weight: number;
}

/** The pairs in flat arrays (pair i's factor j at i·F + j), so each pass of the fit is plain arithmetic. */
interface Pairs {
  /** How many factors. */
  F: number;
  /** The taken card's factors and the other's. */
  xa: Float64Array;
  xb: Float64Array;
  /** Each pair's weight. */
  pw: Float64Array;
  /** The sliders, none below zero, and their total. */
  b: number[];
  W0: number;
  /** Factors that told some pair apart: only they can be learned; the others keep their slider weight exactly. */
  active: boolean[];
}

/** A change: log-multipliers on the sliders, one per factor. */
type Theta = Float64Array;

/**
 * Fits the change to the sliders `base` from the preference pairs; undefined until there are enough of them.
 * Deterministic (plain gradient descent from zero), bounded, and the change is zero where the pairs say nothing.
 */
export function fitWeights(pairs: PreferencePair[], base: Weights, now = Date.now()): LearnedWeights | undefined {
  if (pairs.length < LEARNING.minPairs) return undefined;
  const sites = sitesOfTheirOwn(pairs);
  const data = flatPairs(pairs, base);
  const all = Int32Array.from({ length: pairs.length }, (_, i) => i);
  // Global change first, on every pair; then each site's change on top of it, on that site's pairs alone.
  const global = fitChange(data, all, undefined, LEARNING.l2Global);
  const keys = pairs.map((p) => siteKey(p.site));
  const local = sites.map((s) => fitChange(data, all.filter((i) => keys[i] === s), global, LEARNING.l2Site));
  const learned: LearnedWeights = { global: adjustment(global), sites: {}, pairs: pairs.length, fittedAt: now };
  sites.forEach((s, i) => {
    if (local[i].some((x) => Math.abs(x) >= LEARNING.noticeable)) learned.sites[s] = adjustment(local[i]);
  });
  return learned;
}

/** Sites with enough pairs of their own for a change of their own. */
function sitesOfTheirOwn(pairs: PreferencePair[]): string[] {
  const count = new Map<string, number>();
  for (const p of pairs) count.set(siteKey(p.site), (count.get(siteKey(p.site)) ?? 0) + 1);
  return [...count].filter(([s, n]) => s && n >= LEARNING.minPairs).map(([s]) => s);
}

function flatPairs(pairs: PreferencePair[], base: Weights): Pairs {
  const F = FACTOR_NAMES.length;
  const n = pairs.length;
  const xa = new Float64Array(n * F);
  const xb = new Float64Array(n * F);
  const pw = new Float64Array(n);
  pairs.forEach((p, i) => {
    FACTOR_NAMES.forEach((f, j) => ((xa[i * F + j] = p.better[f]), (xb[i * F + j] = p.worse[f])));
    pw[i] = p.weight;
  });
  const b = FACTOR_NAMES.map((f) => Math.max(0, base[f]));
  const W0 = b.reduce((a, x) => a + x, 0) || 1;
  const active = FACTOR_NAMES.map((_, j) => {
    for (let i = 0; i < n; i++) if (Math.abs(xa[i * F + j] - xb[i * F + j]) > 1e-6) return true;
    return false;
  });
  return { F, xa, xb, pw, b, W0, active };
}

/** The change the pairs `idx` call for on top of `offset`: zero unless it measurably helps. */
function fitChange(data: Pairs, idx: Int32Array, offset: Theta | undefined, l2: number): Theta {
  const theta = new Float64Array(data.F);
  if (helps(data, idx, offset, l2)) descend(data, theta, offset, idx, l2);
  return theta;
}

/**
 * A change is kept only where it measurably helps: fitted on the older three quarters of the pairs, it must order the
 * newest quarter better than the sliders do (it is then fitted again on all of them).
 */
function helps(data: Pairs, idx: Int32Array, offset: Theta | undefined, l2: number): boolean {
  const cut = Math.floor(idx.length * 0.75);
  const fit = idx.slice(0, cut);
  const check = idx.slice(cut);
  if (!check.length) return false;
  const theta = new Float64Array(data.F);
  descend(data, theta, offset, fit, l2);
  return accuracy(data, check, offset, theta) >= accuracy(data, check, offset, new Float64Array(data.F)) + LEARNING.mustGain;
}

/** The weights a change gives: the sliders times e^(offset + θ), each within the bound. */
function weightsAt(data: Pairs, offset: Theta | undefined, theta: Theta, out = new Float64Array(data.F)): Float64Array {
  for (let j = 0; j < data.F; j++) out[j] = data.b[j] * Math.exp(clampTheta((offset ? offset[j] : 0) + theta[j]));
  return out;
}

/** Share of the pairs (by weight) the weights order the user's way. */
function accuracy(data: Pairs, idx: Int32Array, offset: Theta | undefined, theta: Theta): number {
  const { F, xa, xb, pw } = data;
  const w = weightsAt(data, offset, theta);
  let right = 0;
  let total = 0;
  for (const i of idx) {
    let d = 0;
    for (let j = 0; j < F; j++) d += w[j] * (xa[i * F + j] - xb[i * F + j]);
    total += pw[i];
    if (d > 0) right += pw[i];
  }
  return total ? right / total : 0;
}

/** Gradient descent on θ for the pairs `idx`, the weights being the sliders times e^(offset + θ). */
function descend(data: Pairs, theta: Theta, offset: Theta | undefined, idx: Int32Array, l2: number): void {
  const { F, pw, active } = data;
  const w = new Float64Array(F);
  const grad = new Float64Array(F);
  const pull = new Float64Array(F);
  let total = 0;
  for (const i of idx) total += pw[i];
  if (!(total > 0)) return;
  for (let it = 0; it < LEARNING.iterations; it++) {
    weightsAt(data, offset, theta, w);
    orderGradient(data, idx, w, grad);
    // Past the budget, the fit is pulled back along the overshoot's gradient: cutting a heavy factor's share spends
    // much of the budget, raising a light one's little, so the fit spends it where it pays most.
    budgetPull(data, w, pull);
    for (let j = 0; j < F; j++) if (active[j]) theta[j] -= LEARNING.rate * (grad[j] / total + l2 * theta[j] + pull[j]);
    withoutUniformPart(theta, active);
  }
  // What the pull left past the budget is cut off: the change found moves no more than the budget.
  keepWithinBudget(data.b, theta, offset);
}

/** The gradient of the pairs' logistic loss on θ, the weights being `w`, into `grad`. */
function orderGradient(data: Pairs, idx: Int32Array, w: Float64Array, grad: Float64Array): void {
  const { F, xa, xb, pw, W0, active } = data;
  const k = LEARNING.sharpness;
  grad.fill(0);
  for (const i of idx) {
    // The order is what counts: Σ w_j x_j over the sliders' total (the ranker's own division changes no order).
    let sa = 0;
    let sb = 0;
    for (let j = 0; j < F; j++) {
      sa += w[j] * xa[i * F + j];
      sb += w[j] * xb[i * F + j];
    }
    // d/dz log(1 + e^-z) at z = k (sa - sb) / W0, times dz/dθ_j = k w_j (xa_j - xb_j) / W0.
    const c = (-pw[i] * k) / W0 / (1 + Math.exp((k * (sa - sb)) / W0));
    for (let j = 0; j < F; j++) if (active[j]) grad[j] += c * w[j] * (xa[i * F + j] - xb[i * F + j]);
  }
}

/**
 * Scaling every weight alike changes no order, only how sure the fit looks (shrinking all of them flatters a fit to
 * noise): the uniform part of the change is taken out, so only weight moved between factors counts.
 */
function withoutUniformPart(theta: Theta, active: boolean[]): void {
  let mean = 0;
  let m = 0;
  for (let j = 0; j < theta.length; j++) if (active[j]) {
    mean += theta[j];
    m++;
  }
  mean = m ? mean / m : 0;
  for (let j = 0; j < theta.length; j++) if (active[j]) theta[j] = clampTheta(theta[j] - mean);
}

/** The gradient of μ·(moved − budget)², where moved is past the budget, on the core factors (0 elsewhere). */
function budgetPull(data: Pairs, w: Float64Array, out: Float64Array): void {
  const { F, b } = data;
  out.fill(0);
  let B = 0;
  let W = 0;
  for (let j = 0; j < F; j++) if (CORE[j]) {
    B += b[j];
    W += w[j];
  }
  if (!(B > 0) || !(W > 0)) return;
  let moved = 0;
  let mean = 0;
  const sign = new Float64Array(F);
  for (let j = 0; j < F; j++) {
    if (!CORE[j]) continue;
    const d = w[j] / W - b[j] / B;
    moved += Math.abs(d) / 2;
    sign[j] = Math.sign(d);
    mean += sign[j] * (w[j] / W);
  }
  const over = moved - LEARNING.moveBudget;
  if (over <= 0) return;
  // d moved / dθ_j = ½ s_j (sign_j − Σ_i sign_i s_i), s being the core shares.
  for (let j = 0; j < F; j++) if (CORE[j]) out[j] = 2 * LEARNING.budgetStiffness * over * 0.5 * (w[j] / W) * (sign[j] - mean);
}

const adjustment = (v: Theta): Adjustment => Object.fromEntries(FACTOR_NAMES.map((f, j) => [f, v[j]])) as Adjustment;
