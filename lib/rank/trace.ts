import { FACTORS, FACTOR_NAMES, type FactorName, type FactorScores } from '../core/factors';
import type { Scored } from './score';
import type { Reason, ScoreNotes, TraceEntry } from './types';
import { displayTitle } from '../core/items';
import { searchText } from '../memory/index/item-text';
import { writtenWords } from '../memory/index/tokenize';

const quoted = (words: string[], n: number): string => {
  let out = '';
  for (let i = 0; i < words.length && i < n; i++) out += (i ? ', "' : '"') + words[i] + '"';
  return out;
};

/** A contribution the explanation names (and so a factor whose words it says). */
const counts = (x: number) => x >= 0.005;

/**
 * What the explanation of `s`'s score needs besides its numbers, read while the item is at hand: the words it
 * matched as its text writes them, and the names of what it is tied to. The rest is shared with the score.
 */
export function scoreNotes(s: Scored): ScoreNotes {
  const matched = s.signal.matched.length > 0;
  const notes: ScoreNotes = { matched, viaNeighbour: s.signal.viaNeighbour, situation: s.situationReasons };
  if (matched && counts(s.contributions.lexical)) notes.words = writtenWords(s.signal.matched, searchText(s.item));
  if (s.continuityReason) notes.continuity = s.continuityReason;
  if (s.threadPlace) notes.threadPlace = s.threadPlace;
  if (s.supersededBy) notes.supersededBy = displayTitle(s.supersededBy);
  return notes;
}

/** The factors that made the score, largest first, in plain words: "similar in meaning 0.31, shares words 0.12". */
export function explainScore(s: Scored): string[] {
  return explainNotes(s.contributions, scoreNotes(s));
}

/** `explainScore` from a score's contributions and notes (a trace entry carries both). */
export function explainNotes(c: FactorScores, n: ScoreNotes): string[] {
  const out: string[] = [];
  // The factors that count, in an insertion sort (stable, as few as six).
  const names: FactorName[] = [];
  for (const f of FACTOR_NAMES) {
    if (!counts(c[f])) continue;
    let i = names.length;
    for (; i > 0 && c[names[i - 1]] < c[f]; i--) names[i] = names[i - 1];
    names[i] = f;
  }
  for (const name of names) {
    let line = `${FACTORS[name].reason} (+${c[name].toFixed(2)})`;
    if (name === 'lexical') {
      if (n.words) line += `: ${quoted(n.words, 6)}`;
      else if (n.viaNeighbour.length) line += `: its thread neighbour matched ${quoted(n.viaNeighbour, 4)}`;
    }
    if (name === 'situation' && n.situation.length) line += `: ${n.situation.join(', ')}`;
    if (name === 'continuity' && n.continuity) line += `: ${n.continuity}`;
    out.push(line);
  }
  if (n.viaNeighbour.length && n.matched) out.push(`its thread neighbour matched ${quoted(n.viaNeighbour, 4)}`);
  if (n.threadPlace) out.push(`the ${ordinal(n.threadPlace)} turn of its conversation in this list (a little less, so other conversations get room)`);
  if (n.supersededBy) out.push(`superseded by “${n.supersededBy}” (a newer decision on the same subject)`);
  return out;
}

/** The score and its explanation in one line, as the trace gives it. */
export function scoreSummary(score: number, why: string[]): string {
  return `Score ${score.toFixed(2)}${why.length ? ': ' + why.join('; ') : ''}`;
}

/** A reason in words. */
export function reasonText(v: Reason): string {
  return typeof v === 'string' ? v : `Did not fit the ${v.budget}-token budget (needs ${v.need}, ${v.left} left)`;
}

/**
 * A trace entry's reason in plain words: what decided (for a selected card, its score says it), then the score and
 * its explanation, then what learning changed.
 */
export function traceReason(e: TraceEntry): string {
  let out = reasonText(e.decided);
  if (e.notes && e.score !== undefined && e.contributions) {
    const summary = scoreSummary(e.score, explainNotes(e.contributions, e.notes));
    out = e.stage === 'selected' ? summary : `${out}. ${summary}`;
  }
  return e.learned ? `${out}. ${e.learned}` : out;
}

function ordinal(n: number): string {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix}`;
}
