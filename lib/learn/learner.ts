import { siteKey } from '../core/hosts';
import { FACTORS, FACTOR_NAMES, perFactor, type FactorName, type FactorScores, type Weights } from '../core/factors';
import type { Adjustment, FeedbackEvent, LearnedWeights } from './types';

/**
 * Learning from feedback: pairwise logistic regression on the ranker's factor scores. Each preference ("the user
 * took this card over that one") asks the score of the taken card to exceed the other's; the fit moves the weights
 * away from the sliders only as far as the evidence pays for, pulled back toward them (L2 on the log-multipliers),
 * and never beyond fixed bounds (each weight's multiplier, and how far the balance of the factors that decide
 * relevance may move: `moveBudget`); a change is kept only where it orders the user's newest feedback better than the
 * sliders do. Per-site changes come on top of the global one, with a stronger pull, and only for sites with enough
 * feedback of their own.
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

export interface PreferencePair {
  better: FactorScores;
  worse: FactorScores;
  site: string;
  weight: number;
}

const zero = (): Adjustment => perFactor(() => 0);

/**
 * Preferences read from what the user did. The panel shows its cards together, so a card used beat every other card
 * shown, above it or below it alike: counting only those above (or those above more) would read even random choices
 * as "the order is wrong" and teach the ranker to distrust whatever put cards on top. A card marked "not useful"
 * lost to every other card shown, weakly. Cards inserted together (Insert all) beat the others shown, not each
 * other. Pinned cards are there because of the pin, not their score: they say nothing.
 */
export function preferencePairs(events: FeedbackEvent[]): PreferencePair[] {
  const out: PreferencePair[] = [];
  for (const e of events) {
    const shown = e.shown.filter((c) => !c.pinned);
    const p = shown.findIndex((c) => c.id === e.itemId);
    if (p < 0) continue;
    const me = shown[p].factors;
    const together = new Set(e.together ?? []);
    shown.forEach((c, i) => {
      if (i === p || together.has(c.id)) return;
      if (e.action === 'dismiss') out.push({ better: c.factors, worse: me, site: e.site, weight: 0.3 });
      else out.push({ better: me, worse: c.factors, site: e.site, weight: 1 });
    });
  }
  return out;
}

/** The weights the ranker uses: the sliders times the learned change (global, plus the site's). */
export function learnedWeightsFor(base: Weights, learned: LearnedWeights | undefined, site: string): Weights {
  if (!learned) return base;
  const m = multipliers(base, learned, site);
  const out = { ...base };
  for (const n of FACTOR_NAMES) out[n] = base[n] * m[n];
  return out;
}

/**
 * Each weight's learned multiplier on this site. Scaling every weight alike changes no order, so the learned
 * factors are scaled back to the total the sliders gave them (learning moves weight between factors), and each
 * stays within a third and three times its slider. Factors learning had nothing to say about keep theirs.
 */
function multipliers(base: Weights, learned: LearnedWeights, site: string): Adjustment {
  const loc = learned.sites[siteKey(site)];
  const m = zero();
  let want = 0;
  let have = 0;
  for (const n of FACTOR_NAMES) {
    m[n] = 1;
    // A factor learning never moved (it told no pair apart) is exactly 0 globally and on every site.
    if (learned.global[n] === 0 && !loc?.[n]) continue;
    m[n] = Math.exp(clampTheta(learned.global[n] + (loc?.[n] ?? 0)));
    want += Math.max(0, base[n]);
    have += Math.max(0, base[n]) * m[n];
  }
  const scale = have > 0 && want > 0 ? want / have : 1;
  const lo = Math.exp(-LEARNING.bound);
  const hi = Math.exp(LEARNING.bound);
  for (const n of FACTOR_NAMES) if (learned.global[n] !== 0 || loc?.[n]) m[n] = Math.min(hi, Math.max(lo, m[n] * scale));
  // However it was stored (an older fit, an imported file), the change used never moves more than the budget.
  const logm = FACTOR_NAMES.map((n) => Math.log(m[n]));
  keepWithinBudget(FACTOR_NAMES.map((n) => Math.max(0, base[n])), logm);
  FACTOR_NAMES.forEach((n, j) => (m[n] = Math.exp(logm[j])));
  return m;
}

/**
 * The factors every item has a value for, whose balance decides what counts as relevant to any task; the others
 * only lift items tied to the user's situation.
 */
const CORE: readonly boolean[] = FACTOR_NAMES.map((n) => FACTORS[n].relevance);

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
function keepWithinBudget(b: readonly number[], theta: { [j: number]: number; length: number }, offset?: ArrayLike<number>): void {
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

function clampTheta(x: number): number {
  return Math.max(-LEARNING.bound, Math.min(LEARNING.bound, Number.isFinite(x) ? x : 0));
}

/**
 * Fits the change to the sliders `base` from the preference pairs; undefined until there are enough of them.
 * Deterministic (plain gradient descent from zero), bounded, and the change is zero where the pairs say nothing.
 */
export function fitWeights(pairs: PreferencePair[], base: Weights, now = Date.now()): LearnedWeights | undefined {
  if (pairs.length < LEARNING.minPairs) return undefined;
  const F = FACTOR_NAMES.length;
  const siteCount = new Map<string, number>();
  for (const p of pairs) siteCount.set(siteKey(p.site), (siteCount.get(siteKey(p.site)) ?? 0) + 1);
  const sites = [...siteCount].filter(([s, n]) => s && n >= LEARNING.minPairs).map(([s]) => s);
  const slot = new Map(sites.map((s, i) => [s, i + 1] as const)); // 0: no change of its own
  // Factors of both sides in flat arrays, and which site's change applies, so each pass is plain arithmetic.
  const n = pairs.length;
  const xa = new Float64Array(n * F);
  const xb = new Float64Array(n * F);
  const pw = new Float64Array(n);
  const ps = new Int32Array(n);
  pairs.forEach((p, i) => {
    FACTOR_NAMES.forEach((f, j) => ((xa[i * F + j] = p.better[f]), (xb[i * F + j] = p.worse[f])));
    pw[i] = p.weight;
    ps[i] = slot.get(siteKey(p.site)) ?? 0;
  });
  const b = FACTOR_NAMES.map((f) => Math.max(0, base[f]));
  const W0 = b.reduce((a, x) => a + x, 0) || 1;
  // Only factors that told some pair apart can be learned; the others keep their slider weight exactly.
  const active = FACTOR_NAMES.map((_, j) => {
    for (let i = 0; i < n; i++) if (Math.abs(xa[i * F + j] - xb[i * F + j]) > 1e-6) return true;
    return false;
  });
  // Global change first, on every pair; then each site's change on top of it, on that site's pairs alone.
  const all = Int32Array.from({ length: n }, (_, i) => i);
  // A change is kept only where it measurably helps: fitted on the older three quarters of the pairs, it must order
  // the newest quarter better than the sliders do; then it is fitted again on all of them.
  const g = new Float64Array(F);
  if (helps(all, undefined, LEARNING.l2Global)) descend(g, undefined, all, LEARNING.l2Global);
  const loc = sites.map((_, s) => {
    const l = new Float64Array(F);
    const mine = all.filter((i) => ps[i] === s + 1);
    if (helps(mine, g, LEARNING.l2Site)) descend(l, g, mine, LEARNING.l2Site);
    return l;
  });

  function helps(idx: Int32Array, offset: Float64Array | undefined, l2: number): boolean {
    const cut = Math.floor(idx.length * 0.75);
    const fit = idx.slice(0, cut);
    const check = idx.slice(cut);
    if (!check.length) return false;
    const theta = new Float64Array(F);
    descend(theta, offset, fit, l2);
    return accuracy(check, offset, theta) >= accuracy(check, offset, new Float64Array(F)) + LEARNING.mustGain;
  }

  /** Share of the pairs (by weight) the weights order the user's way. */
  function accuracy(idx: Int32Array, offset: Float64Array | undefined, theta: Float64Array): number {
    const w = b.map((x, j) => x * Math.exp(clampTheta((offset ? offset[j] : 0) + theta[j])));
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
  function descend(theta: Float64Array, offset: Float64Array | undefined, idx: Int32Array, l2: number): void {
    const w = new Float64Array(F);
    const grad = new Float64Array(F);
    const pull = new Float64Array(F);
    let total = 0;
    for (const i of idx) total += pw[i];
    if (!(total > 0)) return;
    const k = LEARNING.sharpness;
    for (let it = 0; it < LEARNING.iterations; it++) {
      for (let j = 0; j < F; j++) w[j] = b[j] * Math.exp(clampTheta((offset ? offset[j] : 0) + theta[j]));
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
      // Past the budget, the fit is pulled back along the overshoot's gradient: cutting a heavy factor's share spends
      // much of the budget, raising a light one's little, so the fit spends it where it pays most.
      budgetPull(w, pull);
      for (let j = 0; j < F; j++) if (active[j]) theta[j] -= LEARNING.rate * (grad[j] / total + l2 * theta[j] + pull[j]);
      // Scaling every weight alike changes no order, only how sure the fit looks (shrinking all of them flatters
      // a fit to noise): the uniform part of the change is taken out, so only weight moved between factors counts.
      let mean = 0;
      let m = 0;
      for (let j = 0; j < F; j++) if (active[j]) {
        mean += theta[j];
        m++;
      }
      mean = m ? mean / m : 0;
      for (let j = 0; j < F; j++) if (active[j]) theta[j] = clampTheta(theta[j] - mean);
    }
    // What the pull left past the budget is cut off: the change found moves no more than the budget.
    keepWithinBudget(b, theta, offset);
  }
  /** The gradient of μ·(moved − budget)², where moved is past the budget, on the core factors (0 elsewhere). */
  function budgetPull(w: Float64Array, out: Float64Array): void {
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
  const toAdj = (v: Float64Array): Adjustment => Object.fromEntries(FACTOR_NAMES.map((f, j) => [f, v[j]])) as Adjustment;
  const learned: LearnedWeights = { global: toAdj(g), sites: {}, pairs: n, fittedAt: now };
  sites.forEach((s, i) => {
    if (loc[i].some((x) => Math.abs(x) >= LEARNING.noticeable)) learned.sites[s] = toAdj(loc[i]);
  });
  return learned;
}

/** What was learned, in plain words: "recency counts more on mail.google.com (×2.1)". Empty when nothing was. */
export function describeLearned(learned: LearnedWeights | undefined, base: Weights): string[] {
  if (!learned) return [];
  const out: string[] = [];
  const global = multipliers(base, learned, '');
  const say = (m: Adjustment, where: string, against?: Adjustment) => {
    for (const n of FACTOR_NAMES) {
      const x = against ? m[n] / against[n] : m[n];
      if (Math.abs(Math.log(x)) < LEARNING.noticeable) continue;
      const times = against ? `×${m[n].toFixed(1)} there, ×${against[n].toFixed(1)} elsewhere` : `×${m[n].toFixed(1)}`;
      out.push(`${FACTORS[n].learned} counts ${x > 1 ? 'more' : 'less'} ${where} (${times})`);
    }
  };
  say(global, 'everywhere');
  // A site's line says how it differs from everywhere else.
  for (const s of Object.keys(learned.sites)) say(multipliers(base, learned, s), `on ${s}`, global);
  return out;
}

/** How a learned change to one factor reads in the trace, where it applies on this site. */
export function learnedReason(learned: LearnedWeights | undefined, base: Weights, site: string, factor: FactorName): string | undefined {
  if (!learned) return undefined;
  const here = multipliers(base, learned, site)[factor];
  if (Math.abs(Math.log(here)) < LEARNING.noticeable) return undefined;
  const everywhere = multipliers(base, learned, '')[factor];
  const local = !!learned.sites[siteKey(site)] && Math.abs(Math.log(here / everywhere)) >= LEARNING.noticeable;
  return `${FACTORS[factor].learned} counts ${here > 1 ? 'more' : 'less'} ${local ? `on ${siteKey(site)}` : 'everywhere'}`;
}
