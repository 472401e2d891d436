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

/** Walks a posting: `next()` moves to the following entry and sets `slot` and `tf`. Reusable (`reset`). */
export class PostingReader {
  slot = -1;
  tf = 0;
  private bytes: Uint8Array = EMPTY;
  private pos = 0;
  private left = 0;

  reset(p: Posting): this {
    this.bytes = p.bytes;
    this.pos = 0;
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
      x += (c & 127) * 2 ** shift;
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
