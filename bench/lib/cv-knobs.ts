/**
 * The ranker's tuned constants that the retrieval benchmarks can see, each with a small grid around today's value,
 * and how a choice of values reaches the ranker: through the `tuning` argument of `scoreMemory`, the request's
 * settings (the factor weights' defaults) and the word index's scoring options. The product's defaults are read,
 * never changed.
 */
import { TUNING, type Tuning } from '../../lib/rank/tuning';
import { DEFAULT_SETTINGS } from '../../lib/settings/defaults';
import { RANK_LEXICAL, type LexicalIndexOptions } from '../../lib/memory/index/lexical-index';
import type { RankSettings } from '../../lib/rank/types';
import type { Choice, Knob, KnobValue } from './cv-folds';

type Where = 'tuning' | 'weights' | 'lexical';

interface Spec {
  where: Where;
  key: string;
  grid: KnobValue[];
}

const t = (key: keyof Tuning, grid: KnobValue[]): Spec => ({ where: 'tuning', key, grid });

/**
 * In the order the coordinate search visits them: the balance of the two signals and their scale first, then thread
 * context, then the query's extra terms, then limits. Grids are coarse (3-4 values); each must hold today's value.
 */
const SPECS: Spec[] = [
  { where: 'weights', key: 'lexical', grid: [0.25, 0.35, 0.45] },
  t('cosLow', [0.05, 0.1, 0.15, 0.2]),
  t('cosHigh', [0.6, 0.7, 0.8]),
  t('contextShare', [0.3, 0.5, 0.7]),
  t('neighbourLexical', [0.3, 0.5, 0.7]),
  t('neighbourSemantic', [0.1, 0.2, 0.3]),
  t('replyBoost', [0.5, 1, 1.5]),
  t('replyBoostSemantic', [0, 0.25, 0.5]),
  t('window', [2, 3, 4]),
  t('window2', [0.4, 0.6, 0.8]),
  t('semanticWindow', [false, true]),
  t('echo', [0.6, 0.8, 1]),
  t('standalone', [50, 75, 100]),
  t('threadFree', [1, 2, 3]),
  t('threadFreeShare', [0.1, 0.2, 0.3]),
  t('threadSpread', [0.05, 0.1, 0.2]),
  t('personWeight', [0.25, 0.5, 0.75]),
  t('personFocus', [0.15, 0.3, 0.45]),
  t('dateWeight', [0.5, 1, 1.5]),
  t('timeWeight', [0.25, 0.5, 1]),
  t('phraseWeight', [0.5, 1, 1.5]),
  t('tellingFloor', [0.25, 0.5, 0.75]),
  t('prfTerms', [0, 3, 6]),
  { where: 'lexical', key: 'b', grid: [0.2, 0.3, 0.45] },
  { where: 'lexical', key: 'k1', grid: [0.9, 1.2, 1.5] },
  { where: 'weights', key: 'recency', grid: [0.01, 0.03, 0.06] },
  t('pool', [40, 80, 160]),
  t('lexicalLimit', [150, 300, 600]),
];

/**
 * Tuned numbers left out, and why: they do not move the full ranked order these benchmarks read, or have no
 * override path short of editing the module.
 */
export const NOT_VARIED: [string, string][] = [
  ['instructionShare, conditionCos, situationCap, childCap, duplicateSim, redundancy, knapsackSize, shortCard', 'card selection and rules only (rankMemory), not the scored order; LoCoMo and LongMemEval hold no rules'],
  ['prfDocs, prfWeight', 'read only when prfTerms > 0 (off today); prfTerms is varied'],
  ['weights.semantic', 'the lexical weight is varied against it (only their ratio moves the order of the two signals)'],
  ['weights.priority, continuity, situation; halfLifeDays', 'the benches have no pinned, used or page-tied items; recency is varied by its weight'],
  ['RANK_LEXICAL longAfter, bLong, geometric', 'only items past 3 × the typical length feel them'],
  ['query.ts: SHORT_ASK_TERMS, ASK_CHARS, text weights 0.6 / 0.4 / 0.25', 'the benches\' asks are short and have no surroundings'],
];

function today(s: Spec): KnobValue {
  const from = s.where === 'tuning' ? TUNING : s.where === 'weights' ? DEFAULT_SETTINGS.weights : RANK_LEXICAL;
  const v = (from as unknown as Record<string, KnobValue | undefined>)[s.key];
  if (v === undefined) throw new Error(`no default for ${s.where}.${s.key}`);
  return v;
}

const nameOf = (s: Spec) => (s.where === 'tuning' ? s.key : `${s.where}.${s.key}`);

export const KNOBS: Knob[] = SPECS.map((s) => {
  const v = today(s);
  if (!s.grid.includes(v)) throw new Error(`${nameOf(s)}: today's value ${v} is not in its grid ${s.grid.join(', ')}`);
  return { name: nameOf(s), today: v, grid: s.grid };
});

/** What the ranker is given for a choice: the tuning argument, the settings and the word index's options. */
export interface Applied {
  tuning: Tuning;
  settings: RankSettings;
  lexical: LexicalIndexOptions;
}

export function applyChoice(choice: Choice): Applied {
  const tuning: Record<string, KnobValue> = { ...TUNING };
  const weights: Record<string, number> = { ...DEFAULT_SETTINGS.weights };
  const lexical: Record<string, KnobValue> = { ...RANK_LEXICAL };
  for (const s of SPECS) {
    const v = choice[nameOf(s)];
    if (v === undefined) continue;
    if (s.where === 'tuning') tuning[s.key] = v;
    else if (s.where === 'weights') weights[s.key] = Number(v);
    else lexical[s.key] = v;
  }
  return {
    tuning: tuning as unknown as Tuning,
    settings: { ...DEFAULT_SETTINGS, weights: weights as unknown as RankSettings['weights'] },
    lexical: lexical as LexicalIndexOptions,
  };
}
