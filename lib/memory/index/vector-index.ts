/**
 * Embeddings held for ranking as int8 codes with one float scale per vector, in two typed arrays that grow by
 * half: 384 + 4 bytes per item instead of 1,536 (float32), and one tight loop to score them all.
 *
 * v ~ codes * scale, scale = max|v| / 127. Cosine error against the float vector is about 1e-3 (the vectors are
 * unit length). Deleting moves the last slot into the hole, so the arrays stay dense.
 */
import { int8Dots, type Int8Dots } from '../../embed/int8-dots';
import { kthLargest } from '../../core/kth-largest';

/** Buckets of `VectorIndex.bestSlots` over [-1, 1]. */
const BUCKETS = 4096;

/** The bucket of a score: non-decreasing in it (scores beyond ±1 go to the end buckets). `bestSlots` relies on its scale. */
function bucketOf(v: number): number {
  const t = (v + 1) * (BUCKETS / 2);
  return t <= 0 ? 0 : t >= BUCKETS ? BUCKETS - 1 : t | 0;
}

/**
 * Embeddings held for ranking as int8 codes with one float scale per vector, in typed arrays that grow by half:
 * 384 + 4 bytes per item instead of 1,536 (float32), and one tight loop to score them all.
 *
 * v ~ codes * scale, scale = max|v| / 127. Cosine error against the float vector is about 1e-3 (the vectors are
 * unit length). Deleting moves the last slot into the hole, so the arrays stay dense.
 *
 * The arrays live in one buffer laid out for the WebAssembly SIMD loop (lib/embed/int8-dots.ts): the query as int16,
 * the scales, a score per slot (scratch for the pass's output), then the codes. Where WebAssembly SIMD is missing the
 * same buffer is an ordinary ArrayBuffer and a JavaScript loop scores it.
 */
export class VectorIndex {
  private codes!: Int8Array;
  private scales!: Float32Array;
  private out!: Float32Array;
  private q16!: Int16Array;
  private wasm: Int8Dots | null = null;
  private ids: string[] = [];
  private slots = new Map<string, number>();
  /**
   * Each slot's group (`groupOf` of its id), made when the vector is stored: `scores` keeps the best of a group under
   * its key, and working the key out of every id at every pass cost the ranker a string search and a copy per slot.
   */
  private groups: string[] = [];
  /**
   * Scratch for the top-`limit` cut in `bestSlots` (quickselect reorders it): Float64 as every other cut's, so the
   * shared quickselect sees one kind of array (a second kind had V8 drop the compiled `bestSlots` again and again).
   */
  private cutScratch = new Float64Array(0);
  /** Scratch of `bestSlots`: bucket counts and the slots at or above the cut's bucket. */
  private bucketCounts?: Int32Array;
  private bestScratch = new Int32Array(0);

  /** The dimension is taken from the first vector stored while the index is empty (384 for the bundled model). */
  dim: number;

  /** `groupOf`: the group a vector's id belongs to (an item's passages under the item); by default the id itself. */
  constructor(dim = 384, capacity = 1024, private readonly groupOf: (id: string) => string = (id) => id) {
    this.dim = dim;
    this.allocate(capacity);
  }

  /** Lays out a buffer for `cap` vectors and copies what is stored into it. */
  private allocate(cap: number): void {
    const dim = this.dim;
    const qBytes = Math.ceil((dim * 2) / 16) * 16;
    const bytes = qBytes + cap * 8 + cap * dim;
    // SIMD needs whole 16-dimension turns; other sizes (tests, other models) take the JavaScript loop.
    const wasm = dim % 16 === 0 ? int8Dots(bytes) : null;
    const buf = wasm ? wasm.memory.buffer : new ArrayBuffer(bytes);
    const q16 = new Int16Array(buf, 0, dim);
    const scales = new Float32Array(buf, qBytes, cap);
    const out = new Float32Array(buf, qBytes + cap * 4, cap);
    const codes = new Int8Array(buf, qBytes + cap * 8, cap * dim);
    const n = this.ids.length;
    if (n && this.codes) {
      codes.set(this.codes.subarray(0, n * dim));
      scales.set(this.scales.subarray(0, n));
    }
    Object.assign(this, { wasm, q16, scales, out, codes });
  }

  /** `groupOf(id)`, as the string the group's own vector is stored under when there is one (one copy of each key held). */
  private groupKey(id: string): string {
    const key = this.groupOf(id);
    const own = this.slots.get(key);
    return own === undefined ? key : this.ids[own];
  }

  get size(): number {
    return this.ids.length;
  }
  has(id: string): boolean {
    return this.slots.has(id);
  }
  /** Bytes of vector payload held (codes + scales) per stored vector; the float32 equivalent is 4 * dim. */
  static bytesPerVector(dim = 384): number {
    return dim + 4;
  }
  /** Bytes allocated for the vectors (capacity, not just size), the scratch scores included. */
  allocatedBytes(): number {
    return this.codes.byteLength + this.scales.byteLength + this.out.byteLength;
  }

  set(id: string, v: Float32Array): void {
    if (!this.ids.length && v.length !== this.dim) {
      this.dim = v.length;
      this.allocate(this.scales.length);
    }
    if (v.length !== this.dim) return; // a vector of another model: left out of the dense pass, as before
    let slot = this.slots.get(id);
    if (slot === undefined) {
      slot = this.ids.length;
      if (slot >= this.scales.length) this.grow();
      this.ids.push(id);
      this.groups.push(this.groupKey(id));
      this.slots.set(id, slot);
    }
    let m = 0;
    for (let i = 0; i < v.length; i++) {
      const a = v[i] < 0 ? -v[i] : v[i];
      if (a > m) m = a;
    }
    const scale = m / 127 || 1;
    const inv = 1 / scale;
    const o = slot * this.dim;
    for (let i = 0; i < v.length; i++) this.codes[o + i] = Math.round(v[i] * inv);
    this.scales[slot] = scale;
  }

  delete(id: string): void {
    const slot = this.slots.get(id);
    if (slot === undefined) return;
    const last = this.ids.length - 1;
    if (slot !== last) {
      const lastId = this.ids[last];
      this.codes.copyWithin(slot * this.dim, last * this.dim, (last + 1) * this.dim);
      this.scales[slot] = this.scales[last];
      this.ids[slot] = lastId;
      this.groups[slot] = this.groups[last];
      this.slots.set(lastId, slot);
    }
    this.ids.pop();
    this.groups.pop();
    this.slots.delete(id);
  }

  clear(): void {
    this.ids = [];
    this.groups = [];
    this.slots.clear();
  }

  /** Gives back the room beyond the stored vectors (called once a load or an import is done). */
  trim(): void {
    if (this.scales.length > this.ids.length) this.allocate(Math.max(16, this.ids.length));
  }

  /** The codes and scales of the stored vectors, slot order, trimmed to size (copies), for persisting. */
  packed(): { ids: string[]; dim: number; codes: Int8Array; scales: Float32Array } {
    const n = this.ids.length;
    return { ids: this.ids.slice(), dim: this.dim, codes: this.codes.slice(0, n * this.dim), scales: this.scales.slice(0, n) };
  }

  /**
   * Adds already-quantised vectors (as `packed()` gave them): `slots[k]` is the packed slot of `ids[k]`. No
   * re-quantising, one copy per vector; a start with a persisted pack loads 10k vectors in a few milliseconds.
   */
  addPacked(ids: string[], slots: ArrayLike<number>, dim: number, codes: Int8Array, scales: Float32Array): void {
    if (!ids.length) return;
    if (!this.ids.length && dim !== this.dim) {
      this.dim = dim;
      this.allocate(this.scales.length);
    }
    if (dim !== this.dim) return;
    // Room for exactly these (a pack's load): no unused tail left behind by doubling.
    if (this.scales.length < this.ids.length + ids.length) this.allocate(this.ids.length + ids.length);
    for (let k = 0; k < ids.length; k++) {
      const id = ids[k];
      let slot = this.slots.get(id);
      if (slot === undefined) {
        slot = this.ids.length;
        this.ids.push(id);
        this.groups.push(this.groupKey(id));
        this.slots.set(id, slot);
      }
      const from = slots[k];
      this.codes.set(codes.subarray(from * dim, (from + 1) * dim), slot * dim);
      this.scales[slot] = scales[from];
    }
  }

  /** The vector as stored (dequantised, not renormalised). */
  get(id: string): Float32Array | undefined {
    const slot = this.slots.get(id);
    if (slot === undefined) return undefined;
    const v = new Float32Array(this.dim);
    const s = this.scales[slot];
    const o = slot * this.dim;
    for (let i = 0; i < this.dim; i++) v[i] = this.codes[o + i] * s;
    return v;
  }

  *entries(): Iterable<[string, Float32Array]> {
    for (const id of this.ids) yield [id, this.get(id)!];
  }

  /** The weighted mean of the queries (cosine is linear in the query), or null when there is none of this size. */
  private combinedQuery(queries: Float32Array[], weights: number[]): Float32Array | null {
    if (!queries.length) return null;
    const dim = this.dim;
    const q = new Float32Array(dim);
    const wsum = weights.reduce((a, b) => a + b, 0) || 1;
    for (let j = 0; j < queries.length; j++) {
      if (queries[j].length !== dim) return null;
      const w = (weights[j] ?? 0) / wsum;
      for (let i = 0; i < dim; i++) q[i] += w * queries[j][i];
    }
    return q;
  }

  /** Cosine of a (combined) query with the vector in slot k, from its int8 codes and scale. */
  private scoreSlot(q: Float32Array, k: number): number {
    const dim = this.dim;
    const codes = this.codes;
    const o = k * dim;
    let s = 0;
    let i = 0;
    for (; i + 3 < dim; i += 4) s += q[i] * codes[o + i] + q[i + 1] * codes[o + i + 1] + q[i + 2] * codes[o + i + 2] + q[i + 3] * codes[o + i + 3];
    for (; i < dim; i++) s += q[i] * codes[o + i];
    return s * this.scales[k];
  }

  /**
   * Weighted mean cosine with several query vectors, Σ w_i cos(q_i, v) / Σ w_i, for every stored vector. Because it
   * is linear in the queries it is one dot product per item with the combined query. With `limit`, only the best
   * `limit` scores are returned (ties at the cut kept). With `grouped`, the scores are keyed by each vector's group
   * (`groupOf`) instead of its id, the best of a group kept (an item's passages under the item), in one map.
   */
  scores(queries: Float32Array[], weights: number[], limit = Infinity, grouped = false): Map<string, number> {
    const out = new Map<string, number>();
    const n = this.ids.length;
    const q = n ? this.combinedQuery(queries, weights) : null;
    if (!q) return out;
    const all = this.scoreAll(q);
    const keys = grouped ? this.groups : this.ids;
    // One function whichever the keys, so the loops below stay monomorphic.
    const put = (k: number) => {
      if (!grouped) return void out.set(keys[k], all[k]);
      const had = out.get(keys[k]);
      if (had === undefined || all[k] > had) out.set(keys[k], all[k]);
    };
    if (limit >= n) {
      for (let k = 0; k < n; k++) put(k);
      return out;
    }
    const best = this.bestSlots(all, limit);
    if (best) {
      for (let i = 0; i < best.length; i++) put(best[i]);
      return out;
    }
    // A NaN score (a broken vector): the rare path, copying every score.
    const cut = kthLargest(Float64Array.from(all), limit);
    for (let k = 0; k < n; k++) if (all[k] >= cut) put(k);
    return out;
  }

  /**
   * The slots of the `limit` best scores (all those equal to the `limit`-th best included), in slot order, or null
   * when a score is NaN. Scores are counted into fixed buckets over [-1, 1] (monotone: a higher bucket holds only
   * higher scores), so the cut is found among the few scores of one bucket instead of by a quickselect over all.
   */
  private bestSlots(all: Float32Array, limit: number): Int32Array | null {
    const B = BUCKETS;
    const counts = (this.bucketCounts ??= new Int32Array(B));
    counts.fill(0);
    const n = all.length;
    for (let k = 0; k < n; k++) {
      const v = all[k];
      if (v !== v) return null;
      counts[bucketOf(v)]++;
    }
    let b = B - 1;
    let above = 0;
    while (above + counts[b] < limit) above += counts[b--];
    // Slots in buckets from b up, in slot order; the cut is the (limit - above)-th best of bucket b.
    if (this.bestScratch.length < n) this.bestScratch = new Int32Array(this.scales.length);
    if (this.cutScratch.length < counts[b]) this.cutScratch = new Float64Array(Math.max(counts[b], 2 * this.cutScratch.length));
    const list = this.bestScratch;
    const inCut = this.cutScratch;
    let m = 0;
    let c = 0;
    // `bucketOf(v) >= b` and `=== b` as bounds on its scaled score: one comparison for most slots.
    const lo = b > 0 ? b : -Infinity;
    const hi = b < B - 1 ? b + 1 : Infinity;
    for (let k = 0; k < n; k++) {
      const t = (all[k] + 1) * (B / 2);
      if (t < lo) continue;
      list[m++] = k;
      if (t < hi) inCut[c++] = all[k];
    }
    const cut = kthLargest(inCut.subarray(0, c), limit - above);
    let kept = 0;
    for (let i = 0; i < m; i++) if (all[list[i]] >= cut) list[kept++] = list[i];
    return list.subarray(0, kept);
  }

  /**
   * Scores of every slot (a view of the scratch buffer, valid until the next pass). The query is held as int16 (its
   * own rounding error is about 1e-5, far below the codes' 1e-3) so the SIMD loop multiplies integers only.
   */
  private scoreAll(q: Float32Array): Float32Array {
    const n = this.ids.length;
    const dim = this.dim;
    const all = this.out.subarray(0, n);
    if (!this.wasm) {
      for (let k = 0; k < n; k++) all[k] = this.scoreSlot(q, k);
      return all;
    }
    let m = 0;
    for (let i = 0; i < dim; i++) m = Math.max(m, Math.abs(q[i]));
    const qscale = m / 32767 || 1;
    for (let i = 0; i < dim; i++) this.q16[i] = Math.round(q[i] / qscale);
    this.wasm.dots(this.q16.byteOffset, this.codes.byteOffset, this.scales.byteOffset, this.out.byteOffset, n, dim, qscale);
    return all;
  }

  /** `scores` for the given ids only, in their order (0 for an id not stored): no decoding, no allocation per id. */
  scoresOf(ids: readonly string[], queries: Float32Array[], weights: number[]): number[] {
    const q = this.ids.length ? this.combinedQuery(queries, weights) : null;
    if (!q) return ids.map(() => 0);
    return ids.map((id) => {
      const k = this.slots.get(id);
      return k === undefined ? 0 : this.scoreSlot(q, k);
    });
  }

  /** `scores` for the given ids only (those stored): no decoding, no allocation per item. */
  scoresFor(ids: Iterable<string>, queries: Float32Array[], weights: number[]): Map<string, number> {
    const out = new Map<string, number>();
    const q = this.ids.length ? this.combinedQuery(queries, weights) : null;
    if (!q) return out;
    for (const id of ids) {
      const k = this.slots.get(id);
      if (k === undefined) continue;
      out.set(id, this.scoreSlot(q, k));
    }
    return out;
  }

  /** By half, not doubling: at 100k items the codes are tens of MB and the unused tail is a third smaller on average. */
  private grow(): void {
    this.allocate(Math.max(1024, Math.ceil(this.scales.length * 1.5)));
  }
}
