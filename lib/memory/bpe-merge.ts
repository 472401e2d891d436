// Byte-pair merging of a piece of text (its UTF-8 bytes), as tiktoken and gpt-tokenizer do it: the pair with the
// lowest rank is merged first, the leftmost of equal ones, until no pair is a token. Short pieces (words) are merged by
// that scan; long ones in O(n log n), with a heap of candidate pairs and a linked list of parts, since the scan is
// quadratic in the piece's length: a run with no break the encoder's pattern splits on (100,000 letters, zero-width
// spaces, one CJK character repeated: a crafted file or page) took 11-16 s to two minutes, the worker blocked.

/** The rank of `piece[from..to)` as one token, or -1 when it is none. */
export type RankOf = (from: number, to: number) => number;

/** A binary min-heap of pairs by rank, then by where the pair starts (the leftmost first, as the scan finds it). */
class PairHeap {
  private ranks: number[] = [];
  private starts: number[] = [];

  get size(): number {
    return this.ranks.length;
  }

  private less(a: number, b: number): boolean {
    return this.ranks[a] < this.ranks[b] || (this.ranks[a] === this.ranks[b] && this.starts[a] < this.starts[b]);
  }

  private swap(a: number, b: number): void {
    [this.ranks[a], this.ranks[b]] = [this.ranks[b], this.ranks[a]];
    [this.starts[a], this.starts[b]] = [this.starts[b], this.starts[a]];
  }

  push(rank: number, start: number): void {
    this.ranks.push(rank);
    this.starts.push(start);
    for (let i = this.ranks.length - 1; i > 0; ) {
      const up = (i - 1) >> 1;
      if (!this.less(i, up)) break;
      this.swap(i, up);
      i = up;
    }
  }

  /** Removes the lowest pair; returns its rank and start. */
  pop(): [number, number] {
    const top: [number, number] = [this.ranks[0], this.starts[0]];
    const last = this.ranks.length - 1;
    this.swap(0, last);
    this.ranks.pop();
    this.starts.pop();
    for (let i = 0; ; ) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < last && this.less(l, m)) m = l;
      if (r < last && this.less(r, m)) m = r;
      if (m === i) break;
      this.swap(i, m);
      i = m;
    }
    return top;
  }
}

/**
 * Where each token of a piece of `n` bytes starts once merged, and `n` last: the parts gpt-tokenizer's
 * `bytePairMerge` leaves.
 */
export function mergeParts(n: number, rankOf: RankOf): number[] {
  // Parts are known by where they start; `next[s]` is where the part after the one at `s` starts (n past the last).
  const next = new Int32Array(n + 1);
  const prev = new Int32Array(n + 1);
  for (let s = 0; s <= n; s++) {
    next[s] = s + 1;
    prev[s] = s - 1;
  }
  // The rank of merging the part at `s` with the one after it, as last worked out (Infinity: no such token).
  const rank = new Float64Array(n).fill(Infinity);
  const gone = new Uint8Array(n);
  const heap = new PairHeap();
  const rate = (s: number) => {
    const end = next[s] < n ? next[next[s]] : n + 1;
    const r = end > n ? -1 : rankOf(s, end);
    rank[s] = r < 0 ? Infinity : r;
    if (rank[s] !== Infinity) heap.push(rank[s], s);
  };
  for (let s = 0; s < n; s++) rate(s);
  while (heap.size) {
    const [r, s] = heap.pop();
    // An entry made before its part or the part after it changed.
    if (gone[s] || rank[s] !== r) continue;
    const after = next[s];
    gone[after] = 1;
    next[s] = next[after];
    prev[next[s]] = s;
    rate(s);
    if (prev[s] >= 0) rate(prev[s]);
  }
  const starts: number[] = [];
  for (let s = 0; s < n; s = next[s]) starts.push(s);
  starts.push(n);
  return starts;
}

/** Pieces longer than this many bytes (a word is a few dozen) are merged by `mergeParts`, shorter ones by the scan. */
const LONG_PIECE_BYTES = 256;
// The scan's parts and pair ranks, reused from piece to piece.
const scanStarts = new Int32Array(LONG_PIECE_BYTES + 1);
const scanRanks = new Float64Array(LONG_PIECE_BYTES + 1);

/** How many tokens a piece of `n` bytes merges into. */
export function mergedCount(n: number, rankOf: RankOf): number {
  if (n > LONG_PIECE_BYTES) return mergeParts(n, rankOf).length - 1;
  // gpt-tokenizer's `bytePairMerge`, counting: parts by where they start, each with the rank of merging it with the next.
  const rank = (k: number, len: number) => {
    if (k + 2 >= len) return Infinity;
    const r = rankOf(scanStarts[k], scanStarts[k + 2]);
    return r < 0 ? Infinity : r;
  };
  let len = n + 1;
  for (let i = 0; i < len; i++) scanStarts[i] = i;
  for (let i = 0; i < len; i++) scanRanks[i] = rank(i, len);
  while (len > 1) {
    let low = Infinity;
    let at = -1;
    for (let i = 0; i < len - 1; i++) if (scanRanks[i] < low) {
      low = scanRanks[i];
      at = i;
    }
    if (at < 0) break;
    scanStarts.copyWithin(at + 1, at + 2, len);
    scanRanks.copyWithin(at, at + 1, len);
    len--;
    scanRanks[at] = rank(at, len);
    if (at > 0) scanRanks[at - 1] = rank(at - 1, len);
  }
  return len - 1;
}
