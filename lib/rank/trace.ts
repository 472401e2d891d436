import { FACTORS, FACTOR_NAMES, type FactorName, type FactorScores } from '../core/factors';
import type { Scored } from './score';
import type { MemoryItem } from '../memory/types';
import type { Reason, ScoreNotes, TraceEntry } from './types';
import { displayTitle } from '../core/items';
import { outOfScopeText } from './scope';
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
 * What the explanation of `s`'s score needs besides its numbers: the terms it matched, the names of what it is tied
 * to, and (`withWords`, for a card) the matched terms as its text writes them.
 */
export function scoreNotes(s: Scored, withWords: boolean): ScoreNotes {
  const notes: ScoreNotes = { viaNeighbour: s.signal.viaNeighbour, situation: s.situationReasons };
  if (s.signal.matched.length) notes.terms = s.signal.matched;
  if (withWords && wordsCount(s.contributions, notes)) notes.words = writtenTerms(s.signal.matched, s.item);
  if (s.continuityReason) notes.continuity = s.continuityReason;
  if (s.threadPlace) notes.threadPlace = s.threadPlace;
  if (s.supersededBy) notes.supersededBy = displayTitle(s.supersededBy);
  return notes;
}

/** Whether the explanation names the words matched: it did match some, and shared words count in the score. */
const wordsCount = (c: FactorScores, n: ScoreNotes) => !!n.terms?.length && counts(c.lexical);

/**
 * Whether a trace entry's words are still to be read from its item's text: reading them for every traced
 * candidate cost about a sixth of a ranking, and the panel shows a few (the worker's `trace:words`).
 */
export function needsWords(e: TraceEntry): boolean {
  return !!e.notes && !e.notes.words && !!e.contributions && wordsCount(e.contributions, e.notes);
}

/** Matched terms as the item's text writes them (as they are, for an item no longer there). */
export function writtenTerms(terms: readonly string[], item: MemoryItem | undefined): string[] {
  return item ? writtenWords(terms, searchText(item)) : [...new Set(terms)];
}

/** The entry with its words (as `writtenTerms` gave them). */
export function withWords(e: TraceEntry, words: string[]): TraceEntry {
  return e.notes ? { ...e, notes: { ...e.notes, words } } : e;
}

/** The factors that made the score, largest first, in plain words: "similar in meaning 0.31, shares words 0.12". */
export function explainScore(s: Scored): string[] {
  return explainNotes(s.contributions, scoreNotes(s, true));
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
      // Until its words are read, an entry names the terms as the index keeps them (`needsWords`).
      if (n.terms?.length) line += `: ${quoted(n.words ?? n.terms, 6)}`;
      else if (n.viaNeighbour.length) line += `: its thread neighbour matched ${quoted(n.viaNeighbour, 4)}`;
    }
    if (name === 'situation' && n.situation.length) line += `: ${n.situation.join(', ')}`;
    if (name === 'continuity' && n.continuity) line += `: ${n.continuity}`;
    out.push(line);
  }
  if (n.viaNeighbour.length && n.terms?.length) out.push(`its thread neighbour matched ${quoted(n.viaNeighbour, 4)}`);
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
  if (typeof v === 'string') return v;
  if ('onlyFor' in v) return `Only for ${v.onlyFor.join(', ')}`;
  if ('outOfScope' in v) return outOfScopeText(v);
  return `Did not fit the ${v.budget}-token budget (needs ${v.need}, ${v.left} left)`;
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
