import { LexicalDocs } from './lexical-docs';
import type { LexiconPools } from './lexical-pack';
import { passageKey } from './passages';
import { PostingPool, varintBytes, writeVarint } from './posting';
import { SequencePool } from './term-sequence';

/**
 * The documents of items as flat arrays, in the items' order: what `PackableLexicalDocs.exportDocs` lays out as an
 * index's pools (by loading them into an index of their own, `loadFlat`).
 */
interface FlatDocs {
  terms: string[];
  items: Uint32Array<ArrayBuffer>;
  /** Document i's distinct terms are term[start[i]] .. term[start[i+1] - 1], with counts in tf. */
  start: Uint32Array;
  term: Uint16Array | Uint32Array;
  tf: Uint16Array;
  len: Uint32Array<ArrayBuffer>;
  asks: Uint8Array<ArrayBuffer>;
  threads: ({ id: string; seq: number } | null)[];
  /** Document i's body as a term sequence: seq[seqStart[i]] .. seq[seqStart[i+1] - 1]. */
  seqStart: Uint32Array;
  seq: Uint16Array | Uint32Array;
}

/** The first `n` values of `a`: `a` itself when that is all of it (the laid-out index's arrays are sized exactly), else a copy. */
function exact(a: Uint8Array, n: number): Uint8Array<ArrayBuffer>;
function exact(a: Uint32Array, n: number): Uint32Array<ArrayBuffer>;
function exact(a: Uint8Array | Uint32Array, n: number): Uint8Array | Uint32Array {
  return a.length === n && a.byteOffset === 0 && a.buffer instanceof ArrayBuffer ? a : a.slice(0, n);
}

/**
 * The documents of a BM25 index written out in one piece for the store's pack, and loaded back from it: the
 * tokenising, stemming and phrase work is done once, and a later start takes the postings as they were written.
 */
export class PackableLexicalDocs extends LexicalDocs {
  /**
   * The documents of `items` (in that order), for persisting the index: its pools as an index holds them, so a later
   * start takes them as they are (IndexedDB stays the truth; the store checks each item against a fingerprint before
   * it uses its entry, and the lexicon against its digest, `lexiconDigest`: lib/memory/pack.ts). Ids not indexed get an empty
   * document.
   */
  exportDocs(items: string[]): LexiconPools {
    const flat = this.flatDocs(items);
    const laid = new PackableLexicalDocs();
    laid.loadFlat(flat, items);
    const post = laid.postings.packed(flat.terms.length);
    const n = flat.len.length;
    return {
      terms: flat.terms.join('\u0000'), items: flat.items, len: flat.len, asks: flat.asks, threads: flat.threads,
      fPool: exact(laid.fPool, laid.fTop),
      fStart: exact(laid.fStart, n),
      fCount: exact(laid.fCount, n),
      seqs: exact(laid.seqs.bytes, laid.seqs.top),
      sStart: exact(laid.sStart, n),
      sCount: exact(laid.sCount, n),
      post: post.bytes, postStart: post.start, postCount: post.count, postLast: post.last,
    };
  }

  /** The documents of `items` as flat arrays, terms numbered in sorted order. */
  private flatDocs(items: string[]): FlatDocs {
    // Each item's documents in passage order (one for most items): entries items[i] .. items[i+1] - 1 are item i's.
    const itemStart = new Uint32Array(items.length + 1);
    const ids: string[] = [];
    items.forEach((id, i) => {
      itemStart[i] = ids.length;
      const n = this.partsOf.get(id);
      if (n === undefined) ids.push(id);
      else for (let k = 0; k < n; k++) ids.push(passageKey(id, k));
    });
    itemStart[items.length] = ids.length;
    // Terms sorted (code-unit order, the native sort's), so the pack reads the same whatever order items came in.
    const used = new Uint8Array(this.termStr.length);
    let total = 0;
    let seqTotal = 0;
    const docs = ids.map((id) => {
      const s = this.slotOf.get(id);
      if (s === undefined) return undefined;
      total += this.fCount[s];
      seqTotal += this.sCount[s];
      const d = { ...this.docTerms(s), seq: this.docSeq(s) };
      for (const t of d.terms) used[t] = 1;
      for (const t of d.seq) used[t] = 1;
      return d;
    });
    const terms: string[] = [];
    for (let t = 0; t < used.length; t++) if (used[t]) terms.push(this.termStr[t]);
    terms.sort();
    const remap = new Uint32Array(this.termStr.length);
    terms.forEach((t, i) => (remap[this.termId.get(t)!] = i));
    // Term numbers in 16 bits while the lexicon allows it (10k notes use about 20,000 terms): these arrays live only
    // while the pack is written, beside the index, and are most of its size.
    const Numbers = terms.length <= 0x10000 ? Uint16Array : Uint32Array;
    const start = new Uint32Array(ids.length + 1);
    const term = new Numbers(total);
    const tf = new Uint16Array(total);
    const len = new Uint32Array(ids.length);
    const asks = new Uint8Array(ids.length);
    const seqStart = new Uint32Array(ids.length + 1);
    const seq = new Numbers(seqTotal);
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
      const d = docs[i]!;
      d.terms.forEach((t, j) => {
        term[k] = remap[t];
        tf[k++] = d.tfs[j];
      });
      for (const t of d.seq) seq[q++] = remap[t];
    });
    start[ids.length] = k;
    seqStart[ids.length] = q;
    return { terms, items: itemStart, start, term, tf, len, asks, threads, seqStart, seq };
  }

  /**
   * Indexes every document of `p` (the items `itemIds`) in order: the flat arrays' term numbers become the index's
   * own, and each term's postings are allocated once at their final size. Results are the same as `addItem` for each
   * item. On an empty index.
   */
  private loadFlat(p: FlatDocs, itemIds: string[]): void {
    const terms = p.terms;
    // The items' documents, one per passage: document i is slot i.
    const ids: string[] = [];
    itemIds.forEach((id, i) => {
      const n = p.items[i + 1] - p.items[i];
      for (let k = 0; k < n; k++) ids.push(passageKey(id, k));
      if (n > 1) this.partsOf.set(id, n);
    });
    const T = terms.length;
    this.termStr = terms.slice();
    this.termId = new Map();
    for (let t = 0; t < T; t++) this.termId.set(terms[t], t);
    const df = (this.df = new Int32Array(T));
    const placeOf = (this.placeOf = new Uint32Array(T));
    const { start, term, tf, seqStart, seq } = p;
    // Exact sizes of the pool and the postings, so nothing is copied while loading and nothing is left over.
    const postBytes = new Uint32Array(T);
    const lastSlot = new Int32Array(T).fill(-1);
    let fBytes = 0;
    let seqTerms = 0;
    for (let i = 0; i < ids.length; i++) {
      for (let k = start[i], z = start[i + 1]; k < z; k++) {
        const t = term[k];
        const c = tf[k];
        const more = c > 1 ? varintBytes(c) : 0;
        fBytes += varintBytes(t * 2 + 1) + more;
        postBytes[t] += varintBytes((i - lastSlot[t] - 1) * 2 + 1) + more;
        lastSlot[t] = i;
        df[t]++;
      }
      seqTerms += seqStart[i + 1] - seqStart[i];
    }
    const postings = (this.postings = new PostingPool());
    postings.allocate(postBytes);
    const fPool = (this.fPool = new Uint8Array(fBytes));
    // Sequences take about a third of a byte a term (term-sequence.ts); the room left over is given back below.
    const seqs = (this.seqs = new SequencePool());
    seqs.reserve(Math.ceil(seqTerms / 2) + ids.length, true);
    const n = ids.length;
    this.lens = new Uint32Array(n);
    this.asked = new Uint8Array(n);
    this.isPart = new Uint8Array(n);
    this.fStart = new Uint32Array(n);
    this.fCount = new Uint32Array(n);
    this.sStart = new Uint32Array(n);
    this.sCount = new Uint32Array(n);
    this.acc = new Float64Array(n);
    let fTop = 0;
    for (let i = 0; i < n; i++) {
      const slot = this.newSlot(ids[i], p.len[i], p.asks[i] === 1, p.threads[i] ?? undefined);
      this.fStart[slot] = fTop;
      this.fCount[slot] = start[i + 1] - start[i];
      for (let k = start[i], z = start[i + 1]; k < z; k++) {
        const t = term[k];
        const c = tf[k];
        fTop = writeVarint(fPool, fTop, t * 2 + (c > 1 ? 1 : 0));
        if (c > 1) fTop = writeVarint(fPool, fTop, c);
        postings.append(t, slot, c);
        placeOf[t] = k - start[i] + 1;
      }
      this.sStart[slot] = seqs.append(seq, placeOf, start[i + 1] - start[i], seqStart[i], seqStart[i + 1]);
      this.sCount[slot] = seqStart[i + 1] - seqStart[i];
      for (let k = start[i], z = start[i + 1]; k < z; k++) placeOf[term[k]] = 0;
    }
    seqs.trim();
    this.fTop = fTop;
  }

  /**
   * Loads a persisted `exportDocs` result (the items `itemIds`, in the pack's order) as it is: its pools become the
   * index's, and the documents of items not in `entries` (places in `itemIds`: changed or held since the pack) are
   * removed again. Results are the same as `addItem` for each kept item, in the pack's order. On an empty index,
   * before anything else is added; `p` must have passed the pack's checks (lib/memory/pack.ts `wellFormed`).
   */
  loadPacked(p: LexiconPools, terms: string[], entries: number[], itemIds: string[]): void {
    if (this.ids.length || this.termStr.length) throw new Error('loadPacked needs an empty index');
    const T = terms.length;
    this.termStr = terms.slice();
    this.termId = new Map();
    for (let t = 0; t < T; t++) this.termId.set(terms[t], t);
    this.df = Int32Array.from(p.postCount);
    this.placeOf = new Uint32Array(T);
    this.postings = new PostingPool();
    this.postings.adopt({ bytes: p.post, start: p.postStart, count: p.postCount.slice(), last: p.postLast.slice() });
    this.fPool = p.fPool;
    this.fTop = p.fPool.length;
    this.seqs = new SequencePool();
    this.seqs.bytes = p.seqs;
    this.seqs.top = p.seqs.length;
    const n = p.len.length;
    this.lens = new Uint32Array(n);
    this.asked = new Uint8Array(n);
    this.isPart = new Uint8Array(n);
    this.fStart = p.fStart;
    this.fCount = p.fCount;
    this.sStart = p.sStart;
    this.sCount = p.sCount;
    this.acc = new Float64Array(n);
    itemIds.forEach((id, i) => {
      const from = p.items[i];
      const parts = p.items[i + 1] - from;
      if (parts > 1) this.partsOf.set(id, parts);
      for (let k = 0; k < parts; k++) this.newSlot(passageKey(id, k), p.len[from + k], p.asks[from + k] === 1, p.threads[from + k] ?? undefined);
    });
    // Documents of items changed or held since the pack: dead slots, as a removal leaves them.
    const kept = new Uint8Array(itemIds.length);
    for (const i of entries) kept[i] = 1;
    itemIds.forEach((id, i) => {
      if (!kept[i]) this.remove(id);
    });
  }
}
