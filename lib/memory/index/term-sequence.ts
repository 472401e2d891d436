/**
 * Each document's body as a sequence of terms (what phrases are counted from), held as places in the document's own
 * list of distinct terms rather than as term numbers. That list is in the order terms first occur, so a body mostly
 * names a new term right after the furthest one it has named: such a term takes one bit (0). Any other takes a 1 and
 * its place in as many bits as the list's length needs; a term the list lacks (only from a damaged pack or a caller's
 * own phrase source) takes the code one past the list and its number in 32 bits. About a third of a byte per word,
 * where a term number took two: the sequences were the largest part of a BM25 index.
 */
export class SequencePool {
  bytes: Uint8Array = new Uint8Array(0);
  /** End of the used part of `bytes`. */
  top = 0;
  private acc = 0;
  private bits = 0;

  /**
   * Appends `seq` (term numbers) and returns the byte it starts at. `placeOf[t]` is term t's place in the document's
   * list plus one (0: not in it); `distinct` is the list's length. `from`/`to`: a stretch of `seq` only.
   */
  append(seq: ArrayLike<number>, placeOf: ArrayLike<number>, distinct: number, from = 0, to = seq.length): number {
    const at = this.top;
    const w = widthFor(distinct);
    let next = 0;
    for (let i = from; i < to; i++) {
      const place = placeOf[seq[i]] - 1;
      if (place === next) {
        this.put(0, 1);
        next++;
      } else if (place >= 0) {
        this.put(1, 1);
        this.putWide(place, w);
        if (place >= next) next = place + 1;
      } else {
        this.put(1, 1);
        this.putWide(distinct, w);
        this.put(seq[i] & 0xffff, 16);
        this.put(seq[i] >>> 16, 16);
      }
    }
    if (this.bits) this.flush(1);
    return at;
  }

  /** Gives back unused room. */
  trim(): void {
    if (this.bytes.length > this.top) this.bytes = this.bytes.slice(0, this.top);
  }

  /** Ensures room for `n` more bytes: by half again when it runs out (as `grown`), or exactly when `exact`. */
  reserve(n: number, exact = false): void {
    const need = this.top + n;
    if (need <= this.bytes.length) return;
    let cap = exact ? need : Math.max(16, Math.ceil(this.bytes.length * 1.5));
    while (cap < need) cap = Math.ceil(cap * 1.5);
    const b = new Uint8Array(cap);
    b.set(this.bytes.subarray(0, this.top));
    this.bytes = b;
  }

  private putWide(v: number, n: number): void {
    if (n <= 16) return this.put(v, n);
    this.put(v & 0xffff, 16);
    this.put(v >>> 16, n - 16);
  }

  /** Writes the low `n` (≤ 16) bits of `v`, low bit first. */
  private put(v: number, n: number): void {
    this.acc |= (v & ((1 << n) - 1)) << this.bits;
    this.bits += n;
    if (this.bits >= 8) this.flush(8);
  }

  /** Moves whole bytes (or, at the end of a sequence, the last part of one: `min` 1) of the bits out to the pool. */
  private flush(min: number): void {
    while (this.bits >= min) {
      if (this.top >= this.bytes.length) this.reserve(1);
      this.bytes[this.top++] = this.acc & 255;
      this.acc >>>= 8;
      this.bits = Math.max(0, this.bits - 8);
    }
  }
}

/**
 * How often the term at place `a` is directly followed by the term at place `b` in the `count` terms written at byte
 * `at` for a list of `distinct` terms: `SequenceReader` unrolled into locals, as a query's phrase is counted in every
 * item holding both its words.
 */
export function countPairs(bytes: Uint8Array, at: number, count: number, distinct: number, a: number, b: number): number {
  const w = widthFor(distinct);
  const mask = w <= 16 ? (1 << w) - 1 : 0;
  let pos = at;
  let acc = 0;
  let bits = 0;
  let furthest = 0;
  let prev = -1;
  let pairs = 0;
  for (let k = 0; k < count; k++) {
    if (bits === 0) {
      acc = bytes[pos++];
      bits = 8;
    }
    const flag = acc & 1;
    acc >>>= 1;
    bits--;
    let place: number;
    if (!flag) place = furthest++;
    else if (mask) {
      while (bits < w) {
        acc |= bytes[pos++] << bits;
        bits += 8;
      }
      place = acc & mask;
      acc >>>= w;
      bits -= w;
      if (place === distinct) {
        // A term not in the list (its number follows): never one of the pair's.
        for (let need = 32; need > 0; need -= 8) {
          while (bits < 8) {
            acc |= bytes[pos++] << bits;
            bits += 8;
          }
          acc >>>= 8;
          bits -= 8;
        }
        place = -1;
      } else if (place >= furthest) furthest = place + 1;
    } else {
      // Lists of 65,536 terms and more (no real passage has them): the general reader.
      return countPairsSlowly(bytes, at, count, distinct, a, b);
    }
    if (prev === a && place === b) pairs++;
    prev = place;
  }
  return pairs;
}

function countPairsSlowly(bytes: Uint8Array, at: number, count: number, distinct: number, a: number, b: number): number {
  const r = new SequenceReader().reset(bytes, at, count, distinct);
  let prev = -1;
  let pairs = 0;
  while (r.remaining) {
    const place = r.next();
    if (prev === a && place === b && place >= 0) pairs++;
    prev = place;
  }
  return pairs;
}

/** Bits a place in a list of `distinct` terms takes, the code one past the list included. */
function widthFor(distinct: number): number {
  return Math.max(1, 32 - Math.clz32(distinct));
}

/** Walks a sequence written by `SequencePool.append`: `next()` gives each term's place in the list (-1: not in it). */
export class SequenceReader {
  /** The term number of the last term not in the list. */
  outside = 0;
  private bytes: Uint8Array = new Uint8Array(0);
  private pos = 0;
  private acc = 0;
  private bits = 0;
  private left = 0;
  private w = 1;
  private distinct = 0;
  private furthest = 0;

  /** Starts on the `count` terms written at byte `at` for a list of `distinct` terms. */
  reset(bytes: Uint8Array, at: number, count: number, distinct: number): this {
    this.bytes = bytes;
    this.pos = at;
    this.acc = this.bits = 0;
    this.left = count;
    this.distinct = distinct;
    this.w = widthFor(distinct);
    this.furthest = 0;
    return this;
  }

  /** Terms not yet read. */
  get remaining(): number {
    return this.left;
  }

  /** The next term's place (call only while `remaining` > 0). */
  next(): number {
    this.left--;
    if (!this.take(1)) return this.furthest++;
    const place = this.w <= 16 ? this.take(this.w) : this.take(16) | (this.take(this.w - 16) << 16);
    if (place === this.distinct) {
      this.outside = (this.take(16) | (this.take(16) << 16)) >>> 0;
      return -1;
    }
    if (place >= this.furthest) this.furthest = place + 1;
    return place;
  }

  /** The next `n` (≤ 16) bits. */
  private take(n: number): number {
    while (this.bits < n) {
      this.acc |= this.bytes[this.pos++] << this.bits;
      this.bits += 8;
    }
    const v = this.acc & ((1 << n) - 1);
    this.acc >>>= n;
    this.bits -= n;
    return v;
  }
}
