import type { LexicalHit, MemoryView } from '../memory/index/memory-view';
import { excerpt, type Passage } from '../memory/index/passages';
import type { MemoryItem } from '../memory/types';
import { countTokensUpTo } from '../memory/tokens';
import type { Weights } from './types';
import type { Tuning } from './tuning';

/**
 * A passage is shown with the best one when its relevance is at least this share of the best's: a second part that
 * answers the task about as well is worth the reader's time, a part that merely shares a word is not.
 */
export const PASSAGE_KEEP = 0.75;
/** At most this many passages of one item are shown (about 700 word pieces: what a card can show and a reader take in). */
export const MAX_PASSAGES = 3;

/** The passages of a long item that matched the task, best first, and the tokens they take as the card shows them. */
export interface PassageChoice {
  /** Passage numbers (0-based, in the item's split), most relevant first. */
  passages: number[];
  /** How many passages the item has. */
  of: number;
  /**
   * Each passage's relevance to the task (meaning and words fused as for the choice, in [0, 1]), in passage order:
   * the package spends budget left over after the cards' best passages on the next most relevant ones.
   */
  relevance?: number[];
  /** Tokens of the excerpt the card shows (`excerpt` of these passages). */
  tokens: number;
}

/**
 * Which passages of an item of several passages matched: each passage's meaning (its vector's cosine with the task)
 * and words (its BM25 document's score, against the item's best) fused with the user's weights, as items are.
 * Undefined for an item of one passage (the card shows it whole, as before passages).
 */
export function choosePassages(
  memory: MemoryView,
  id: string,
  hit: LexicalHit | undefined,
  qvs: Float32Array[],
  qw: number[],
  weights: Weights,
  t: Pick<Tuning, 'cosLow' | 'cosHigh'>,
): PassageChoice | undefined {
  const passages = memory.passages(id);
  if (passages.length < 2) return undefined;
  const cos = qvs.length ? memory.passageScores(id, qvs, qw) : [];
  const lex = new Array<number>(passages.length).fill(0);
  const bestLex = Math.max(0, ...(hit?.passages ?? []).map((p) => p.score));
  for (const p of hit?.passages ?? []) if (p.part < lex.length) lex[p.part] = bestLex ? p.score / bestLex : 0;
  const ws = cos.length ? weights.semantic || 0 : 0;
  const wl = weights.lexical || 0;
  const fused = passages.map((_, k) => {
    const sem = cos.length ? Math.min(1, Math.max(0, ((cos[k] ?? 0) - t.cosLow) / (t.cosHigh - t.cosLow))) : 0;
    return ws + wl > 0 ? (ws * sem + wl * lex[k]) / (ws + wl) : (sem + lex[k]) / 2;
  });
  const order = passages.map((_, k) => k).sort((a, b) => fused[b] - fused[a] || a - b);
  const best = fused[order[0]];
  // Nothing points anywhere (no vectors, no words matched): the item's start, as a card showed before passages.
  const chosen = best > 0 ? order.filter((k) => fused[k] >= PASSAGE_KEEP * best).slice(0, MAX_PASSAGES) : [0];
  // Counted when selection first asks (it reaches a few of the pool), then kept: most pool items are never weighed
  // against the budget, and counting a long excerpt costs more than choosing it. An own enumerable property, so the
  // card carries the count wherever it is copied.
  const item = memory.get(id)!;
  let tokens: number | undefined;
  const choice: PassageChoice = {
    passages: chosen,
    of: passages.length,
    relevance: fused.map((x) => Math.round(x * 1000) / 1000),
    get tokens() {
      return (tokens ??= excerptTokens(item, passages, chosen)!);
    },
  };
  sources.set(choice, { item, passages });
  return choice;
}

/** What a choice was made of, for `passageTokensWithin` (the choice itself stays plain data, copied to the panel). */
const sources = new WeakMap<PassageChoice, { item: MemoryItem; passages: readonly Passage[] }>();

/**
 * The choice's tokens when they are at most `limit`, else undefined, counting no further than the limit: whether a
 * long excerpt fits the room left is asked of many candidates once the budget is nearly full, and most do not.
 */
export function passageTokensWithin(choice: PassageChoice, limit: number): number | undefined {
  const src = sources.get(choice);
  if (src) return excerptTokens(src.item, src.passages, choice.passages, limit);
  return choice.tokens <= limit ? choice.tokens : undefined;
}

/**
 * Token counts of the excerpts last counted, per item (an edit makes a new item) and choice of passages: the panel
 * ranks the same task again at each pause in typing, and the same long items come back with the same passages.
 */
const counted = new WeakMap<MemoryItem, Map<string, number>>();

/** The excerpt's tokens when they are at most `limit` (any, without one), else undefined; counts are kept. */
function excerptTokens(item: MemoryItem, passages: readonly Passage[], chosen: number[], limit = Infinity): number | undefined {
  let byChoice = counted.get(item);
  if (!byChoice) counted.set(item, (byChoice = new Map()));
  const key = chosen.join(',');
  let n = byChoice.get(key);
  if (n === undefined) {
    const shown = excerpt(item.text, passages, chosen);
    // Every passage chosen shows the whole text, whose count the item already carries (as `itemCardTokens` reads it).
    n = shown === item.text && item.tokens ? item.tokens : countTokensUpTo(shown, limit);
    if (n === undefined) return undefined;
    // A few choices per item are worth keeping; an item met by many different tasks starts again.
    if (byChoice.size >= 8) byChoice.clear();
    byChoice.set(key, n);
  }
  return n <= limit ? n : undefined;
}
