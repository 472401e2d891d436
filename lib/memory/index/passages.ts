/**
 * Passages: the parts of a long item that each fit the model's window (256 word pieces), so every part of a long
 * mail, answer or note section gets a vector of its own and a card can show the part that matched. Passages are
 * derived from the item's text on every run (never stored as items); the same text always splits the same way.
 */

import { lastWhere } from '../../core/last-where';

/**
 * The key of passage `k` of an item in the indexes (vectors, BM25 documents): the item's id for its first (its own
 * vector and entry, as before passages), the id and the number after a U+0000 for the others. Ids never hold U+0000
 * (`createItem` drops it, and the index leaves out an item whose id holds one), so no item's key is another's passage.
 */
export function passageKey(id: string, k: number): string {
  return k === 0 ? id : `${id}\u0000${k}`;
}

/** The keys of an item's `n` passages, in passage order. */
export function passageKeys(id: string, n: number): string[] {
  return Array.from({ length: n }, (_, k) => passageKey(id, k));
}

/** The item an index key belongs to (`passageKey` read back). */
export function ownerOf(key: string): string {
  const at = key.indexOf('\u0000');
  return at < 0 ? key : key.slice(0, at);
}

/** The passage number of an index key of item `owner`. */
export function partOf(key: string, owner: string): number {
  return key.length === owner.length ? 0 : Number(key.slice(owner.length + 1));
}

/** A passage as character offsets into the item's text: `text.slice(start, end)`. */
export interface Passage {
  start: number;
  end: number;
}

/**
 * The most word pieces a passage may take, estimated (`pieceCosts`): the window of 256 less [CLS] and [SEP] and about
 * 20 for a title of up to 80 characters put in front of it when it is embedded. The estimate counts a word as one
 * piece per 6 letters (rounded up), each punctuation mark and each Chinese or Japanese character as one; against the
 * real tokenizer it is at or above the true count for 95% of 800-character stretches of this project's docs and of
 * LongMemEval's answers (test/unit/passages.test.ts measures the passages with the real tokenizer).
 */
export const PASSAGE_PIECES = 230;
/** Nor more characters than this (blank runs cost no pieces). */
export const PASSAGE_CHARS = 2000;
/** A passage ends at a boundary no earlier than half its room, so boundaries never make passages tiny. */
const MIN_SHARE = 0.5;
/** How far a passage may reach back into the one before it (about a sentence), so a fact cut by the end is whole in one. */
export const OVERLAP_PIECES = 35;

const WORD_CHAR = /[\p{L}\p{N}]/u;
const ONE_PIECE_CHAR = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;

/**
 * `cost[i]`: estimated word pieces of `text.slice(0, i)`, a word counted once it ends. One pass; a code unit is
 * classified by a regular expression only when it is not plain ASCII.
 */
export function pieceCosts(text: string): Float64Array {
  const cost = new Float64Array(text.length + 1);
  countPieces(text, Infinity, cost);
  return cost;
}

/**
 * Estimated word pieces of the whole text (as `pieceCosts(text)[text.length]`), filling `cost` when given. Without
 * `cost` it stops once the count passes `cap` (any count above it is returned): whether a text fits one passage is
 * asked of every pool item on every ranking, and most fit, so that question allocates nothing.
 */
function countPieces(text: string, cap: number, cost?: Float64Array): number {
  const n = text.length;
  let total = 0;
  let word = 0;
  for (let i = 0; i < n; i++) {
    if (cost) cost[i] = total;
    else if (total > cap) return total;
    const c = text.charCodeAt(i);
    const ascii = c < 128;
    const isWord = ascii ? (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) : WORD_CHAR.test(text[i]);
    if (isWord && (ascii || !ONE_PIECE_CHAR.test(text[i]))) {
      word++;
      continue;
    }
    if (word) total += Math.ceil(word / 6);
    word = 0;
    if (isWord || !(c === 32 || c === 10 || c === 9 || c === 13 || (!ascii && /\s/.test(text[i])))) total += 1;
  }
  if (word) total += Math.ceil(word / 6);
  if (cost) cost[n] = total;
  return total;
}

/** Boundary strengths, strongest last: a passage ends at the strongest boundary inside its window. */
const SPACE = 0;
const SENTENCE = 1;
const LINE = 2;
const PARAGRAPH = 3;
const KINDS = 4;

/**
 * Where the text may be cut, by strength: each list holds offsets (the start of what follows the boundary), ascending.
 * Inside a code fence (``` or ~~~ lines) only the fence's own line ends are boundaries, and weaker than any space
 * outside: a fence that fits a passage stays whole. One pass over the text.
 */
function boundaries(text: string): { cuts: number[][]; inFence: number[] } {
  const cuts: number[][] = Array.from({ length: KINDS }, () => []);
  const inFence: number[] = [];
  let fenced = false;
  let lineStart = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) {
      if (opensFence(text, lineStart, Math.min(i, lineStart + 8))) fenced = !fenced;
      lineStart = i + 1;
      if (fenced) {
        inFence.push(i + 1);
        continue;
      }
      // A blank line ends a paragraph (the cut goes after the whole run of line breaks).
      let j = i + 1;
      while (j < n && (text.charCodeAt(j) === 32 || text.charCodeAt(j) === 9)) j++;
      if (j < n && text.charCodeAt(j) === 10) {
        while (j < n && /\s/.test(text[j])) j++;
        cuts[PARAGRAPH].push(j);
        lineStart = j;
        i = j - 1;
        continue;
      }
      cuts[LINE].push(i + 1);
      continue;
    }
    if (fenced) continue;
    if (c === 32 || c === 9) {
      const p = text.charCodeAt(i - 1);
      // ".", "!", "?" (and a closing quote or bracket after one) before a space end a sentence.
      const q = p === 34 || p === 39 || p === 41 || p === 0x201d ? text.charCodeAt(i - 2) : p;
      cuts[q === 46 || q === 33 || q === 63 ? SENTENCE : SPACE].push(i + 1);
    }
  }
  return { cuts, inFence };
}

/**
 * Whether `text.slice(from, to).trimStart()` starts with ``` or ~~~ (a fence line), without making the slice: asked of
 * every line of every long item split.
 */
function opensFence(text: string, from: number, to: number): boolean {
  let k = from;
  while (k < to && isBlank(text.charCodeAt(k))) k++;
  return to - k >= 3 && (text.startsWith('```', k) || text.startsWith('~~~', k));
}

/** What `trimStart` trims (white space and line ends); ASCII answered without a regular expression. */
function isBlank(c: number): boolean {
  return c < 128 ? c === 32 || (c >= 9 && c <= 13) : /\s/.test(String.fromCharCode(c));
}

/** Moves through one ascending list of offsets as the window moves forward (so the whole split stays linear). */
class Cursor {
  private k = 0;
  constructor(private readonly at: number[]) {}
  /** The last offset in (lo, hi], or -1. Calls must not decrease `hi`. */
  lastIn(lo: number, hi: number): number {
    while (this.k < this.at.length && this.at[this.k] <= hi) this.k++;
    const v = this.k > 0 ? this.at[this.k - 1] : -1;
    return v > lo ? v : -1;
  }
}

/**
 * Splits a text into passages of at most PASSAGE_PIECES estimated word pieces (and PASSAGE_CHARS), each ending at the
 * strongest boundary in the second half of its room (paragraph, line, sentence, space; a hard cut only where there is
 * none, as in a string without spaces), each after the first starting about a sentence (up to OVERLAP_PIECES) before
 * the previous one's end, at a sentence or line start. A text that fits is one passage. Linear in the text's length.
 */
export function splitPassages(text: string): Passage[] {
  const n = text.length;
  // No text costs more pieces than characters: a short one fits without counting (most items).
  if (n <= PASSAGE_PIECES) return [{ start: 0, end: n }];
  if (n <= PASSAGE_CHARS && countPieces(text, PASSAGE_PIECES) <= PASSAGE_PIECES) return [{ start: 0, end: n }];
  const cost = pieceCosts(text);
  const fits = (from: number, to: number) => cost[to] - cost[from] <= PASSAGE_PIECES && to - from <= PASSAGE_CHARS;
  const { cuts, inFence } = boundaries(text);
  const ends = [...cuts.map((c) => new Cursor(c)), new Cursor(inFence)];
  // Where an overlap may start: a sentence, line or paragraph start.
  const startsAt = mergeSorted(cuts[SENTENCE], cuts[LINE], cuts[PARAGRAPH]);
  let si = 0;
  let hi = 0;
  let lo = 0;
  const out: Passage[] = [];
  let start = 0;
  while (start < n) {
    if (fits(start, n)) {
      out.push({ start, end: n });
      break;
    }
    // The room: up to `hi` (the last offset that fits); a boundary counts from `lo` (half the room) on. Both tests
    // hold up to a point and fail after it (costs only grow), so each end is found by halving, not by stepping.
    hi = lastWhere(hi, n, (x) => fits(start, x));
    const from = Math.max(lo, start, out.length ? out[out.length - 1].end : 0); // each passage reaches past the last
    const short = (x: number) => x < from || (cost[x] - cost[start] < PASSAGE_PIECES * MIN_SHARE && x - start < PASSAGE_CHARS * MIN_SHARE);
    lo = from < hi ? Math.min(hi, 1 + lastWhere(from - 1, hi, short)) : from;
    let end = -1;
    let kind = KINDS;
    // Strongest first in the second half of the room; failing that, a shorter passage rather than a cut inside a
    // code fence; a line end inside a fence only when the fence itself is longer than a passage.
    for (const k of [PARAGRAPH, LINE, SENTENCE, SPACE]) if (end < 0) end = ends[(kind = k)].lastIn(lo, hi);
    for (const k of [PARAGRAPH, LINE, SENTENCE, SPACE]) if (end < 0) end = ends[(kind = k)].lastIn(start, hi);
    if (end < 0) end = ends[(kind = KINDS)].lastIn(start, hi);
    if (end < 0) end = Math.max(hi, start + 1);
    out.push({ start, end: trimEnd(text, start, end) });
    // The next passage reaches back to the first sentence start within the overlap, never to this one's start; after
    // a paragraph's end it starts afresh (a paragraph is whole in the passage before).
    while (si < startsAt.length && cost[end] - cost[startsAt[si]] > OVERLAP_PIECES) si++;
    const back = kind !== PARAGRAPH && si < startsAt.length && startsAt[si] < end && startsAt[si] > start ? startsAt[si] : end;
    start = back;
  }
  return out;
}

/** Ends a passage before the blank characters at its boundary. */
function trimEnd(text: string, start: number, end: number): number {
  while (end > start + 1 && /\s/.test(text[end - 1])) end--;
  return end;
}

function mergeSorted(...lists: number[][]): number[] {
  return lists.flat().sort((a, b) => a - b);
}

/** What is put between passages that do not follow each other in the item. */
export const PASSAGE_GAP = '\n…\n';

/**
 * The chosen passages of a text as one excerpt, in their order within the text: passages that touch or overlap are
 * joined into one stretch, stretches apart are joined with "…", and "…" marks a start or an end cut off. No choice,
 * or every passage, is the whole text.
 */
export function excerpt(text: string, passages: readonly Passage[], chosen: readonly number[] | undefined): string {
  const picked = [...new Set(chosen ?? [])].filter((k) => Number.isInteger(k) && k >= 0 && k < passages.length).sort((a, b) => a - b);
  if (!picked.length || picked.length === passages.length) return text;
  const spans: Passage[] = [];
  for (const k of picked) {
    const p = passages[k];
    const last = spans[spans.length - 1];
    if (last && p.start <= last.end + 1) last.end = Math.max(last.end, p.end);
    else spans.push({ ...p });
  }
  const body = spans.map((s) => text.slice(s.start, s.end).trim()).join(PASSAGE_GAP);
  // Inline marks at the ends, so a card clamped to two lines starts with words, not with a line of its own.
  const head = spans[0].start > 0 ? '… ' : '';
  const tail = spans[spans.length - 1].end < text.trimEnd().length ? ' …' : '';
  return head + body + tail;
}
