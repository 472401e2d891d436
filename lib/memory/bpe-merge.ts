// Byte-pair merging of one long piece in O(n log n). gpt-tokenizer merges a piece by scanning every pair for the
// lowest rank at each merge, quadratic in the piece's length: a run with no break the encoder's pattern splits on
// (100,000 letters, zero-width spaces, one CJK character repeated: a crafted file or page) took 11-16 s to two minutes,
// the worker blocked all that time. This makes the same merges in the same order (lowest rank first, the leftmost of
// equal ones), with a heap of candidate pairs and a linked list of parts.
import { BytePairEncodingCore } from 'gpt-tokenizer/BytePairEncodingCore';
import type { GptEncoding } from 'gpt-tokenizer/GptEncoding';

/** The rank of a byte sequence as one token, or undefined when it is none. */
export type RankOf = (bytes: Uint8Array) => number | undefined;

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
 * Where each token of `piece` starts once merged, and the piece's length last: the parts gpt-tokenizer's
 * `bytePairMerge` leaves.
 */
export function mergeParts(piece: Uint8Array, rankOf: RankOf): number[] {
  const n = piece.length;
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
    rank[s] = end > n ? Infinity : (rankOf(piece.subarray(s, end)) ?? Infinity);
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

/** Pieces longer than this many bytes (a word is a few dozen) are merged by `mergeParts`; gpt-tokenizer's keeps the rest. */
const LONG_PIECE_BYTES = 256;

/** What the encoder's core is past its declared (private) surface: the two methods a long piece goes through. */
interface EncoderCore {
  bytePairMerge(piece: Uint8Array): number[];
  getBpeRankFromBytes(bytes: Uint8Array): number | undefined;
}

/** gpt-tokenizer's own merge, looked up on its class at each call. */
const theirMerge = () => (BytePairEncodingCore.prototype as unknown as Partial<EncoderCore>).bytePairMerge;

/**
 * `e` with its long pieces merged by `mergeParts` (the same tokens, in O(n log n)), on this instance only. Ordinary
 * text never meets it: its pieces are words, counted by gpt-tokenizer exactly as before.
 */
export function mergingLongPiecesFast(e: GptEncoding): GptEncoding {
  const core = (e as unknown as { bytePairEncodingCoreProcessor?: EncoderCore }).bytePairEncodingCoreProcessor;
  const theirs = theirMerge();
  if (typeof theirs !== 'function' || typeof core?.getBpeRankFromBytes !== 'function') {
    throw new Error('gpt-tokenizer changed: its byte-pair merge is not where the token counter replaces it for long pieces');
  }
  core.bytePairMerge = function (this: EncoderCore, piece: Uint8Array): number[] {
    if (piece.length <= LONG_PIECE_BYTES) return theirMerge()!.call(this, piece);
    const starts = mergeParts(piece, (bytes) => core.getBpeRankFromBytes(bytes));
    const out: number[] = [];
    for (let k = 0; k + 1 < starts.length; k++) {
      const rank = core.getBpeRankFromBytes(piece.subarray(starts[k], starts[k + 1]));
      if (rank === undefined) throw new Error('The byte-pair encoding has no token for a part of a merged piece.');
      out.push(rank);
    }
    return out;
  };
  return e;
}
