import type { Weights } from './types';
import type { LexicalHit, LexicalSearcher, MemoryView } from '../memory/index/memory-view';
import type { QueryPlan } from './query';
import type { Tuning } from './tuning';
import { PERSON_PREFIX, DATE_PREFIX } from '../memory/index/tokenize';
import { kthLargest } from '../core/kth-largest';
import { choosePassages, type PassageChoice } from './passage-choice';
import { lexicalPass, type LexicalPass } from './lexical-pass';
import { threadCosines, threadLexical, type ThreadPlaces } from './thread-signals';

/** What retrieval knows of one candidate before it is loaded: its two relevance signals in [0, 1]. */
export interface Signal {
  id: string;
  semantic: number;
  lexical: number;
  /** Query terms the item itself matched. */
  matched: string[];
  /** Terms only a thread neighbour matched (the item is the reply to / context of a match). */
  viaNeighbour: string[];
  /** Query-expansion terms (pseudo-relevance feedback) the item matched. */
  expanded: string[];
  /** semantic and lexical fused (weighted by the user's weights): the order candidates are hydrated in. */
  fused: number;
  /** An item of several passages in the pool: the passages that matched (what its card shows, inserts and packs). */
  passages?: PassageChoice;
}

export interface Retrieval {
  /** Every candidate's signals, in the order candidates were found (made when first read: see `SignalTable`). */
  signals: ReadonlyMap<string, Signal>;
  /** The top `pool` ids by fused relevance. */
  pool: string[];
  /** Terms added by pseudo-relevance feedback. */
  expansion: string[];
  /** The BM25 hit of each item the lexical pass matched (its passages among them). */
  lexical: Map<string, LexicalHit>;
}

function clamp01(x: number): number {
  return x < 0 ? 0 : x > 1 ? 1 : x;
}

/** Cosine of every stored vector with the (weighted) query vectors. */
function densePass(memory: MemoryView, qvs: Float32Array[], qw: number[], t: Tuning): Map<string, number> {
  if (!qvs.length) return new Map();
  // The store scores everything in one typed-array pass and hands back the best few thousand (items further down
  // sit below cosLow and score 0 anyway). See MemoryView.denseScores.
  return memory.denseScores(qvs, qw, Math.max(2000, 10 * t.pool));
}

/**
 * Items read in their thread context: the cosine with the item's context vector (the turn before it and the item,
 * embedded together) takes `share` of the item's dense score. A reply that only makes sense after its question
 * is found by what it answers.
 */
function mixContext(memory: MemoryView, dense: Map<string, number>, qvs: Float32Array[], qw: number[], share: number): void {
  if (!qvs.length) return;
  for (const [id, c] of memory.contextScores(dense.keys(), qvs, qw)) dense.set(id, (1 - share) * dense.get(id)! + share * c);
}

/**
 * The items worth a signal: every one whose fused relevance can be above zero, and no others (so the work per query
 * follows the matches, not the memory's size). That is the lexical hits and the items within the thread window of
 * one (they inherit lexical evidence), the items whose dense score clears `cosLow` and their neighbours (who inherit
 * a share of it); any other item scores 0 on both signals. If that leaves fewer than a pool, the best-scored dense
 * items fill it, as before.
 */
function candidates(dense: Map<string, number>, lexHits: LexicalHit[], index: LexicalSearcher, t: Tuning): CandidateSlots {
  const ids: string[] = [];
  const slots: number[] = [];
  const at = new Map<string, number>();
  // Each candidate's place in the order found; its document's slot is looked up once, for every question below.
  const add = (id: string): number => {
    let i = at.get(id);
    if (i === undefined) {
      at.set(id, (i = ids.length));
      ids.push(id);
      slots.push(index.docSlot(id));
    }
    return i;
  };
  const around = (i: number, reach: number) => {
    const slot = slots[i];
    if (!index.neighbourAt(slot, 0)) return; // not in a thread
    for (let k = 1; k <= reach; k++) {
      const p = index.neighbourAt(slot, -k);
      const n = index.neighbourAt(slot, k);
      if (p) add(p);
      if (n) add(n);
    }
  };
  dense.forEach((d, id) => {
    if (d > t.cosLow) {
      const i = add(id);
      if (t.neighbourSemantic > 0) around(i, t.semanticWindow ? t.window : 1);
    }
  });
  // Lexical hits, and their neighbours: a reply is often the answer to the matching turn.
  for (const h of lexHits) {
    const i = add(h.id);
    if (t.neighbourLexical > 0) around(i, t.window2 > 0 ? Math.max(1, t.window) : 1);
  }
  if (ids.length < t.pool)
    for (const id of dense.keys()) {
      add(id);
      if (ids.length >= t.pool) break;
    }
  return { ids, slots, at };
}

/** The items worth a signal, in the order found, and each one's place in that order. */
export interface CandidateSlots {
  ids: string[];
  /** Each one's document slot in the word index (`LexicalSearcher.docSlot`). */
  slots: number[];
  at: Map<string, number>;
}

/**
 * Ids of the best `k` candidates by fused relevance, best first, ties in candidate order: the first `k` of a stable
 * sort of all of them, from a quickselect cut and a sort of the few above it.
 */
function topFused(ids: string[], fused: Float64Array, k: number): string[] {
  const n = ids.length;
  let head: number[] = [];
  if (n > k) {
    const cut = kthLargest(fused.slice(), k);
    // A NaN would make the cut meaningless; the plain sort then decides as before.
    if (!Number.isNaN(cut) && !fused.some(Number.isNaN)) for (let i = 0; i < n; i++) if (fused[i] >= cut) head.push(i);
  }
  if (!head.length) head = Array.from({ length: n }, (_, i) => i);
  // Candidate order going in and a stable sort: equal scores keep it.
  head.sort((a, b) => fused[b] - fused[a]);
  const out = new Array<string>(Math.min(k, head.length));
  for (let i = 0; i < out.length; i++) out[i] = ids[head[i]];
  return out;
}

/** Hybrid retrieval: every item's two relevance signals, with its thread's, and the pool to hydrate. */
export function retrieve(
  memory: MemoryView,
  plan: QueryPlan,
  qvs: Float32Array[],
  qw: number[],
  weights: Weights,
  t: Tuning,
): Retrieval {
  const dense = densePass(memory, qvs, qw, t);
  if (t.contextShare > 0) mixContext(memory, dense, qvs, qw, t.contextShare);
  const index = memory.lexicalIndex;
  const lexical = lexicalPass(index, plan, t);
  const found = candidates(dense, lexical.hits, index, t);
  const signals = signalsOf(found, { index, dense, lexical, plan, weights, t }, memory);
  const pool = topFused(found.ids, signals.fused, t.pool);
  return { signals, pool, expansion: lexical.expansion, lexical: lexical.byId };
}

/** The matching passages of each long item of the pool (`Signal.passages`), once the pool is hydrated (they read its text). */
export function choosePoolPassages(memory: MemoryView, r: Retrieval, qvs: Float32Array[], qw: number[], weights: Weights, t: Tuning): void {
  for (const id of r.pool) {
    const choice = choosePassages(memory, id, r.lexical.get(id), qvs, qw, weights, t);
    if (choice) r.signals.get(id)!.passages = choice;
  }
}

/** What scoring a candidate reads. */
export interface SignalInputs {
  index: LexicalSearcher;
  dense: Map<string, number>;
  lexical: LexicalPass;
  plan: QueryPlan;
  weights: Weights;
  t: Tuning;
}

/**
 * Each candidate's signals: its own evidence with its thread's, normalised, discounted when off the named person. The
 * numbers are worked out for every candidate (the pool is chosen by them); a `Signal`, with the words it matched, is
 * made only for the candidates read after that (the hydrated ones: a few hundred of up to thousands).
 */
function signalsOf(found: CandidateSlots, x: SignalInputs, memory: MemoryView): SignalTable {
  const { index, lexical, t } = x;
  const { ids, slots } = found;
  const n = ids.length;
  // Most items are in no thread: they have no neighbours, and every neighbour term is 0 for them.
  const prev = new Array<string | undefined>(n);
  const next = new Array<string | undefined>(n);
  const inThread = new Uint8Array(n);
  for (let i = 0; i < n; i++)
    if (index.threadedAt(slots[i])) {
      inThread[i] = 1;
      prev[i] = index.neighbourAt(slots[i], -1);
      next[i] = index.neighbourAt(slots[i], 1);
    }
  const places: ThreadPlaces = { inThread, prevs: prev, nexts: next };
  const ctxLex = threadLexical(found, places, x, memory);
  let maxLex = 0;
  for (const v of ctxLex) if (v > maxLex) maxLex = v;
  // Scale by the best candidate, but never above what an ideal match would score: a weak best match stays weak
  // (so the empty state can show), a strong field keeps its spread (no clamping at 1).
  const lexScale = Math.max(maxLex, lexical.ideal) || 1;
  // Meaning is scaled the same way: by the best candidate's cosine where that is above `cosHigh`, so the strongest
  // matches keep their order instead of all reading 1, and a weak field stays weak.
  const cosines = threadCosines(found, places, x);
  let maxCos = 0;
  for (const c of cosines) if (c > maxCos) maxCos = c;
  const cosScale = Math.max(maxCos, t.cosHigh) - t.cosLow;
  const named = namedPeople(x);
  // An ask that names someone in memory is about them: items neither by nor about them are discounted.
  const holds = named.length ? index.holdingAny(named) : undefined;
  const ws = x.weights.semantic || 0;
  const wl = x.weights.lexical || 0;
  const semantic = new Float64Array(n);
  const lexicalOf = new Float64Array(n);
  const fused = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let lex = clamp01(ctxLex[i] / lexScale);
    let sem = x.dense.size ? clamp01((cosines[i] - t.cosLow) / cosScale) : 0;
    const focus = holds && !holds(slots[i]) ? 1 - t.personFocus : 1;
    sem *= focus;
    lex *= focus;
    semantic[i] = sem;
    lexicalOf[i] = lex;
    fused[i] = ws + wl > 0 ? (ws * sem + wl * lex) / (ws + wl) : (sem + lex) / 2;
  }
  return new SignalTable(found, { semantic, lexical: lexicalOf, fused, prev, next }, x);
}

/**
 * The candidates' signals as a read-only map in candidate order: the numbers worked out for all, each `Signal` made
 * on its first read and kept (so `passages` set on it stays).
 */
class SignalTable implements ReadonlyMap<string, Signal> {
  private readonly made: (Signal | undefined)[];
  constructor(
    private readonly found: CandidateSlots,
    private readonly numbers: {
      semantic: Float64Array;
      lexical: Float64Array;
      fused: Float64Array;
      prev: (string | undefined)[];
      next: (string | undefined)[];
    },
    private readonly x: SignalInputs,
  ) {
    this.made = new Array<Signal | undefined>(found.ids.length);
  }
  /** Each candidate's fused relevance, in candidate order. */
  get fused(): Float64Array {
    return this.numbers.fused;
  }
  get size(): number {
    return this.found.ids.length;
  }
  has(id: string): boolean {
    return this.found.at.has(id);
  }
  get(id: string): Signal | undefined {
    const i = this.found.at.get(id);
    return i === undefined ? undefined : this.at(i);
  }
  private at(i: number): Signal {
    let s = this.made[i];
    if (!s) {
      const { semantic, lexical, fused, prev, next } = this.numbers;
      const id = this.found.ids[i];
      const terms = matchedTerms(id, prev[i], next[i], this.x);
      s = this.made[i] = { id, semantic: semantic[i], lexical: lexical[i], matched: terms.matched, viaNeighbour: terms.viaNeighbour, expanded: terms.expanded, fused: fused[i] };
    }
    return s;
  }
  *keys(): MapIterator<string> {
    yield* this.found.ids;
  }
  *values(): MapIterator<Signal> {
    for (let i = 0; i < this.found.ids.length; i++) yield this.at(i);
  }
  *entries(): MapIterator<[string, Signal]> {
    for (let i = 0; i < this.found.ids.length; i++) yield [this.found.ids[i], this.at(i)];
  }
  [Symbol.iterator](): MapIterator<[string, Signal]> {
    return this.entries();
  }
  forEach(f: (value: Signal, key: string, map: ReadonlyMap<string, Signal>) => void): void {
    for (let i = 0; i < this.found.ids.length; i++) f(this.at(i), this.found.ids[i], this);
  }
}

/** The person terms of the ask that name someone in memory. */
function namedPeople(x: SignalInputs): string[] {
  const named: string[] = [];
  if (x.t.personFocus > 0)
    for (const term of x.plan.terms.keys()) if (x.index.hasTerm(PERSON_PREFIX + term)) named.push(PERSON_PREFIX + term);
  return named;
}

/** A word of the ask as the card shows it matched: not an expansion, date, person or phrase term. */
function isPlainTerm(m: string, expanded: Set<string>): boolean {
  return !expanded.has(m) && !m.startsWith(DATE_PREFIX) && !m.startsWith(PERSON_PREFIX) && !m.includes(' ');
}

/** The query words a candidate matched itself, those only its neighbours matched, and the expansion terms it matched. */
function matchedTerms(id: string, prev: string | undefined, next: string | undefined, x: SignalInputs): Pick<Signal, 'matched' | 'viaNeighbour' | 'expanded'> {
  const lex = x.lexical.byId;
  const expSet = x.lexical.expanded;
  const hit = lex.get(id);
  const matched: string[] = [];
  const expanded: string[] = [];
  // One pass per list, no closures: this runs for every candidate (hundreds per ranking), most with no hit at all.
  if (hit)
    for (const m of hit.matched) {
      if (isPlainTerm(m, expSet)) matched.push(m);
      if (expSet.size && expSet.has(m)) expanded.push(m);
    }
  let viaNeighbour: string[] = [];
  if (prev || next) {
    const nbMatched = new Set<string>();
    for (const nb of [prev, next]) for (const m of (nb && lex.get(nb)?.matched) || []) nbMatched.add(m);
    viaNeighbour = [...nbMatched].filter((m) => !matched.includes(m) && isPlainTerm(m, expSet));
  }
  return { matched, viaNeighbour, expanded };
}
