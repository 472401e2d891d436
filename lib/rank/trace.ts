import { FACTORS, FACTOR_NAMES, type FactorName } from '../core/factors';
import type { Scored } from './score';
import { displayTitle } from '../core/items';
import { searchText } from '../memory/index/item-text';
import { writtenWords } from '../memory/index/tokenize';

const quoted = (words: string[], n: number): string => {
  let out = '';
  for (let i = 0; i < words.length && i < n; i++) out += (i ? ', "' : '"') + words[i] + '"';
  return out;
};

/** The factors that made the score, largest first, in plain words: "similar in meaning 0.31, shares words 0.12". */
export function explainScore(s: Scored): string[] {
  const out: string[] = [];
  // Called for every traced candidate: the factors that count, in an insertion sort (stable, as few as six).
  const c = s.contributions;
  const names: FactorName[] = [];
  for (const n of FACTOR_NAMES) {
    if (!(c[n] >= 0.005)) continue;
    let i = names.length;
    for (; i > 0 && c[names[i - 1]] < c[n]; i--) names[i] = names[i - 1];
    names[i] = n;
  }
  for (const name of names) {
    let line = `${FACTORS[name].reason} (+${c[name].toFixed(2)})`;
    if (name === 'lexical') {
      if (s.signal.matched.length) line += `: ${quoted(writtenWords(s.signal.matched, searchText(s.item)), 6)}`;
      else if (s.signal.viaNeighbour.length) line += `: its thread neighbour matched ${quoted(s.signal.viaNeighbour, 4)}`;
    }
    if (name === 'situation' && s.situationReasons.length) line += `: ${s.situationReasons.join(', ')}`;
    if (name === 'continuity' && s.continuityReason) line += `: ${s.continuityReason}`;
    out.push(line);
  }
  if (s.signal.viaNeighbour.length && s.signal.matched.length) out.push(`its thread neighbour matched ${quoted(s.signal.viaNeighbour, 4)}`);
  if (s.threadPlace) out.push(`the ${ordinal(s.threadPlace)} turn of its conversation in this list (a little less, so other conversations get room)`);
  if (s.supersededBy) out.push(`superseded by “${displayTitle(s.supersededBy)}” (a newer decision on the same subject)`);
  return out;
}

/** The score and its explanation (`why`, when the caller has it already) in one line, as the trace gives it. */
export function scoreSummary(s: Scored, why: string[] = explainScore(s)): string {
  return `Score ${s.score.toFixed(2)}${why.length ? ': ' + why.join('; ') : ''}`;
}

function ordinal(n: number): string {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix}`;
}
