import type { LexicalHit, LexicalSearcher } from './types';
import type { MemoryItem } from '../memory/types';
import { terms as toTerms, hasTimeExpression, itemDateTerms, TIME_TERM, PERSON_PREFIX } from './tokenize';
import { kthLargest } from './kth-largest';

export interface LexicalIndexOptions {
  /** BM25 term-frequency saturation. */
  k1?: number;
  /** BM25 length normalisation. */
  b?: number;
  /**
   * Where "very long" starts, in multiples of the average length (0: never). Beyond it each extra unit of length is
   * normalised with `bLong` instead of `b`, so a gentle `b` for ordinary items does not let long pages crowd them out.
   */
  longAfter?: number;
  /** Length normalisation slope past `longAfter` (classic BM25's 0.75 by default). */
  bLong?: number;
  /**
   * Lengths are compared with the geometric mean length instead of the arithmetic one: a few saved pages of
   * 100k characters then do not inflate "average" so far that every note looks short.
   */
  geometric?: boolean;
}

/**
 * BM25 scoring of the ranker's own index (IndexedMemory; the bench's plain baseline keeps classic b 0.75).
 * - b 0.3: ordinary items (notes, chat turns, up to a few times the typical length) are normalised gently: a longer
 *   note holding the ask's words is rarely worse evidence than a short one. +0.004 R@10 and +0.008 nDCG@10 on both
 *   LoCoMo halves; anything in 0-0.3 scores alike there, 0.3 is the smallest change that gets it.
 * - Past 3 × the typical length (LoCoMo's longest turn is about 2.5 ×; a saved page of 200k characters is hundreds
 *   ×) each extra unit of length costs classic BM25's 0.75, so long pages are held back about as much as before.
 * - "Typical" is the geometric mean length, which a handful of huge pages cannot inflate (with the arithmetic mean,
 *   three 30k-word pages repeating a word outscore the one short note about it; with this they do not).
 */
export const RANK_LEXICAL: LexicalIndexOptions = { k1: 1.2, b: 0.3, longAfter: 3, bLong: 0.75, geometric: true };

/**
 * A LexicalIndex's documents as flat arrays (`LexicalIndex.exportDocs`), as the store persists them (pack v2).
 * Phrases are not stored as terms: each entry keeps the term sequence of its body instead (`seq`), and a query's
 * phrase ("pottery class") is found by scanning the sequences of the items holding its rarer word.
 */
export interface PackedLexicon {
  /** The terms, joined by U+0000, sorted in code-unit order. */
  terms: string;
  /** Entry i's distinct terms are term[start[i]] .. term[start[i+1] - 1], with counts in tf. */
  start: Uint32Array;
  term: Uint32Array;
  tf: Uint16Array;
  len: Uint32Array;
  asks: Uint8Array;
  threads: ({ id: string; seq: number } | null)[];
  /** Entry i's body as a term sequence: seq[seqStart[i]] .. seq[seqStart[i+1] - 1] (adjacent pairs are phrases). */
  seqStart: Uint32Array;
  seq: Uint32Array;
}

export function packedTerms(p: PackedLexicon): string[] {
  return p.terms ? p.terms.split('\u0000') : [];
}

/** Doc slots holding a term, in slot order, with the term's count in each; grows by doubling. */
interface Posting {
  doc: Int32Array;
  tf: Uint16Array;
  n: number;
}

const MAX_TF = 65535;

function grown<T extends Uint32Array | Uint16Array | Uint8Array | Int32Array | Float64Array>(a: T, need: number): T {
  if (need <= a.length) return a;
  let cap = Math.max(16, a.length * 2);
  while (cap < need) cap *= 2;
  const b = new (a.constructor as new (n: number) => T)(cap);
  b.set(a);
  return b;
}

/**
 * An in-memory BM25 index held in typed arrays. The Node memory view and the extension's store both hold one:
 * `add` when an item is saved or edited, `remove` when it is deleted. Statistics are kept up to date on every
 * change so a query only walks the postings of its own terms.
 *
 * Layout (what keeps 100k items in tens of MB rather than GB): each item gets a slot; its distinct term ids and
 * counts sit in one shared pool (the forward index), its body's term sequence in another, and each term's postings
 * are a pair of typed arrays of slots and counts. Phrases have no postings at all: a query's phrase is counted from
 * the sequences of the items holding its rarer word. A removed or re-indexed item leaves a dead slot behind, skipped
 * by queries and reclaimed when dead slots pile up.
 */
export class LexicalIndex implements LexicalSearcher {
  private k1 = 1.2;
  private b = 0.75;
  private longAfter = 0;
  private bLong = 0.75;
  private geometric = false;
  private totalLen = 0;
  /** Σ ln(1 + len), for the geometric mean length. */
  private totalLogLen = 0;
  private readonly threads = new Map<string, Map<number, string>>();

  // Slots.
  private slotOf = new Map<string, number>();
  /** Id in each slot; undefined for a dead slot. */
  private ids: (string | undefined)[] = [];
  private threadOf: ({ id: string; seq: number } | undefined)[] = [];
  private lens = new Uint32Array(0);
  private asked = new Uint8Array(0);
  private fStart = new Uint32Array(0);
  private fCount = new Uint32Array(0);
  private sStart = new Uint32Array(0);
  private sCount = new Uint32Array(0);
  private dead = 0;
  // Pools.
  private fTerm = new Uint32Array(0);
  private fTf = new Uint16Array(0);
  private fTop = 0;
  private seqPool = new Uint32Array(0);
  private sTop = 0;
  // Terms.
  private termId = new Map<string, number>();
  private termStr: string[] = [];
  private df = new Int32Array(0);
  private postings: (Posting | undefined)[] = [];
  /** Phrase postings counted for recent queries; cleared by any change. */
  private phraseCache = new Map<string, Posting | null>();
  /** Per-slot score accumulator for `search`, zero between queries. */
  private acc = new Float64Array(0);
  /** Per-slot bit sets of the query terms matched, for `search`; zero between queries. */
  private hitBits = new Uint32Array(0);
  /** Slots a `search` matched, in first-match order (scratch). */
  private touchedScratch = new Int32Array(0);
  /** Scratch for the top-`limit` cut of `search`. */
  private cutScratch = new Float64Array(0);
  /** `k1 × lengthNorm(len, normAvg)` per slot (see `lengthFactors`); NaN: not computed. */
  private norms = new Float64Array(0);
  private normAvg = NaN;

  constructor(opts: LexicalIndexOptions = {}) {
    this.configure(opts);
  }

  /** Change scoring options (the bench compares variants on one index); statistics are unaffected. */
  configure(opts: LexicalIndexOptions): void {
    if (opts.k1 !== undefined) this.k1 = opts.k1;
    if (opts.b !== undefined) this.b = opts.b;
    if (opts.longAfter !== undefined) this.longAfter = opts.longAfter;
    if (opts.bLong !== undefined) this.bLong = opts.bLong;
    if (opts.geometric !== undefined) this.geometric = opts.geometric;
    this.normAvg = NaN;
  }

  options(): Required<LexicalIndexOptions> {
    return { k1: this.k1, b: this.b, longAfter: this.longAfter, bLong: this.bLong, geometric: this.geometric };
  }

  /** BM25's length factor for a document of `len` terms: 1 at the average length. */
  private lengthNorm(len: number, avg: number): number {
    const r = len / avg;
    const norm = 1 - this.b + this.b * r;
    if (this.longAfter > 0 && r > this.longAfter) return norm + (this.bLong - this.b) * (r - this.longAfter);
    return norm;
  }

  get size(): number {
    return this.slotOf.size;
  }

  has(id: string): boolean {
    return this.slotOf.has(id);
  }

  /** Index (or re-index) a memory item: what the store calls on every save or edit. */
  addItem(item: Pick<MemoryItem, 'id' | 'text' | 'title' | 'tags' | 'people' | 'aux' | 'thread'> & { createdAt?: number }): void {
    // Only the body says when something happened; a title is often just a date.
    const extra = hasTimeExpression(item.text + ' ' + (item.aux ?? '')) ? [TIME_TERM] : [];
    // The day and month the item is dated, so an ask naming a date finds what was noted then.
    if (item.createdAt) extra.push(...itemDateTerms(item.createdAt));
    // People as a field of their own, so an ask naming someone can prefer items by or about them.
    for (const p of item.people) for (const t of toTerms(p.replace(/@.*$/, ''))) extra.push(PERSON_PREFIX + t);
    this.add(item.id, searchText(item), item.thread, extra, toTerms(item.text + '\n' + (item.aux ?? '')));
  }

  /**
   * Index (or re-index) a text. `thread` lets the ranker use neighbouring items as context. `phraseSource` is the
   * term sequence whose adjacent pairs are the item's phrases (see `phrases` in tokenize.ts); phrases score like
   * terms but do not count toward the length.
   */
  add(id: string, text: string, thread?: { id: string; seq: number }, extraTerms: string[] = [], phraseSource: string[] = []): void {
    const ts = toTerms(text).concat(extraTerms);
    const tf = new Map<number, number>();
    for (const t of ts) {
      const k = this.intern(t);
      tf.set(k, (tf.get(k) ?? 0) + 1);
    }
    const seq = phraseSource.length > 1 ? phraseSource.map((t) => this.intern(t)) : [];
    this.insert(id, ts.length, text.includes('?'), thread, tf, seq);
  }

  private intern(t: string): number {
    let k = this.termId.get(t);
    if (k === undefined) {
      k = this.termStr.length;
      this.termId.set(t, k);
      this.termStr.push(t);
      if (k >= this.df.length) this.df = grown(this.df, k + 1);
    }
    return k;
  }

  private newSlot(id: string, len: number, asks: boolean, thread: { id: string; seq: number } | undefined): number {
    const slot = this.ids.length;
    if (slot >= this.lens.length) {
      const need = slot + 1;
      this.lens = grown(this.lens, need);
      this.asked = grown(this.asked, need);
      this.fStart = grown(this.fStart, need);
      this.fCount = grown(this.fCount, need);
      this.sStart = grown(this.sStart, need);
      this.sCount = grown(this.sCount, need);
      this.acc = grown(this.acc, this.lens.length);
    }
    this.ids.push(id);
    this.threadOf.push(thread);
    this.slotOf.set(id, slot);
    this.lens[slot] = len;
    this.normAvg = NaN;
    this.asked[slot] = asks ? 1 : 0;
    this.totalLen += len;
    this.totalLogLen += Math.log1p(len);
    if (thread) {
      let th = this.threads.get(thread.id);
      if (!th) this.threads.set(thread.id, (th = new Map()));
      th.set(thread.seq, id);
    }
    return slot;
  }

  private post(t: number, slot: number, n: number): void {
    let p = this.postings[t];
    if (!p) this.postings[t] = p = { doc: new Int32Array(2), tf: new Uint16Array(2), n: 0 };
    if (p.n >= p.doc.length) {
      p.doc = grown(p.doc, p.n + 1);
      p.tf = grown(p.tf, p.n + 1);
    }
    p.doc[p.n] = slot;
    p.tf[p.n++] = n;
    this.df[t]++;
  }

  private insert(id: string, len: number, asks: boolean, thread: { id: string; seq: number } | undefined, tf: Map<number, number>, seq: ArrayLike<number>): void {
    if (this.slotOf.has(id)) this.remove(id);
    this.phraseCache.clear();
    const slot = this.newSlot(id, len, asks, thread);
    this.fTerm = grown(this.fTerm, this.fTop + tf.size);
    this.fTf = grown(this.fTf, this.fTop + tf.size);
    this.fStart[slot] = this.fTop;
    this.fCount[slot] = tf.size;
    for (const [t, n] of tf) {
      const c = Math.min(n, MAX_TF);
      this.fTerm[this.fTop] = t;
      this.fTf[this.fTop++] = c;
      this.post(t, slot, c);
    }
    this.seqPool = grown(this.seqPool, this.sTop + seq.length);
    this.sStart[slot] = this.sTop;
    this.sCount[slot] = seq.length;
    for (let i = 0; i < seq.length; i++) this.seqPool[this.sTop++] = seq[i];
  }

  remove(id: string): void {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return;
    this.phraseCache.clear();
    this.slotOf.delete(id);
    this.ids[slot] = undefined;
    this.totalLen -= this.lens[slot];
    this.totalLogLen -= Math.log1p(this.lens[slot]);
    for (let k = this.fStart[slot], e = k + this.fCount[slot]; k < e; k++) this.df[this.fTerm[k]]--;
    const thread = this.threadOf[slot];
    this.threadOf[slot] = undefined;
    if (thread) {
      const th = this.threads.get(thread.id);
      if (th?.get(thread.seq) === id) th.delete(thread.seq);
      if (th && th.size === 0) this.threads.delete(thread.id);
    }
    this.dead++;
    if (this.dead > 1024 && this.dead > this.slotOf.size) this.compact();
  }

  /** Drops dead slots: live items are renumbered in order, pools and postings rebuilt without the holes. */
  private compact(): void {
    const live: number[] = [];
    for (let s = 0; s < this.ids.length; s++) if (this.ids[s] !== undefined) live.push(s);
    const old = { ids: this.ids, threadOf: this.threadOf, lens: this.lens, asked: this.asked, fStart: this.fStart, fCount: this.fCount, sStart: this.sStart, sCount: this.sCount, fTerm: this.fTerm, fTf: this.fTf, seq: this.seqPool };
    this.reset();
    for (const s of live) {
      const tf = new Map<number, number>();
      for (let k = old.fStart[s], e = k + old.fCount[s]; k < e; k++) tf.set(old.fTerm[k], old.fTf[k]);
      this.insert(old.ids[s]!, old.lens[s], old.asked[s] === 1, old.threadOf[s], tf, old.seq.subarray(old.sStart[s], old.sStart[s] + old.sCount[s]));
    }
  }

  /** Empties the slots, pools and postings; the term dictionary is kept (df back to 0). */
  private reset(): void {
    this.slotOf = new Map();
    this.ids = [];
    this.threadOf = [];
    this.threads.clear();
    this.lens = new Uint32Array(0);
    this.asked = new Uint8Array(0);
    this.fStart = new Uint32Array(0);
    this.fCount = new Uint32Array(0);
    this.sStart = new Uint32Array(0);
    this.sCount = new Uint32Array(0);
    this.fTerm = new Uint32Array(0);
    this.fTf = new Uint16Array(0);
    this.seqPool = new Uint32Array(0);
    this.fTop = this.sTop = this.dead = 0;
    this.totalLen = this.totalLogLen = 0;
    this.df.fill(0);
    this.postings = [];
    this.acc = new Float64Array(0);
    this.normAvg = NaN;
    this.phraseCache.clear();
  }

  /**
   * The documents of `ids` (in that order) as flat arrays, for persisting the index: the tokenising, stemming and
   * phrase work is done once and a later start only re-inserts the counts (IndexedDB stays the truth; the store
   * checks each item against a fingerprint before it uses its entry). Ids not indexed get an empty entry.
   */
  exportDocs(ids: string[]): PackedLexicon {
    // Terms sorted (code-unit order, the native sort's), so the pack reads the same whatever order items came in.
    const used = new Uint8Array(this.termStr.length);
    let total = 0;
    let seqTotal = 0;
    for (const id of ids) {
      const s = this.slotOf.get(id);
      if (s === undefined) continue;
      total += this.fCount[s];
      seqTotal += this.sCount[s];
      for (let k = this.fStart[s], e = k + this.fCount[s]; k < e; k++) used[this.fTerm[k]] = 1;
      for (let k = this.sStart[s], e = k + this.sCount[s]; k < e; k++) used[this.seqPool[k]] = 1;
    }
    const terms: string[] = [];
    for (let t = 0; t < used.length; t++) if (used[t]) terms.push(this.termStr[t]);
    terms.sort();
    const remap = new Uint32Array(this.termStr.length);
    terms.forEach((t, i) => (remap[this.termId.get(t)!] = i));
    const start = new Uint32Array(ids.length + 1);
    const term = new Uint32Array(total);
    const tf = new Uint16Array(total);
    const len = new Uint32Array(ids.length);
    const asks = new Uint8Array(ids.length);
    const seqStart = new Uint32Array(ids.length + 1);
    const seq = new Uint32Array(seqTotal);
    const threads: ({ id: string; seq: number } | null)[] = [];
    let k = 0;
    let q = 0;
    ids.forEach((id, i) => {
      start[i] = k;
      seqStart[i] = q;
      const s = this.slotOf.get(id);
      threads.push(s === undefined ? null : (this.threadOf[s] ?? null));
      if (s === undefined) return;
      len[i] = this.lens[s];
      asks[i] = this.asked[s];
      for (let j = this.fStart[s], e = j + this.fCount[s]; j < e; j++) {
        term[k] = remap[this.fTerm[j]];
        tf[k++] = this.fTf[j];
      }
      for (let j = this.sStart[s], e = j + this.sCount[s]; j < e; j++) seq[q++] = remap[this.seqPool[j]];
    });
    start[ids.length] = k;
    seqStart[ids.length] = q;
    // One string instead of hundreds of thousands: IndexedDB clones it in one piece.
    return { terms: terms.join('\u0000'), start, term, tf, len, asks, threads, seqStart, seq };
  }

  /** Indexes entry `i` of an `exportDocs` result under `id` (`terms` split once by the caller: `packedTerms`). */
  addPacked(id: string, p: PackedLexicon, terms: string[], i: number): void {
    const tf = new Map<number, number>();
    for (let k = p.start[i]; k < p.start[i + 1]; k++) tf.set(this.intern(terms[p.term[k]]), p.tf[k]);
    const seq: number[] = [];
    for (let k = p.seqStart[i]; k < p.seqStart[i + 1]; k++) seq.push(this.intern(terms[p.seq[k]]));
    this.insert(id, p.len[i], p.asks[i] === 1, p.threads[i] ?? undefined, tf, seq);
  }

  /**
   * Loads entries `entries` (indexes into `p`, ids in `ids`) of a persisted `exportDocs` result as they are: the
   * pack's term numbers become the index's own, and each term's postings are allocated once at their final size.
   * Results are the same as `addItem` for each entry. Call on an empty index, before anything else is added.
   */
  loadPacked(p: PackedLexicon, terms: string[], entries: number[], ids: string[]): void {
    if (this.ids.length || this.termStr.length) throw new Error('loadPacked needs an empty index');
    const T = terms.length;
    this.termStr = terms.slice();
    this.termId = new Map();
    for (let t = 0; t < T; t++) this.termId.set(terms[t], t);
    this.df = new Int32Array(T);
    let total = 0;
    let seqTotal = 0;
    for (const i of entries) {
      total += p.start[i + 1] - p.start[i];
      seqTotal += p.seqStart[i + 1] - p.seqStart[i];
      for (let k = p.start[i]; k < p.start[i + 1]; k++) this.df[p.term[k]]++;
    }
    for (let t = 0; t < T; t++) {
      const n = this.df[t];
      if (n) this.postings[t] = { doc: new Int32Array(n), tf: new Uint16Array(n), n: 0 };
    }
    this.fTerm = new Uint32Array(total);
    this.fTf = new Uint16Array(total);
    this.seqPool = new Uint32Array(seqTotal);
    const n = entries.length;
    this.lens = new Uint32Array(n);
    this.asked = new Uint8Array(n);
    this.fStart = new Uint32Array(n);
    this.fCount = new Uint32Array(n);
    this.sStart = new Uint32Array(n);
    this.sCount = new Uint32Array(n);
    this.acc = new Float64Array(n);
    entries.forEach((i, d) => {
      const slot = this.newSlot(ids[d], p.len[i], p.asks[i] === 1, p.threads[i] ?? undefined);
      this.fStart[slot] = this.fTop;
      this.fCount[slot] = p.start[i + 1] - p.start[i];
      for (let k = p.start[i]; k < p.start[i + 1]; k++) {
        const t = p.term[k];
        const post = this.postings[t]!;
        this.fTerm[this.fTop] = t;
        this.fTf[this.fTop++] = p.tf[k];
        post.doc[post.n] = slot;
        post.tf[post.n++] = p.tf[k];
      }
      this.sStart[slot] = this.sTop;
      this.sCount[slot] = p.seqStart[i + 1] - p.seqStart[i];
      this.seqPool.set(p.seq.subarray(p.seqStart[i], p.seqStart[i + 1]), this.sTop);
      this.sTop += this.sCount[slot];
    });
  }

  /**
   * Postings of a query term: a word's own, or for a phrase ("a b", two terms with a space) the items whose body has
   * a directly followed by b, counted from the sequences of the items holding both words.
   */
  private postingOf(term: string): Posting | undefined {
    if (!term.includes(' ')) {
      const t = this.termId.get(term);
      return t === undefined || this.df[t] <= 0 ? undefined : this.postings[t];
    }
    const cached = this.phraseCache.get(term);
    if (cached !== undefined) return cached ?? undefined;
    const sp = term.indexOf(' ');
    const a = this.termId.get(term.slice(0, sp));
    const b = this.termId.get(term.slice(sp + 1));
    let out: Posting | null = null;
    if (a !== undefined && b !== undefined && this.df[a] > 0 && this.df[b] > 0) {
      // Both postings are in slot order: walk them together and scan only the items holding both words.
      const pa = this.postings[a]!;
      const pb = this.postings[b]!;
      const docs: number[] = [];
      const tfs: number[] = [];
      const seq = this.seqPool;
      for (let i = 0, j = 0; i < pa.n && j < pb.n; ) {
        const s = pa.doc[i];
        if (s < pb.doc[j]) {
          i++;
          continue;
        }
        if (s > pb.doc[j]) {
          j++;
          continue;
        }
        i++;
        j++;
        if (this.ids[s] === undefined) continue;
        let c = 0;
        for (let k = this.sStart[s], e = k + this.sCount[s] - 1; k < e; k++) if (seq[k] === a && seq[k + 1] === b) c++;
        if (c) docs.push(s), tfs.push(Math.min(c, MAX_TF));
      }
      if (docs.length) out = { doc: Int32Array.from(docs), tf: Uint16Array.from(tfs), n: docs.length };
    }
    if (this.phraseCache.size > 512) this.phraseCache.clear();
    this.phraseCache.set(term, out);
    return out ?? undefined;
  }

  /** Live documents holding a term (a phrase: holding it in their body). */
  private dfOf(term: string): number {
    if (!term.includes(' ')) {
      const t = this.termId.get(term);
      return t === undefined ? 0 : Math.max(0, this.df[t]);
    }
    const p = this.postingOf(term);
    return p ? p.n : 0;
  }

  /** Whether any indexed item has this term (e.g. a person term). */
  hasTerm(term: string): boolean {
    return this.dfOf(term) > 0;
  }

  idf(term: string): number {
    const n = this.dfOf(term);
    const N = this.slotOf.size;
    return Math.log(1 + (N - n + 0.5) / (n + 0.5));
  }

  asks(id: string): boolean {
    const s = this.slotOf.get(id);
    return s !== undefined && this.asked[s] === 1;
  }

  /** Term counts of an indexed item (words, people, dates; phrases are not terms). */
  termsOf(id: string): Map<string, number> | undefined {
    const s = this.slotOf.get(id);
    if (s === undefined) return undefined;
    const out = new Map<string, number>();
    for (let k = this.fStart[s], e = k + this.fCount[s]; k < e; k++) out.set(this.termStr[this.fTerm[k]], this.fTf[k]);
    return out;
  }

  /**
   * Ids of the items holding any of `terms` or, with `prefix`, any term starting with it: the memory browser's word
   * filter (each word typed must match; the last may be half typed). Walks postings only, no item is read.
   */
  idsWithTerms(terms: string[], prefix = ''): Set<string> {
    const want = new Set<number>();
    for (const t of terms) {
      const k = this.termId.get(t);
      if (k !== undefined) want.add(k);
    }
    if (prefix) for (let k = 0; k < this.termStr.length; k++) if (this.df[k] > 0 && this.termStr[k].startsWith(prefix)) want.add(k);
    const out = new Set<string>();
    for (const k of want) {
      const p = this.df[k] > 0 ? this.postings[k] : undefined;
      for (let j = 0; p && j < p.n; j++) {
        const id = this.ids[p.doc[j]];
        if (id !== undefined) out.add(id);
      }
    }
    return out;
  }

  /** Whether an indexed item has this (single) term: `termsOf(id).has(term)` without building the map. */
  docHas(id: string, term: string): boolean {
    const s = this.slotOf.get(id);
    const t = this.termId.get(term);
    if (s === undefined || t === undefined) return false;
    for (let k = this.fStart[s], e = k + this.fCount[s]; k < e; k++) if (this.fTerm[k] === t) return true;
    return false;
  }

  /** Whether the item is indexed with a thread (only then can `neighbour` find anything for it). */
  inThread(id: string): boolean {
    const s = this.slotOf.get(id);
    return s !== undefined && !!this.threadOf[s];
  }

  neighbour(id: string, offset: number): string | undefined {
    const s = this.slotOf.get(id);
    const th = s === undefined ? undefined : this.threadOf[s];
    if (!th) return undefined;
    return this.threads.get(th.id)?.get(th.seq + offset);
  }

  /** Query terms of a text with weight 1 each (repeats add up). */
  static queryTerms(text: string, weight = 1): Map<string, number> {
    const q = new Map<string, number>();
    for (const t of toTerms(text)) q.set(t, Math.max(q.get(t) ?? 0, weight));
    return q;
  }

  idealScore(terms: Map<string, number>): number {
    // A document of average length holding each term once scores idf × 1 per term (BM25 with tf = 1, len = avg).
    let s = 0;
    for (const [t, w] of terms) if (this.hasTerm(t)) s += w * this.idf(t);
    return s;
  }

  /** `k1 × lengthNorm` of every slot for the average length `avg` (recomputed when the average or the options change). */
  private lengthFactors(avg: number): Float64Array {
    const slots = this.ids.length;
    if (avg !== this.normAvg || this.norms.length < slots) {
      if (this.norms.length < slots) this.norms = new Float64Array(this.lens.length);
      for (let s = 0; s < slots; s++) this.norms[s] = this.k1 * this.lengthNorm(this.lens[s], avg);
      this.normAvg = avg;
    }
    return this.norms;
  }

  search(terms: Map<string, number>, limit: number): LexicalHit[] {
    const n = this.slotOf.size;
    const avg = !n ? 1 : this.geometric ? Math.max(1, Math.expm1(this.totalLogLen / n)) : this.totalLen / n || 1;
    const used: { term: string; p: Posting; w: number }[] = [];
    for (const [t, w] of terms) {
      const p = this.postingOf(t);
      if (p && w > 0) used.push({ term: t, p, w });
    }
    // Which query terms each slot matched, as a bit set of `words` 32-bit words per slot (query order = bit order),
    // filled while scoring: the hits' matched terms are then read without looking at their term lists.
    const words = (used.length + 31) >>> 5;
    const slots = this.ids.length;
    if (this.hitBits.length < slots * words) this.hitBits = new Uint32Array(Math.max(slots * words, 2 * this.hitBits.length));
    const bits = this.hitBits;
    const acc = this.acc;
    const norm = this.lengthFactors(avg);
    // Slots in the order they were first matched (each once: its acc turns positive on its first match).
    if (this.touchedScratch.length < slots) this.touchedScratch = new Int32Array(this.lens.length);
    let touchedAll = this.touchedScratch;
    let nTouched = 0;
    const k1 = this.k1;
    for (let u = 0; u < used.length; u++) {
      const p = used[u].p;
      const idf = this.idf(used[u].term) * used[u].w;
      const word = u >>> 5;
      const bit = 1 << (u & 31);
      for (let j = 0; j < p.n; j++) {
        const s = p.doc[j];
        if (this.ids[s] === undefined) continue;
        const tf = p.tf[j];
        const x = idf * ((tf * (k1 + 1)) / (tf + norm[s]));
        if (acc[s] === 0) {
          if (nTouched === touchedAll.length) touchedAll = this.touchedScratch = grown(touchedAll, nTouched + 1);
          touchedAll[nTouched++] = s;
        }
        acc[s] += x;
        bits[s * words + word] |= bit;
      }
    }
    const touched = touchedAll.subarray(0, nTouched);
    // The best `limit` (stable: equal scores keep the order items were first matched in), then the acc is zeroed.
    let top: ArrayLike<number> = touched;
    if (nTouched > limit) {
      if (this.cutScratch.length < nTouched) this.cutScratch = new Float64Array(this.lens.length);
      const scores = this.cutScratch.subarray(0, nTouched);
      for (let i = 0; i < nTouched; i++) scores[i] = acc[touched[i]];
      const cut = kthLargest(scores, limit);
      top = touched.filter((s) => acc[s] >= cut);
    }
    const order: number[] = [];
    for (let i = 0; i < top.length; i++) order.push(i);
    order.sort((x, y) => acc[top[y]] - acc[top[x]] || x - y);
    const m = Math.min(order.length, limit);
    const hits: LexicalHit[] = new Array(m);
    for (let i = 0; i < m; i++) {
      const s = top[order[i]];
      const matched: string[] = [];
      const o = s * words;
      for (let u = 0; u < used.length; u++) if (bits[o + (u >>> 5)] & (1 << (u & 31))) matched.push(used[u].term);
      hits[i] = { id: this.ids[s]!, score: acc[s], matched };
    }
    for (const s of touched) {
      acc[s] = 0;
      for (let k = s * words, e = k + words; k < e; k++) bits[k] = 0;
    }
    return hits;
  }
}


/** The text an item is found by: title, body, image captions and the like, tags and people. */
export function searchText(item: {
  title?: string;
  text: string;
  aux?: string;
  tags?: string[];
  people?: string[];
}): string {
  return [item.title ?? '', item.text, item.aux ?? '', (item.tags ?? []).join(' '), (item.people ?? []).join(' ')]
    .filter(Boolean)
    .join('\n');
}

/**
 * The text to embed for an item (what the store should embed on save): "Title: body" and captions. A short title
 * (a speaker, a subject) in front of the body measurably helps the small model tie the text to who or what it is
 * about; a title that merely repeats the body's start is left out.
 */
export function embedText(item: { title?: string; text: string; aux?: string }): string {
  const title = (item.title ?? '').trim();
  const text = item.text.trim();
  // A title made from the first line (`titleFrom`: heading marks dropped, long lines cut with "…") repeats the body.
  const start = title.replace(/(…|\.\.\.)$/, '').trimEnd().toLowerCase();
  const repeats = text.replace(/^#+\s*/, '').toLowerCase().startsWith(start);
  const head = title && title.length <= 80 && !repeats ? `${title}: ` : '';
  return [head + text, item.aux ?? ''].filter(Boolean).join(' ');
}

/**
 * The text to embed for an item's context vector (`IndexedMemory.setContextVector`): the previous item of its thread
 * followed by the item, so a reply ("Yes, last Tuesday!") is found by what it answers. Undefined when the item has
 * no predecessor (its own vector then stands alone).
 */
export function contextText(
  item: { title?: string; text: string; aux?: string },
  prev: { title?: string; text: string; aux?: string } | undefined,
): string | undefined {
  return prev ? `${embedText(prev)}\n${embedText(item)}` : undefined;
}
