import type { MemoryItem } from '../types';
import { searchText } from './item-text';
import type { PackedLexicon } from './lexical-pack';
import { terms as toTerms, hasTimeExpression, itemDateTerms, TIME_TERM, PERSON_PREFIX } from './tokenize';

/** Doc slots holding a term, in slot order, with the term's count in each; grows by doubling. */
export interface Posting {
  doc: Int32Array;
  tf: Uint16Array;
  n: number;
}

export const MAX_TF = 65535;

export function grown<T extends Uint32Array | Uint16Array | Uint8Array | Int32Array | Float64Array>(a: T, need: number): T {
  if (need <= a.length) return a;
  let cap = Math.max(16, a.length * 2);
  while (cap < need) cap *= 2;
  const b = new (a.constructor as new (n: number) => T)(cap);
  b.set(a);
  return b;
}

/**
 * The documents of a BM25 index, held in typed arrays: what each item contributes (its terms and counts, its length,
 * its thread, its body's term sequence) and the postings of each term, kept up to date on every change, and written
 * out or loaded back in one piece for the store's pack. LexicalIndex scores queries over them.
 *
 * Layout (what keeps 100k items in tens of MB rather than GB): each item gets a slot; its distinct term ids and
 * counts sit in one shared pool (the forward index), its body's term sequence in another, and each term's postings
 * are a pair of typed arrays of slots and counts. Phrases have no postings at all: a query's phrase is counted from
 * the sequences of the items holding its rarer word. A removed or re-indexed item leaves a dead slot behind, skipped
 * by queries and reclaimed when dead slots pile up.
 */
export class LexicalDocs {
  protected totalLen = 0;
  /** Σ ln(1 + len), for the geometric mean length. */
  protected totalLogLen = 0;
  protected readonly threads = new Map<string, Map<number, string>>();

  // Slots.
  protected slotOf = new Map<string, number>();
  /** Id in each slot; undefined for a dead slot. */
  protected ids: (string | undefined)[] = [];
  protected threadOf: ({ id: string; seq: number } | undefined)[] = [];
  protected lens = new Uint32Array(0);
  protected asked = new Uint8Array(0);
  protected fStart = new Uint32Array(0);
  protected fCount = new Uint32Array(0);
  protected sStart = new Uint32Array(0);
  protected sCount = new Uint32Array(0);
  protected dead = 0;
  // Pools.
  protected fTerm = new Uint32Array(0);
  protected fTf = new Uint16Array(0);
  protected fTop = 0;
  protected seqPool = new Uint32Array(0);
  protected sTop = 0;
  // Terms.
  protected termId = new Map<string, number>();
  protected termStr: string[] = [];
  protected df = new Int32Array(0);
  protected postings: (Posting | undefined)[] = [];
  /** Phrase postings counted for recent queries; cleared by any change. */
  protected phraseCache = new Map<string, Posting | null>();
  /** Per-slot score accumulator for `search`, zero between queries. */
  protected acc = new Float64Array(0);
  /** The average length `LexicalIndex.lengthFactors` last used; NaN when lengths changed since. */
  protected normAvg = NaN;

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

  protected intern(t: string): number {
    let k = this.termId.get(t);
    if (k === undefined) {
      k = this.termStr.length;
      this.termId.set(t, k);
      this.termStr.push(t);
      if (k >= this.df.length) this.df = grown(this.df, k + 1);
    }
    return k;
  }

  protected newSlot(id: string, len: number, asks: boolean, thread: { id: string; seq: number } | undefined): number {
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

  protected post(t: number, slot: number, n: number): void {
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

  protected insert(id: string, len: number, asks: boolean, thread: { id: string; seq: number } | undefined, tf: Map<number, number>, seq: ArrayLike<number>): void {
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
  protected compact(): void {
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
  protected reset(): void {
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

  /** The place after the last indexed item of a thread (0 for a thread with none): where its next turn goes. */
  nextSeq(threadId: string): number {
    let last = -1;
    for (const seq of this.threads.get(threadId)?.keys() ?? []) if (seq > last) last = seq;
    return last + 1;
  }
}
