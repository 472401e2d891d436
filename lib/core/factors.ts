/**
 * The ranking factors: each scores an item in [0, 1] for the task at hand, and the ranker adds them up weighted by
 * the options page's sliders. This table is the one place a factor is declared; its computation is in
 * lib/rank/score.ts (`FACTOR_VALUE`, typed so a factor without one does not compile).
 */
const FACTOR_TABLE = {
  semantic: {
    /** Its bar on a card's explanation. */
    label: 'meaning',
    /** Its slider's tooltip on the options page. */
    help: 'Meaning matches (on-device model)',
    /** How the trace says it made a score: "similar in meaning (+0.31)". */
    reason: 'similar in meaning',
    /** How learning speaks of it: "meaning counts more on mail.google.com". */
    learned: 'meaning',
    defaultWeight: 0.45,
    /** Every item has a value for it, so its balance with the others like it decides what is relevant to any task. */
    relevance: true,
  },
  lexical: {
    label: 'words',
    help: 'Same words',
    reason: 'shares words',
    learned: 'shared words',
    defaultWeight: 0.35,
    relevance: true,
  },
  recency: {
    label: 'recency',
    help: 'Newer or recently used',
    reason: 'recent',
    learned: 'recency',
    defaultWeight: 0.03,
    relevance: true,
  },
  priority: {
    label: 'priority',
    help: 'Pinned and emphasised',
    reason: 'pinned or marked important',
    learned: 'priority',
    defaultWeight: 0.06,
    relevance: false,
  },
  continuity: {
    label: 'continuity',
    help: 'Used with what is on screen',
    reason: 'used in this tab',
    learned: 'what you already used in this tab',
    defaultWeight: 0.03,
    relevance: false,
  },
  situation: {
    label: 'situation',
    help: 'This site, person or page',
    reason: 'tied to this page or person',
    learned: 'ties to the page or person',
    defaultWeight: 0.03,
    relevance: false,
  },
} as const satisfies Record<string, FactorInfo>;

export interface FactorInfo {
  label: string;
  help: string;
  reason: string;
  learned: string;
  defaultWeight: number;
  relevance: boolean;
}

export type FactorName = keyof typeof FACTOR_TABLE;
/** Each factor's score (or contribution) for one item. */
export type FactorScores = Record<FactorName, number>;
/** Each factor's weight: the sliders, or the sliders with learning applied. */
export type Weights = Record<FactorName, number>;

export const FACTORS: Readonly<Record<FactorName, FactorInfo>> = FACTOR_TABLE;
/** The factors in the table's order: sums add up in this order, and the sliders are shown in it. */
export const FACTOR_NAMES = Object.keys(FACTOR_TABLE) as readonly FactorName[];

/** A record with one entry per factor. */
export function perFactor<T>(value: (name: FactorName) => T): Record<FactorName, T> {
  const out = {} as Record<FactorName, T>;
  for (const n of FACTOR_NAMES) out[n] = value(n);
  return out;
}

export const DEFAULT_WEIGHTS: Readonly<Weights> = perFactor((n) => FACTORS[n].defaultWeight);

const ZERO_SCORES: Readonly<FactorScores> = perFactor(() => 0);

/**
 * A record of every factor at 0, to fill in. Copied from one record, so the thousands a ranking makes share one shape
 * with every field held in the object (one made field by field keeps the last two apart, another allocation each).
 */
export function newScores(): FactorScores {
  return { ...ZERO_SCORES };
}

/**
 * The weighted mean of the factors (a weight below 0 counts as 0), in [0, 1], and each factor's share of it. Divided
 * by the weights' sum so the relevance threshold means the same whatever the sliders' scale.
 */
export function weighFactors(w: Weights, x: FactorScores): { score: number; contributions: FactorScores } {
  const contributions = newScores();
  let total = 0;
  let wsum = 0;
  for (const n of FACTOR_NAMES) {
    const wn = Math.max(0, w[n] ?? 0);
    contributions[n] = wn * x[n];
    total += contributions[n];
    wsum += wn;
  }
  if (wsum > 0) for (const n of FACTOR_NAMES) contributions[n] /= wsum;
  return { score: wsum > 0 ? total / wsum : 0, contributions };
}
