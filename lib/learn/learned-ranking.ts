import { displayTitle } from '../core/items';
import { FACTOR_NAMES, weighFactors, type FactorName, type FactorScores, type Weights } from '../core/factors';
import { rankMemory } from '../rank/rank';
import type { RankRequest, RankResult, RankSettings } from '../rank/types';
import { learnedReason, learnedWeightsFor } from './learner';
import type { LearnedWeights } from './types';

/** The settings to rank with on this site: the sliders times what feedback taught (the sliders alone without it). */
export function learnedSettings(settings: RankSettings, learned: LearnedWeights | undefined, site: string): RankSettings {
  return learned ? { ...settings, weights: learnedWeightsFor(settings.weights, learned, site) } : settings;
}

/**
 * The ranker with learning applied: it ranks with the learned weights, and a card a learned weight put above the
 * next one says so on the card and in the trace.
 */
export async function rankLearned(req: RankRequest & { learned?: LearnedWeights }): Promise<RankResult> {
  const { learned, ...request } = req;
  const settings = learnedSettings(request.settings, learned, request.task.site);
  const result = await rankMemory({ ...request, settings });
  // The weights ranked with are the learned ones: computed once per ranking.
  if (learned) markLearnedOrder(result, request.settings.weights, learned, request.task.site, settings.weights);
  return result;
}

const weightedScore = (w: Weights, x: FactorScores): number => weighFactors(w, x).score;

/**
 * Says where a learned weight decided the order: a card above the next one that the sliders (`base`) alone would
 * have put below it, and the learned change that made the difference, on the card and in its trace entry.
 */
export function markLearnedOrder(
  result: RankResult,
  base: Weights,
  learned: LearnedWeights,
  site: string,
  weights: Weights = learnedWeightsFor(base, learned, site),
): void {
  const cards = result.cards;
  const noted = new Map<string, string>();
  for (let i = 0; i + 1 < cards.length; i++) {
    const a = cards[i];
    const b = cards[i + 1];
    if (a.item.pinned || b.item.pinned || weightedScore(base, a.factors) >= weightedScore(base, b.factors)) continue;
    if (weightedScore(weights, a.factors) < weightedScore(weights, b.factors)) continue;
    // The factor whose learned change favoured this card most.
    let best: FactorName | undefined;
    let gain = 0;
    for (const n of FACTOR_NAMES) {
      const g = (weights[n] - base[n]) * (a.factors[n] - b.factors[n]);
      if (g > gain) {
        gain = g;
        best = n;
      }
    }
    const why = best && learnedReason(learned, base, site, best);
    if (!why) continue;
    a.learned = `Learned from your feedback: ${why}, so it is above “${displayTitle(b.item, 40)}”`;
    a.why.push(a.learned);
    noted.set(a.item.id, a.learned);
  }
  for (const e of result.trace) {
    const note = noted.get(e.id);
    if (note) e.learned = note;
  }
}
