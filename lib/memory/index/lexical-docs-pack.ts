import { LexicalDocs } from './lexical-docs';
import type { PackedLexicon } from './lexical-pack';
import { passageKey } from './passages';
import { PostingPool, varintBytes, writeVarint } from './posting';
import { SequencePool } from './term-sequence';

/**
 * The documents of a BM25 index written out in one piece for the store's pack, and loaded back from it: the
 * tokenising, stemming and phrase work is done once, and a later start only re-inserts the counts.
 */
export class PackableLexicalDocs extends LexicalDocs {
  /**
   * The documents of `ids` (in that order) as flat arrays, for persisting the index: the tokenising, stemming and
   * phrase work is done once and a later start only re-inserts the counts (IndexedDB stays the truth; the store
   * checks each item against a fingerprint before it uses its entry). Ids not indexed get an empty entry.
   */
  exportDocs(items: string[]): PackedLexicon {
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
    // Term numbers in 16 bits while the lexicon allows it (10k notes use about 20,000 terms): a start reads the
    // pack whole, and this makes it about a sixth smaller.
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
    // One string instead of hundreds of thousands: IndexedDB clones it in one piece.
    return { terms: terms.join('\u0000'), items: itemStart, start, term, tf, len, asks, threads, seqStart, seq };
  }

  /** Indexes item `i` of an `exportDocs` result under `id` (`terms` split once by the caller: `packedTerms`). */
  addPacked(id: string, p: PackedLexicon, terms: string[], item: number): void {
    this.remove(id);
    const from = p.items[item];
    const n = p.items[item + 1] - from;
    if (n > 1) this.partsOf.set(id, n); // before its slots are made (isPart)
    for (let k = 0; k < n; k++) this.addPackedDoc(passageKey(id, k), p, terms, from + k);
  }

  private addPackedDoc(id: string, p: PackedLexicon, terms: string[], i: number): void {
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
  loadPacked(p: PackedLexicon, terms: string[], items: number[], itemIds: string[]): void {
    if (this.ids.length || this.termStr.length) throw new Error('loadPacked needs an empty index');
    // The items' documents: one per passage.
    const entries: number[] = [];
    const ids: string[] = [];
    items.forEach((i, d) => {
      const n = p.items[i + 1] - p.items[i];
      for (let k = 0; k < n; k++) {
        entries.push(p.items[i] + k);
        ids.push(passageKey(itemIds[d], k));
      }
      if (n > 1) this.partsOf.set(itemIds[d], n);
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
    for (let slot = 0; slot < entries.length; slot++) {
      const i = entries[slot];
      for (let k = start[i], z = start[i + 1]; k < z; k++) {
        const t = term[k];
        const c = tf[k];
        const more = c > 1 ? varintBytes(c) : 0;
        fBytes += varintBytes(t * 2 + 1) + more;
        postBytes[t] += varintBytes((slot - lastSlot[t] - 1) * 2 + 1) + more;
        lastSlot[t] = slot;
        df[t]++;
      }
      seqTerms += seqStart[i + 1] - seqStart[i];
    }
    const postings = (this.postings = new PostingPool());
    postings.allocate(postBytes);
    const fPool = (this.fPool = new Uint8Array(fBytes));
    // Sequences take about a third of a byte a term (term-sequence.ts); the room left over is given back below.
    const seqs = (this.seqs = new SequencePool());
    seqs.reserve(Math.ceil(seqTerms / 2) + entries.length, true);
    const n = entries.length;
    this.lens = new Uint32Array(n);
    this.asked = new Uint8Array(n);
    this.isPart = new Uint8Array(n);
    this.fStart = new Uint32Array(n);
    this.fCount = new Uint32Array(n);
    this.sStart = new Uint32Array(n);
    this.sCount = new Uint32Array(n);
    this.acc = new Float64Array(n);
    let fTop = 0;
    for (let d = 0; d < n; d++) {
      const i = entries[d];
      const slot = this.newSlot(ids[d], p.len[i], p.asks[i] === 1, p.threads[i] ?? undefined);
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
}
