import { siteKey } from '../core/hosts';
import { FACTORS, FACTOR_NAMES, perFactor, type FactorName, type Weights } from '../core/factors';
import { LEARNING, clampTheta, keepWithinBudget } from './learning-bounds';
import type { PreferencePair } from './fit-weights';
import type { Adjustment, FeedbackEvent, LearnedWeights } from './types';

/**
 * Learning from feedback, from what the user did to the weights the ranker uses: the preferences read from feedback
 * (here), the fit (lib/learn/fit-weights.ts) within the bounds of lib/learn/learning-bounds.ts, and the learned
 * weights applied and told in words (here).
 */
export { LEARNING } from './learning-bounds';
export { fitWeights, type PreferencePair } from './fit-weights';

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
