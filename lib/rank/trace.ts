import type { FactorScores, WeightName } from './types';
import { WEIGHT_NAMES } from './types';
import type { Scored } from './score';

const LABEL: Record<WeightName, string> = {
  semantic: 'similar in meaning',
  lexical: 'shares words',
  recency: 'recent',
  priority: 'pinned or starred',
  continuity: 'used this session',
  situation: 'tied to this page or person',
};

/** The factors that made the score, largest first, in plain words: "similar in meaning 0.31, shares words 0.12". */
export function explainScore(s: Scored): string[] {
  const out: string[] = [];
  // Called for every traced candidate: a plain loop and one small sort rather than map/filter chains.
  const parts: [WeightName, number][] = [];
  for (const n of WEIGHT_NAMES) if (s.contributions[n] >= 0.005) parts.push([n, s.contributions[n]]);
  if (parts.length > 1) parts.sort((a, b) => b[1] - a[1]);
  for (const [name, c] of parts) {
    let line = `${LABEL[name]} (+${c.toFixed(2)})`;
    if (name === 'lexical') {
      const words = s.signal.matched.slice(0, 6);
      if (words.length) line += `: ${words.map((w) => `"${w}"`).join(', ')}`;
      else if (s.signal.viaNeighbour.length) line += `: its thread neighbour matched ${s.signal.viaNeighbour.slice(0, 4).map((w) => `"${w}"`).join(', ')}`;
    }
    if (name === 'situation' && s.situationReasons.length) line += `: ${s.situationReasons.join(', ')}`;
    if (name === 'continuity' && s.continuityReason) line += `: ${s.continuityReason}`;
    out.push(line);
  }
  if (s.signal.viaNeighbour.length && s.signal.matched.length)
    out.push(`its thread neighbour matched ${s.signal.viaNeighbour.slice(0, 4).map((w) => `"${w}"`).join(', ')}`);
  return out;
}

export function scoreSummary(s: Scored): string {
  const why = explainScore(s);
  return `Score ${s.score.toFixed(2)}${why.length ? ': ' + why.join('; ') : ''}`;
}

export function zeroFactors(): FactorScores {
  return { semantic: 0, lexical: 0, recency: 0, priority: 0, continuity: 0, situation: 0 };
}
