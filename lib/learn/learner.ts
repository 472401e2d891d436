import { WEIGHT_NAMES, type FactorScores, type WeightName, type Weights } from '../rank/types';
import type { Adjustment, FeedbackEvent, LearnedWeights } from './types';

/**
 * Learning from feedback: pairwise logistic regression on the ranker's factor scores. Each preference ("the user
 * took this card over that one") asks the score of the taken card to exceed the other's; the fit moves the weights
 * away from the sliders only as far as the evidence pays for, pulled back toward them (L2 on the log-multipliers),
 * and never beyond a fixed bound. Per-site changes come on top of the global one, with a stronger pull, and only
 * for sites with enough feedback of their own.
 */
export const LEARNING = {
  /** No learning before this many preference pairs (globally, and per site for a site's own change). */
  minPairs: 12,
  /** |θ| ≤ ln 3: a learned weight stays within a third and three times the slider's. */
  bound: Math.log(3),
  /** Pull toward the defaults, per pair's worth of evidence. */
  l2Global: 0.02,
  l2Site: 0.05,
  /** Sharpness of the logistic on score differences (scores are in [0, 1] and differ by a few hundredths). */
  sharpness: 25,
  iterations: 300,
  rate: 2,
  /** A change smaller than this (as a multiplier, ±15%) is not worth saying or acting on. */
  noticeable: Math.log(1.15),
};

export interface PreferencePair {
  better: FactorScores;
  worse: FactorScores;
  site: string;
  weight: number;
}

const zero = (): Adjustment => ({ semantic: 0, lexical: 0, recency: 0, priority: 0, continuity: 0, situation: 0 });

/**
 * Preferences read from what the user did. A card used at place p beat every card shown above it (they were seen
 * and passed over) and, more weakly, the one right below it. A card marked "not useful" lost to the next two below.
 * Pinned cards are there because of the pin, not their score, and say nothing.
 */
export function preferencePairs(events: FeedbackEvent[]): PreferencePair[] {
  const out: PreferencePair[] = [];
  for (const e of events) {
    const shown = e.shown.filter((c) => !c.pinned);
    const p = shown.findIndex((c) => c.id === e.itemId);
    if (p < 0) continue;
    const me = shown[p].factors;
    if (e.action === 'dismiss') {
      for (const c of shown.slice(p + 1, p + 3)) out.push({ better: c.factors, worse: me, site: e.site, weight: 0.5 });
      continue;
    }
    for (const c of shown.slice(0, p)) out.push({ better: me, worse: c.factors, site: e.site, weight: 1 });
    if (shown[p + 1]) out.push({ better: me, worse: shown[p + 1].factors, site: e.site, weight: 0.5 });
  }
  return out;
}

/** The weights the ranker uses: the sliders times the learned change (global, plus the site's). */
export function learnedWeightsFor(base: Weights, learned: LearnedWeights | undefined, site: string): Weights {
  if (!learned) return base;
  const site_ = learned.sites[siteKey(site)];
  const out = { ...base };
  for (const n of WEIGHT_NAMES) out[n] = base[n] * Math.exp(clampTheta(learned.global[n] + (site_?.[n] ?? 0)));
  return out;
}

function clampTheta(x: number): number {
  return Math.max(-LEARNING.bound, Math.min(LEARNING.bound, Number.isFinite(x) ? x : 0));
}

export function siteKey(site: string): string {
  return site.toLowerCase().replace(/^www\./, '');
}

/** Normalised score, as the ranker computes it (weighted mean of the factors). */
function score(w: Weights, x: FactorScores): number {
  let t = 0;
  let s = 0;
  for (const n of WEIGHT_NAMES) (t += w[n] * x[n]), (s += w[n]);
  return s > 0 ? t / s : 0;
}

/**
 * Fits the change to the sliders `base` from the preference pairs; undefined until there are enough of them.
 * Deterministic (plain gradient descent from zero), bounded, and the change is zero where the pairs say nothing.
 */
export function fitWeights(pairs: PreferencePair[], base: Weights, now = Date.now()): LearnedWeights | undefined {
  if (pairs.length < LEARNING.minPairs) return undefined;
  const bySite = new Map<string, { n: number; weight: number }>();
  for (const p of pairs) {
    const k = siteKey(p.site);
    const got = bySite.get(k) ?? { n: 0, weight: 0 };
    bySite.set(k, { n: got.n + 1, weight: got.weight + p.weight });
  }
  const sites = [...bySite].filter(([s, c]) => s && c.n >= LEARNING.minPairs).map(([s]) => s);
  const g = zero();
  const local = new Map(sites.map((s) => [s, zero()] as const));
  const totalWeight = pairs.reduce((a, p) => a + p.weight, 0);
  for (let it = 0; it < LEARNING.iterations; it++) {
    const gg = zero();
    const gs = new Map(sites.map((s) => [s, zero()] as const));
    for (const p of pairs) {
      const loc = local.get(siteKey(p.site));
      const w = { ...base };
      for (const n of WEIGHT_NAMES) w[n] = base[n] * Math.exp(clampTheta(g[n] + (loc?.[n] ?? 0)));
      const W = WEIGHT_NAMES.reduce((a, n) => a + w[n], 0);
      if (!(W > 0)) continue;
      const sa = score(w, p.better);
      const sb = score(w, p.worse);
      // d/dz log(1 + e^-z) at z = k (sa - sb), times dz/dθ_n = k w_n ((xa_n - sa) - (xb_n - sb)) / W.
      const z = LEARNING.sharpness * (sa - sb);
      const dz = -1 / (1 + Math.exp(z));
      for (const n of WEIGHT_NAMES) {
        const d = (p.weight * dz * LEARNING.sharpness * w[n] * (p.better[n] - sa - (p.worse[n] - sb))) / W;
        gg[n] += d;
        const l = loc && gs.get(siteKey(p.site));
        if (l) l[n] += d;
      }
    }
    for (const n of WEIGHT_NAMES) {
      g[n] = clampTheta(g[n] - (LEARNING.rate * (gg[n] / totalWeight + LEARNING.l2Global * g[n])));
      // A site's change answers to that site's pairs alone (averaged over them), with the stronger pull.
      for (const s of sites) {
        const l = local.get(s)!;
        l[n] = clampTheta(l[n] - LEARNING.rate * (gs.get(s)![n] / bySite.get(s)!.weight + LEARNING.l2Site * l[n]));
      }
    }
  }
  const learned: LearnedWeights = { global: g, sites: {}, pairs: pairs.length, fittedAt: now };
  for (const [s, l] of local) if (WEIGHT_NAMES.some((n) => Math.abs(l[n]) >= LEARNING.noticeable)) learned.sites[s] = l;
  return learned;
}

const LABEL: Record<WeightName, string> = {
  semantic: 'meaning',
  lexical: 'shared words',
  recency: 'recency',
  priority: 'priority',
  continuity: 'what you used this session',
  situation: 'ties to the page or person',
};

/** What was learned, in plain words: "recency counts more on mail.google.com (×2.1)". Empty when nothing was. */
export function describeLearned(learned: LearnedWeights | undefined): string[] {
  if (!learned) return [];
  const out: string[] = [];
  const say = (a: Adjustment, where: string) => {
    for (const n of WEIGHT_NAMES) {
      if (Math.abs(a[n]) < LEARNING.noticeable) continue;
      out.push(`${LABEL[n]} counts ${a[n] > 0 ? 'more' : 'less'} ${where} (×${Math.exp(a[n]).toFixed(1)})`);
    }
  };
  say(learned.global, 'everywhere');
  for (const [s, a] of Object.entries(learned.sites)) {
    const total = zero();
    for (const n of WEIGHT_NAMES) total[n] = clampTheta(learned.global[n] + a[n]) - learned.global[n];
    say(total, `on ${s}`);
  }
  return out;
}

/** The biggest learned change that applies on this site, in plain words, for the trace. */
export function learnedReason(learned: LearnedWeights | undefined, site: string, factor: WeightName): string | undefined {
  if (!learned) return undefined;
  const loc = learned.sites[siteKey(site)];
  const theta = clampTheta(learned.global[factor] + (loc?.[factor] ?? 0));
  if (Math.abs(theta) < LEARNING.noticeable) return undefined;
  return `${LABEL[factor]} counts ${theta > 0 ? 'more' : 'less'} ${loc && Math.abs(loc[factor]) >= LEARNING.noticeable ? `on ${siteKey(site)}` : 'everywhere'}`;
}
