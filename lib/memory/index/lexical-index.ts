import type { LexicalHit, LexicalSearcher } from './memory-view';
import { terms as toTerms } from './tokenize';
import { kthLargest } from '../../core/kth-largest';
import { grown, type PostingView } from './posting';
import { LexicalTermStats } from './lexical-term-stats';
import { ownerOf, partOf } from './passages';

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
 *   note holding the ask's words is rarely worse evidence than a short one (0.3 is the smallest change from
 *   classic BM25 that gains on both LoCoMo halves).
 * - Past 3 × the typical length (LoCoMo's longest turn is about 2.5 ×; a saved page of 200k characters is hundreds
 *   ×) each extra unit of length costs classic BM25's 0.75, so long pages are held back about as much as before.
 * - "Typical" is the geometric mean length, which a handful of huge pages cannot inflate (with the arithmetic mean,
 *   three 30k-word pages repeating a word outscore the one short note about it; with this they do not).
 */
export const RANK_LEXICAL: LexicalIndexOptions = { k1: 1.2, b: 0.3, longAfter: 3, bLong: 0.75, geometric: true };

/**
 * An in-memory BM25 index. The Node memory view and the extension's store both hold one: `addItem` when an item is
 * saved or edited, `remove` when it is deleted. Statistics are kept up to date on every change (LexicalDocs) so a
 * query only walks the postings of its own terms (words' and phrases': LexicalTermStats, lexical-term-stats.ts).
 */
export class LexicalIndex extends LexicalTermStats implements LexicalSearcher {
  private k1 = 1.2;
  private b = 0.75;
  private longAfter = 0;
  private bLong = 0.75;
  private geometric = false;
  /** Per-slot bit sets of the query terms matched, for `search`; zero between queries. */
  private hitBits = new Uint32Array(0);
  /** Slots a `search` matched, in first-match order (scratch). */
  private touchedScratch = new Int32Array(0);
  /** Scratch for the top-`limit` cut of `search`, and the slots it keeps. */
  private cutScratch = new Float64Array(0);
  private topScratch = new Int32Array(0);
  /** `k1 × lengthNorm(len, normAvg)` per slot (see `lengthFactors`); NaN: not computed. */
  private norms = new Float64Array(0);

  constructor(opts: LexicalIndexOptions = {}) {
    super();
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

  /**
   * The matched slots with each item of several passages reduced to its best passage (`heads`, first-match order
   * kept); `parts(best)` lists, under each of those best slots, every matched slot of its item (in match order), made
   * only for the few slots search returns.
   */
  private bestParts(touched: Int32Array): { heads: Int32Array; parts: (best: ArrayLike<number>) => Map<number, number[]> } {
    const acc = this.acc;
    const owner = this.headSlots();
    const isPart = this.isPart;
    // Per item (its first passage's slot), its best matched slot + 1 (0: none yet); zero again once its head is placed.
    if (this.bestOf.length < owner.length) this.bestOf = new Int32Array(Math.max(owner.length, this.lens.length));
    const bestOf = this.bestOf;
    const n = touched.length;
    for (let i = 0; i < n; i++) {
      const s = touched[i];
      if (!isPart[s]) continue;
      const id = owner[s];
      const b = bestOf[id] - 1;
      if (b < 0 || acc[s] > acc[b]) bestOf[id] = s + 1;
    }
    // Heads in first-match order: each item at the place of its first matched passage.
    if (this.headScratch.length < n) this.headScratch = grown(this.headScratch, n);
    const out = this.headScratch;
    let nOut = 0;
    for (let i = 0; i < n; i++) {
      const s = touched[i];
      if (!isPart[s]) {
        out[nOut++] = s;
        continue;
      }
      const b = bestOf[owner[s]];
      if (b > 0) {
        out[nOut++] = b - 1;
        bestOf[owner[s]] = 0;
      }
    }
    // `heads` are best slots: each stands for its item's group.
    const parts = (heads: ArrayLike<number>) => {
      // Each returned item's place + 1 in `groups`, marked in `bestOf` (zero again below): one pass over the matched
      // slots gathers every group, with no look-up for the many items search does not return.
      const byBest = new Map<number, number[]>();
      const groups: number[][] = [];
      for (let i = 0; i < heads.length; i++)
        if (isPart[heads[i]]) {
          const group: number[] = [];
          groups.push(group);
          bestOf[owner[heads[i]]] = groups.length;
          byBest.set(heads[i], group);
        }
      if (!groups.length) return byBest;
      for (let i = 0; i < n; i++) {
        const s = touched[i];
        if (!isPart[s]) continue;
        const g = bestOf[owner[s]];
        if (g > 0) groups[g - 1].push(s);
      }
      for (let i = 0; i < heads.length; i++) if (isPart[heads[i]]) bestOf[owner[heads[i]]] = 0;
      return byBest;
    };
    return { heads: out.subarray(0, nOut), parts };
  }
  /** `bestParts`' heads (scratch). */
  private headScratch = new Int32Array(0);
  /** `bestParts`' scratch, per item's first passage slot (all zero between searches). */
  private bestOf = new Int32Array(0);

  /**
   * Per slot of a passage of an item of several, the slot of the item's first passage (whose key is the item's id): a
   * number its passages share. Made again after any change.
   */
  private headSlots(): Int32Array {
    const ids = this.ids;
    const made = this.heads;
    if (made && made.ids === ids && made.n === ids.length) return made.slots;
    // Reading every passage key's owner from its string, per search, was most of a large memory's search time.
    const slots = new Int32Array(ids.length);
    for (let s = 0; s < ids.length; s++) {
      const key = ids[s];
      if (key === undefined || !this.isPart[s]) continue;
      // An item's passages are indexed together, its first among them; a lone passage stands for itself.
      slots[s] = this.slotOf.get(ownerOf(key)) ?? s;
    }
    this.heads = { ids, n: ids.length, slots };
    return slots;
  }
  /** `headSlots` as last made: for this `ids` array at this length (slots are only appended, or all renumbered). */
  private heads?: { ids: readonly (string | undefined)[]; n: number; slots: Int32Array };

  holdingAny(terms: string[]): (slot: number) => boolean {
    // One bit per slot, set on the first passage's slot of every item a posting of the terms lists.
    const bits = new Uint32Array((this.ids.length + 31) >>> 5);
    const heads = this.partsOf.size ? this.headSlots() : undefined;
    const r = this.reader;
    for (const term of terms) {
      const t = this.termId.get(term);
      if (t === undefined || this.df[t] <= 0) continue;
      r.reset(this.postings.view(t));
      while (r.next()) {
        const s = r.slot;
        if (this.ids[s] === undefined) continue;
        const h = heads && this.isPart[s] ? heads[s] : s;
        bits[h >>> 5] |= 1 << (h & 31);
      }
    }
    return (s) => s >= 0 && (bits[s >>> 5] & (1 << (s & 31))) !== 0;
  }

  search(terms: Map<string, number>, limit: number): LexicalHit[] {
    const n = this.slotOf.size;
    const avg = !n ? 1 : this.geometric ? Math.max(1, Math.expm1(this.totalLogLen / n)) : this.totalLen / n || 1;
    const used: { term: string; p: PostingView; w: number }[] = [];
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
    const r = this.reader;
    // Postings still list removed items' slots until the index compacts; without any, no slot needs the check.
    const ids = this.dead > 0 ? this.ids : undefined;
    for (let u = 0; u < used.length; u++) {
      r.reset(used[u].p);
      const idf = this.idf(used[u].term) * used[u].w;
      const word = u >>> 5;
      const bit = 1 << (u & 31);
      while (r.next()) {
        const s = r.slot;
        if (ids && ids[s] === undefined) continue;
        const tf = r.tf;
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
    // An item of several passages competes with its best passage only; its other matching passages are kept for it.
    const reduced = this.partsOf.size ? this.bestParts(touched) : undefined;
    const heads = reduced?.heads ?? touched;
    const nHeads = heads.length;
    // The best `limit` (stable: equal scores keep the order items were first matched in), then the acc is zeroed.
    // Always a typed array: a plain array here for long result lists and a typed one for short ones made V8 throw
    // away this function's optimised code again and again (and score in the slow tiers meanwhile).
    let top: Int32Array = heads;
    if (nHeads > limit) {
      if (this.cutScratch.length < nHeads) this.cutScratch = new Float64Array(this.lens.length);
      const scores = this.cutScratch.subarray(0, nHeads);
      for (let i = 0; i < nHeads; i++) scores[i] = acc[heads[i]];
      const cut = kthLargest(scores, limit);
      if (this.topScratch.length < nHeads) this.topScratch = new Int32Array(this.lens.length);
      let kept = 0;
      for (let i = 0; i < nHeads; i++) if (acc[heads[i]] >= cut) this.topScratch[kept++] = heads[i];
      top = this.topScratch.subarray(0, kept);
    }
    const order: number[] = [];
    for (let i = 0; i < top.length; i++) order.push(i);
    order.sort((x, y) => acc[top[y]] - acc[top[x]] || x - y);
    const m = Math.min(order.length, limit);
    const hits: LexicalHit[] = new Array(m);
    const parts = reduced?.parts(order.slice(0, m).map((i) => top[i]));
    const matchedAt = (s: number) => {
      const matched: string[] = [];
      const o = s * words;
      for (let u = 0; u < used.length; u++) if (bits[o + (u >>> 5)] & (1 << (u & 31))) matched.push(used[u].term);
      return matched;
    };
    const seen = new Uint32Array(words);
    for (let i = 0; i < m; i++) {
      const s = top[order[i]];
      const key = this.ids[s]!;
      const group = parts?.get(s);
      if (!group) {
        hits[i] = { id: key, score: acc[s], matched: matchedAt(s) };
        continue;
      }
      const id = ownerOf(key);
      // The terms any passage matched: each passage's in query order, those of the passages before it first.
      const passages: { part: number; score: number }[] = [];
      const matched: string[] = [];
      seen.fill(0);
      for (const g of group) {
        passages.push({ part: partOf(this.ids[g]!, id), score: acc[g] });
        for (let u = 0, o = g * words; u < used.length; u++) {
          const w = u >>> 5;
          const bit = 1 << (u & 31);
          if (bits[o + w] & bit && !(seen[w] & bit)) {
            seen[w] |= bit;
            matched.push(used[u].term);
          }
        }
      }
      hits[i] = { id, score: acc[s], matched, passages };
    }
    // Zeroed where scored; when a good share of all slots was (common words of a large memory), a sweep of the
    // whole arrays is faster than reaching each.
    if (touched.length * 8 > slots) {
      acc.fill(0, 0, slots);
      bits.fill(0, 0, slots * words);
    } else
      for (let i = 0; i < touched.length; i++) {
        const s = touched[i];
        acc[s] = 0;
        for (let k = s * words, e = k + words; k < e; k++) bits[k] = 0;
      }
    return hits;
  }
}
