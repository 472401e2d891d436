/**
 * Doc slots holding a term, in slot order, with the term's count in each, as variable-length bytes: each entry is
 * the gap from the slot before it (less one) shifted left by one, the low bit set when the count is above 1, then
 * the count itself when it is. Most entries take one or two bytes instead of the six of a slot (Int32) and a count
 * (Uint16): postings are most of a BM25 index's memory. Slots only ever grow along a posting (documents get new
 * slots; compaction renumbers in order), so gaps are never negative. Read with `PostingReader`.
 */
export interface Posting {
  bytes: Uint8Array;
  /** Bytes used. */
  end: number;
  /** Entries. */
  n: number;
  /** The last slot appended (-1: none). */
  last: number;
}

/** The largest count a posting holds; more of one term in one item counts as this many. */
export const MAX_TF = 65535;

export function newPosting(capacity = 4): Posting {
  return { bytes: new Uint8Array(capacity), end: 0, n: 0, last: -1 };
}

/** Appends `slot` (above every slot in `p`) with count `tf` (1..MAX_TF). */
export function appendPosting(p: Posting, slot: number, tf: number): void {
  const v = (slot - p.last - 1) * 2 + (tf > 1 ? 1 : 0);
  const need = p.end + varintBytes(v) + (tf > 1 ? varintBytes(tf) : 0);
  if (need > p.bytes.length) p.bytes = grown(p.bytes, need);
  p.end = writeVarint(p.bytes, p.end, v);
  if (tf > 1) p.end = writeVarint(p.bytes, p.end, tf);
  p.last = slot;
  p.n++;
}

/** A posting made of slots in increasing order and their counts. */
export function postingOf(slots: ArrayLike<number>, tfs: ArrayLike<number>): Posting {
  const p = newPosting(slots.length * 2 + 8);
  for (let i = 0; i < slots.length; i++) appendPosting(p, slots[i], tfs[i]);
  return p;
}

/** Where a posting's entries are: `n` of them from byte `start` of `bytes` (a posting of its own starts at 0). */
export interface PostingView {
  bytes: Uint8Array;
  start?: number;
  n: number;
}

/** Walks a posting: `next()` moves to the following entry and sets `slot` and `tf`. Reusable (`reset`). */
export class PostingReader {
  slot = -1;
  tf = 0;
  private bytes: Uint8Array = EMPTY;
  private pos = 0;
  private left = 0;

  reset(p: PostingView): this {
    this.bytes = p.bytes;
    this.pos = p.start ?? 0;
    this.left = p.n;
    this.slot = -1;
    this.tf = 0;
    return this;
  }

  /** False when the posting is exhausted. */
  next(): boolean {
    if (this.left === 0) return false;
    this.left--;
    const b = this.bytes;
    let x = b[this.pos++];
    if (x > 127) x = this.rest(x);
    this.slot += (x >>> 1) + 1;
    if (x & 1) {
      let t = b[this.pos++];
      if (t > 127) t = this.rest(t);
      this.tf = t;
    } else this.tf = 1;
    return true;
  }

  /** The remaining bytes of a value whose first byte is `first` (above 127). */
  private rest(first: number): number {
    const b = this.bytes;
    let x = first & 127;
    let shift = 7;
    let c: number;
    do {
      c = b[this.pos++];
      // Integer arithmetic where it fits (slot gaps and counts do): `2 ** shift` is a float, and a float returned
      // from here was a new heap number for every long gap a search walked.
      x += (c & 127) * (shift < 31 ? 1 << shift : 2 ** shift);
      shift += 7;
    } while (c > 127);
    return x;
  }
}

const EMPTY = new Uint8Array(0);

/** Writes `v` (a non-negative integer) as 7-bit groups, low first, the high bit set on all but the last; returns the end. */
export function writeVarint(bytes: Uint8Array, at: number, v: number): number {
  // The one- and two-byte cases (most term numbers, gaps and counts) in place: this runs for every term of every
  // item when an index is built or loaded from the pack.
  if (v < 128) {
    bytes[at] = v;
    return at + 1;
  }
  if (v < 16384) {
    bytes[at] = (v & 127) | 128;
    bytes[at + 1] = v >>> 7;
    return at + 2;
  }
  while (v > 127) {
    bytes[at++] = (v & 127) | 128;
    v = Math.floor(v / 128);
  }
  bytes[at++] = v;
  return at;
}

/** Bytes `writeVarint` takes for `v`. */
export function varintBytes(v: number): number {
  if (v < 128) return 1;
  if (v < 16384) return 2;
  let n = 1;
  while (v > 127) {
    v = Math.floor(v / 128);
    n++;
  }
  return n;
}

/** Reads a `writeVarint` value at `cursor.at`, moving the cursor past it. */
export function readVarint(bytes: Uint8Array, cursor: { at: number }): number {
  let x = 0;
  let mul = 1;
  let c: number;
  do {
    c = bytes[cursor.at++];
    x += (c & 127) * mul;
    mul *= 128;
  } while (c > 127);
  return x;
}

/**
 * `a`, or a copy of it at least `need` long, for arrays that grow one entry at a time. Growing by half (not by
 * doubling) keeps the unused tail of the large pools a third smaller on average, at the cost of a few more copies.
 */
export function grown<T extends Uint32Array | Uint16Array | Uint8Array | Int32Array | Float64Array>(a: T, need: number): T {
  if (need <= a.length) return a;
  let cap = Math.max(16, Math.ceil(a.length * 1.5));
  while (cap < need) cap = Math.ceil(cap * 1.5);
  const b = new (a.constructor as new (n: number) => T)(cap);
  b.set(a);
  return b;
}

/**
 * Every term's postings (entries as in `Posting`) in one byte pool, each term a stretch of it, with per-term numbers
 * in typed arrays. A posting object per term cost about 250 bytes of objects (the posting, its Uint8Array and
 * ArrayBuffer) whatever its length, more than most terms' entries: a memory's vocabulary is mostly rare words. A
 * stretch that fills up moves to the end of the pool with room to grow by half (or grows in place when it is last);
 * the room it leaves is reclaimed when such room passes an eighth of the pool, and by `trim`. The pool itself grows
 * by an eighth: between two trims (items saved one by one) it holds about what separate buffers held.
 */
export class PostingPool {
  bytes: Uint8Array = new Uint8Array(0);
  /** End of the used part of `bytes`. */
  private top = 0;
  /** Bytes of stretches left behind by moves. */
  private left = 0;
  /** Per term: its stretch [start, cap), the bytes used up to end, its entries and its last slot. */
  private start = new Uint32Array(0);
  private end = new Uint32Array(0);
  private cap = new Uint32Array(0);
  private count = new Uint32Array(0);
  private last = new Int32Array(0);

  /** Entries of term `t` (dead slots included). */
  n(t: number): number {
    return t < this.count.length ? this.count[t] : 0;
  }

  /** Term `t`'s entries for a `PostingReader`; valid until the pool changes. */
  view(t: number): PostingView {
    // A term past those held has no postings (read as none, not as whatever bytes follow).
    return t < this.count.length ? { bytes: this.bytes, start: this.start[t], n: this.count[t] } : { bytes: this.bytes, start: 0, n: 0 };
  }

  /** Appends `slot` (above every slot of term `t`) with count `tf` (1..MAX_TF). */
  append(t: number, slot: number, tf: number): void {
    if (t >= this.count.length) this.growTerms(t + 1);
    const prev = this.count[t] ? this.last[t] : -1;
    const v = (slot - prev - 1) * 2 + (tf > 1 ? 1 : 0);
    const need = varintBytes(v) + (tf > 1 ? varintBytes(tf) : 0);
    if (this.end[t] + need > this.cap[t]) this.move(t, need);
    let at = writeVarint(this.bytes, this.end[t], v);
    if (tf > 1) at = writeVarint(this.bytes, at, tf);
    this.end[t] = at;
    this.last[t] = slot;
    this.count[t]++;
  }

  /**
   * Makes the pool hold each term's entries as `sizes[t]` bytes (exactly what will be written), every stretch empty:
   * a load writes into it with `write` and nothing is moved or left over.
   */
  allocate(sizes: Uint32Array): void {
    this.growTerms(sizes.length);
    let at = 0;
    for (let t = 0; t < sizes.length; t++) {
      this.start[t] = this.end[t] = at;
      at += sizes[t];
      this.cap[t] = at;
      this.count[t] = 0;
    }
    this.bytes = new Uint8Array(at);
    this.top = at;
    this.left = 0;
  }

  /** Gives back unused room: every stretch exactly its entries, the pool exactly their sum. */
  trim(): void {
    this.repack(false);
  }

  /**
   * The postings of terms 0 .. `terms` - 1 as one piece, for the store's pack: term t's entries are bytes start[t] ..
   * start[t + 1] of `bytes` (the pool trimmed, so stretches follow each other in term order).
   */
  packed(terms: number): { bytes: Uint8Array<ArrayBuffer>; start: Uint32Array<ArrayBuffer>; count: Uint32Array<ArrayBuffer>; last: Int32Array<ArrayBuffer> } {
    this.growTerms(terms);
    this.trim();
    const start = new Uint32Array(terms + 1);
    start.set(this.start.subarray(0, terms));
    start[terms] = terms < this.count.length ? this.start[terms] : this.top;
    const bytes = this.bytes.length === start[terms] && this.bytes.buffer instanceof ArrayBuffer ? (this.bytes as Uint8Array<ArrayBuffer>) : this.bytes.slice(0, start[terms]);
    return { bytes, start, count: this.count.slice(0, terms), last: this.last.slice(0, terms) };
  }

  /** Holds `packed`'s result (from the store's pack, checked: lib/memory/pack.ts), its arrays taken as they are. */
  adopt(p: { bytes: Uint8Array; start: Uint32Array<ArrayBuffer>; count: Uint32Array<ArrayBuffer>; last: Int32Array<ArrayBuffer> }): void {
    const terms = p.count.length;
    this.bytes = p.bytes;
    this.start = p.start.slice(0, terms);
    this.end = p.start.slice(1);
    this.cap = p.start.slice(1);
    this.count = p.count;
    this.last = p.last;
    this.top = p.bytes.length;
    this.left = 0;
  }

  private growTerms(need: number): void {
    const n = Math.max(need, Math.ceil(this.count.length * 1.5));
    this.start = grownTo(this.start, n);
    this.end = grownTo(this.end, n);
    this.cap = grownTo(this.cap, n);
    this.count = grownTo(this.count, n);
    this.last = grownTo(this.last, n);
  }

  /** Gives term `t` a stretch with room for `need` more bytes and half again. */
  private move(t: number, need: number): void {
    const used = this.end[t] - this.start[t];
    const size = Math.max(4, Math.ceil((used + need) * 1.5));
    if (this.cap[t] === this.top) {
      // The last stretch grows where it is.
      this.reserve(this.start[t] + size);
      this.top = this.cap[t] = this.start[t] + size;
      return;
    }
    if (this.left > 65536 && this.left * 8 > this.top) this.repack(true);
    this.reserve(this.top + size);
    this.bytes.copyWithin(this.top, this.start[t], this.end[t]);
    this.left += this.cap[t] - this.start[t];
    this.start[t] = this.top;
    this.end[t] = this.top + used;
    this.top = this.cap[t] = this.top + size;
  }

  /** Makes `bytes` at least `need` long, growing it by an eighth at least. */
  private reserve(need: number): void {
    if (need <= this.bytes.length) return;
    const bytes = new Uint8Array(Math.max(need, this.bytes.length + (this.bytes.length >>> 3), 1024));
    bytes.set(this.bytes.subarray(0, this.top));
    this.bytes = bytes;
  }

  /**
   * Copies every stretch, in term order, into a pool without the room moves left behind: each stretch keeps its own
   * room to grow when `keepRoom` (else a stretch would move again on its next entry), none when trimming.
   */
  private repack(keepRoom: boolean): void {
    let total = 0;
    const terms = this.count.length;
    for (let t = 0; t < terms; t++) total += (keepRoom ? this.cap[t] : this.end[t]) - this.start[t];
    const bytes = new Uint8Array(total);
    let at = 0;
    for (let t = 0; t < terms; t++) {
      const used = this.end[t] - this.start[t];
      const size = keepRoom ? this.cap[t] - this.start[t] : used;
      bytes.set(this.bytes.subarray(this.start[t], this.end[t]), at);
      this.start[t] = at;
      this.end[t] = at + used;
      this.cap[t] = at + size;
      at += size;
    }
    this.bytes = bytes;
    this.top = at;
    this.left = 0;
  }
}

/** A copy of `a` of length `n` (its values first, zeros after). */
function grownTo<T extends Uint32Array | Int32Array>(a: T, n: number): T {
  if (n <= a.length) return a;
  const b = new (a.constructor as new (n: number) => T)(n);
  b.set(a);
  return b;
}
