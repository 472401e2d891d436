import type { LexicalHit, LexicalSearcher } from './types';
import type { MemoryItem } from '../memory/types';
import { terms as toTerms, hasTimeExpression, itemDateTerms, phrases, TIME_TERM, PERSON_PREFIX } from './tokenize';

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
 *   note holding the ask's words is rarely worse evidence than a short one. +0.004 R@10 and +0.008 nDCG@10 on both
 *   LoCoMo halves; anything in 0-0.3 scores alike there, 0.3 is the smallest change that gets it.
 * - Past 3 × the typical length (LoCoMo's longest turn is about 2.5 ×; a saved page of 200k characters is hundreds
 *   ×) each extra unit of length costs classic BM25's 0.75, so long pages are held back about as much as before.
 * - "Typical" is the geometric mean length, which a handful of huge pages cannot inflate (with the arithmetic mean,
 *   three 30k-word pages repeating a word outscore the one short note about it; with this they do not).
 */
export const RANK_LEXICAL: LexicalIndexOptions = { k1: 1.2, b: 0.3, longAfter: 3, bLong: 0.75, geometric: true };

/** A LexicalIndex's documents as flat arrays (`LexicalIndex.exportDocs`), as the store persists them. */
export interface PackedLexicon {
  /** The terms, joined by U+0000. */
  terms: string;
  /** Entry i's terms are term[start[i]] .. term[start[i+1] - 1], with counts in tf. */
  start: Uint32Array;
  term: Uint32Array;
  tf: Uint32Array;
  len: Uint32Array;
  asks: Uint8Array;
  threads: ({ id: string; seq: number } | null)[];
}

interface PackedBase {
  terms: string[];
  /** Postings of terms[t]: pDoc/pTf[pStart[t] .. pStart[t+1]-1], pDoc indexing `docs`. */
  pStart: Uint32Array;
  pDoc: Uint32Array;
  pTf: Uint32Array;
  ids: string[];
  /** Terms whose postings were made into a Map already. */
  done: Uint8Array;
  docs: PackedDoc[];
}

/** A document loaded from a pack; its term counts become a Map when first read. */
class PackedDoc {
  private counts?: Map<string, number>;
  constructor(
    readonly id: string,
    readonly len: number,
    readonly thread: { id: string; seq: number } | undefined,
    readonly asks: boolean,
    private readonly p: PackedLexicon,
    private readonly terms: string[],
    private readonly i: number,
  ) {}
  get tf(): Map<string, number> {
    if (!this.counts) {
      this.counts = new Map();
      for (let k = this.p.start[this.i]; k < this.p.start[this.i + 1]; k++) this.counts.set(this.terms[this.p.term[k]], this.p.tf[k]);
    }
    return this.counts;
  }
}

export function packedTerms(p: PackedLexicon): string[] {
  return p.terms ? p.terms.split('\u0000') : [];
}

interface Doc {
  id: string;
  len: number;
  tf: Map<string, number>;
  thread?: { id: string; seq: number };
  /** The text asks something: the next item in its thread is likely the answer. */
  asks: boolean;
}

/**
 * An in-memory BM25 index. The Node memory view and the extension's store both hold one: `add` when an item is
 * saved or edited, `remove` when it is deleted. Statistics are kept up to date on every change so a query only
 * walks the postings of its own terms.
 */
export class LexicalIndex implements LexicalSearcher {
  private k1 = 1.2;
  private b = 0.75;
  private longAfter = 0;
  private bLong = 0.75;
  private geometric = false;
  private readonly docs = new Map<string, Doc>();
  private readonly postings = new Map<string, Map<string, number>>();
  private totalLen = 0;
  /** Σ ln(1 + len), for the geometric mean length. */
  private totalLogLen = 0;
  private readonly threads = new Map<string, Map<number, string>>();

  constructor(opts: LexicalIndexOptions = {}) {
    this.configure(opts);
  }

  /** Change scoring options (the bench compares variants on one index); statistics are unaffected. */
  configure(opts: LexicalIndexOptions): void {
    if (opts.k1 !== undefined) this.k1 = opts.k1;
    if (opts.b !== undefined) this.b = opts.b;
    if (opts.longAfter !== undefined) this.longAfter = opts.longAfter;
    if (opts.bLong !== undefined) this.bLong = opts.bLong;
    if (opts.geometric !== undefined) this.geometric = opts.geometric;
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

  get size(): number {
    return this.docs.size;
  }

  has(id: string): boolean {
    return this.docs.has(id);
  }

  /** Index (or re-index) a memory item: what the store calls on every save or edit. */
  addItem(item: Pick<MemoryItem, 'id' | 'text' | 'title' | 'tags' | 'people' | 'aux' | 'thread'> & { createdAt?: number }): void {
    // Only the body says when something happened; a title is often just a date.
    const extra = hasTimeExpression(item.text + ' ' + (item.aux ?? '')) ? [TIME_TERM] : [];
    // The day and month the item is dated, so an ask naming a date finds what was noted then.
    if (item.createdAt) extra.push(...itemDateTerms(item.createdAt));
    // People as a field of their own, so an ask naming someone can prefer items by or about them.
    for (const p of item.people) for (const t of toTerms(p.replace(/@.*$/, ''))) extra.push(PERSON_PREFIX + t);
    this.add(item.id, searchText(item), item.thread, extra, phrases(item.text + '\n' + (item.aux ?? '')));
  }

  /** Index (or re-index) a text. `thread` lets the ranker use neighbouring items as context. */
  add(id: string, text: string, thread?: { id: string; seq: number }, extraTerms: string[] = [], phraseTerms: string[] = []): void {
    const tf = new Map<string, number>();
    const ts = toTerms(text).concat(extraTerms);
    // Phrases (pairs of adjacent words) score like terms but do not count toward the length.
    for (const t of ts.concat(phraseTerms)) tf.set(t, (tf.get(t) ?? 0) + 1);
    this.insert({ id, len: ts.length, tf, thread, asks: text.includes('?') });
  }

  /**
   * The documents of `ids` (in that order) as flat arrays, for persisting the index: the tokenising, stemming and
   * phrase work is done once and a later start only re-inserts the counts (IndexedDB stays the truth; the store
   * checks each item against a fingerprint before it uses its entry). Ids not indexed get an empty entry.
   */
  exportDocs(ids: string[]): PackedLexicon {
    // Terms sorted (code-unit order, the native sort's), so a loaded pack finds a term by binary search without
    // building a map of them.
    const seen = new Set<string>();
    let total = 0;
    for (const id of ids) {
      const tf = this.docs.get(id)?.tf;
      if (!tf) continue;
      total += tf.size;
      for (const t of tf.keys()) seen.add(t);
    }
    const terms = [...seen].sort();
    const dict = new Map<string, number>();
    terms.forEach((t, i) => dict.set(t, i));
    const start = new Uint32Array(ids.length + 1);
    const term = new Uint32Array(total);
    const tf = new Uint32Array(total);
    const len = new Uint32Array(ids.length);
    const asks = new Uint8Array(ids.length);
    const threads: ({ id: string; seq: number } | null)[] = [];
    let k = 0;
    ids.forEach((id, i) => {
      start[i] = k;
      const doc = this.docs.get(id);
      threads.push(doc?.thread ?? null);
      if (!doc) return;
      len[i] = doc.len;
      asks[i] = doc.asks ? 1 : 0;
      for (const [t, n] of doc.tf) {
        term[k] = dict.get(t)!;
        tf[k++] = n;
      }
    });
    start[ids.length] = k;
    // One string instead of hundreds of thousands: IndexedDB clones it in one piece.
    return { terms: terms.join('\u0000'), start, term, tf, len, asks, threads };
  }

  /** Indexes entry `i` of an `exportDocs` result under `id` (`terms` split once by the caller: `packedTerms`). */
  addPacked(id: string, p: PackedLexicon, terms: string[], i: number): void {
    const tf = new Map<string, number>();
    for (let k = p.start[i]; k < p.start[i + 1]; k++) tf.set(terms[p.term[k]], p.tf[k]);
    this.insert({ id, len: p.len[i], tf, thread: p.threads[i] ?? undefined, asks: p.asks[i] === 1 });
  }

  /**
   * Loads entries `entries` (indexes into `p`, ids in `ids`) of a persisted `exportDocs` result as they are: the
   * postings of a term become a Map only when a query, an edit or a deletion first touches that term, so a start
   * with 10k items does not build hundreds of thousands of maps up front. Results are the same as `addItem` for
   * each entry. Call on an empty index, before anything else is added.
   */
  loadPacked(p: PackedLexicon, terms: string[], entries: number[], ids: string[]): void {
    if (this.docs.size) throw new Error('loadPacked needs an empty index');
    const T = terms.length;
    const df = new Uint32Array(T + 1);
    for (const i of entries) for (let k = p.start[i]; k < p.start[i + 1]; k++) df[p.term[k] + 1]++;
    for (let t = 0; t < T; t++) df[t + 1] += df[t];
    const pStart = df;
    const fill = pStart.slice(0, T);
    const pDoc = new Uint32Array(pStart[T]);
    const pTf = new Uint32Array(pStart[T]);
    entries.forEach((i, d) => {
      for (let k = p.start[i]; k < p.start[i + 1]; k++) {
        const at = fill[p.term[k]]++;
        pDoc[at] = d;
        pTf[at] = p.tf[k];
      }
    });
    const base: PackedBase = { terms, pStart, pDoc, pTf, ids, done: new Uint8Array(T), docs: [] };
    entries.forEach((i, d) => {
      const doc = new PackedDoc(ids[d], p.len[i], p.threads[i] ?? undefined, p.asks[i] === 1, p, terms, i);
      base.docs.push(doc);
      this.docs.set(doc.id, doc);
      this.totalLen += doc.len;
      this.totalLogLen += Math.log1p(doc.len);
      if (doc.thread) {
        let th = this.threads.get(doc.thread.id);
        if (!th) this.threads.set(doc.thread.id, (th = new Map()));
        th.set(doc.thread.seq, doc.id);
      }
    });
    this.base = base;
  }

  private base?: PackedBase;

  /** The postings of a term, made into a Map from the loaded pack on first use (see loadPacked). */
  private post(t: string): Map<string, number> | undefined {
    const got = this.postings.get(t);
    if (got || !this.base) return got;
    const b = this.base;
    let lo = 0;
    let hi = b.terms.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const m = b.terms[mid];
      if (m < t) lo = mid + 1;
      else if (m > t) hi = mid - 1;
      else {
        if (b.done[mid]) return undefined;
        b.done[mid] = 1;
        let map: Map<string, number> | undefined;
        for (let k = b.pStart[mid]; k < b.pStart[mid + 1]; k++) {
          const doc = b.docs[b.pDoc[k]];
          // Only documents still indexed as loaded (not removed or re-indexed since).
          if (this.docs.get(doc.id) !== doc) continue;
          (map ??= new Map()).set(doc.id, b.pTf[k]);
        }
        if (map) this.postings.set(t, map);
        return map;
      }
    }
    return undefined;
  }

  private insert(doc: Doc): void {
    const id = doc.id;
    if (this.docs.has(id)) this.remove(id);
    const { tf, thread } = doc;
    this.docs.set(id, doc);
    this.totalLen += doc.len;
    this.totalLogLen += Math.log1p(doc.len);
    for (const [t, n] of tf) {
      let p = this.post(t);
      if (!p) this.postings.set(t, (p = new Map()));
      p.set(id, n);
    }
    if (thread) {
      let th = this.threads.get(thread.id);
      if (!th) this.threads.set(thread.id, (th = new Map()));
      th.set(thread.seq, id);
    }
  }

  remove(id: string): void {
    const doc = this.docs.get(id);
    if (!doc) return;
    this.docs.delete(id);
    this.totalLen -= doc.len;
    this.totalLogLen -= Math.log1p(doc.len);
    for (const t of doc.tf.keys()) {
      const p = this.post(t);
      p?.delete(id);
      if (p && p.size === 0) this.postings.delete(t);
    }
    if (doc.thread) {
      const th = this.threads.get(doc.thread.id);
      if (th?.get(doc.thread.seq) === id) th.delete(doc.thread.seq);
      if (th && th.size === 0) this.threads.delete(doc.thread.id);
    }
  }

  /** Whether any indexed item has this term (e.g. a person term). */
  hasTerm(term: string): boolean {
    return this.post(term) !== undefined;
  }

  idf(term: string): number {
    const n = this.post(term)?.size ?? 0;
    const N = this.docs.size;
    return Math.log(1 + (N - n + 0.5) / (n + 0.5));
  }

  asks(id: string): boolean {
    return this.docs.get(id)?.asks ?? false;
  }

  termsOf(id: string): Map<string, number> | undefined {
    return this.docs.get(id)?.tf;
  }

  neighbour(id: string, offset: number): string | undefined {
    const th = this.docs.get(id)?.thread;
    if (!th) return undefined;
    return this.threads.get(th.id)?.get(th.seq + offset);
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
    for (const [t, w] of terms) if (this.post(t)) s += w * this.idf(t);
    return s;
  }

  search(terms: Map<string, number>, limit: number): LexicalHit[] {
    const n = this.docs.size;
    const avg = !n ? 1 : this.geometric ? Math.max(1, Math.expm1(this.totalLogLen / n)) : this.totalLen / n || 1;
    const acc = new Map<string, { score: number; matched: string[] }>();
    for (const [t, w] of terms) {
      const p = this.post(t);
      if (!p || w <= 0) continue;
      const idf = this.idf(t) * w;
      for (const [id, tf] of p) {
        const len = this.docs.get(id)!.len;
        const s = idf * ((tf * (this.k1 + 1)) / (tf + this.k1 * this.lengthNorm(len, avg)));
        const a = acc.get(id);
        if (a) {
          a.score += s;
          a.matched.push(t);
        } else acc.set(id, { score: s, matched: [t] });
      }
    }
    const hits: LexicalHit[] = [];
    for (const [id, a] of acc) hits.push({ id, score: a.score, matched: a.matched });
    hits.sort((x, y) => y.score - x.score);
    return hits.length > limit ? hits.slice(0, limit) : hits;
  }
}

/** The text an item is found by: title, body, image captions and the like, tags and people. */
export function searchText(item: {
  title?: string;
  text: string;
  aux?: string;
  tags?: string[];
  people?: string[];
}): string {
  return [item.title ?? '', item.text, item.aux ?? '', (item.tags ?? []).join(' '), (item.people ?? []).join(' ')]
    .filter(Boolean)
    .join('\n');
}

/**
 * The text to embed for an item (what the store should embed on save): "Title: body" and captions. A short title
 * (a speaker, a subject) in front of the body measurably helps the small model tie the text to who or what it is
 * about; a title that merely repeats the body's start is left out.
 */
export function embedText(item: { title?: string; text: string; aux?: string }): string {
  const title = (item.title ?? '').trim();
  const text = item.text.trim();
  const head = title && title.length <= 80 && !text.toLowerCase().startsWith(title.toLowerCase()) ? `${title}: ` : '';
  return [head + text, item.aux ?? ''].filter(Boolean).join(' ');
}

/**
 * The text to embed for an item's context vector (`IndexedMemory.setContextVector`): the previous item of its thread
 * followed by the item, so a reply ("Yes, last Tuesday!") is found by what it answers. Undefined when the item has
 * no predecessor (its own vector then stands alone).
 */
export function contextText(
  item: { title?: string; text: string; aux?: string },
  prev: { title?: string; text: string; aux?: string } | undefined,
): string | undefined {
  return prev ? `${embedText(prev)}\n${embedText(item)}` : undefined;
}
