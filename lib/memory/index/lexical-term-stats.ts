// The terms of a BM25 index as a query reads them (LexicalIndex scores with these): the postings of a word or a
// phrase, and a term's document frequency, idf and how telling it is.
import { PackableLexicalDocs } from './lexical-docs-pack';
import { MAX_TF, postingOf, PostingReader, type Posting, type PostingView } from './posting';
import { countPairs } from './term-sequence';

/**
 * A phrase whose one word has this many times fewer postings than the other is counted from the rarer word's items
 * alone, each one's term list saying whether it has the other word, instead of walking both postings. Measured on
 * 30k synthetic items: 2 to 16 all beat walking both; 4 to 8 were best.
 */
const PROBE_RATIO = 6;

/**
 * The documents of a BM25 index (PackableLexicalDocs) with what a query asks of its terms: their postings, phrases'
 * included, and their document frequency, idf and how telling they are.
 */
export class LexicalTermStats extends PackableLexicalDocs {
  /** Second scratch reader for the phrase walk. */
  private readonly readerB = new PostingReader();

  /**
   * Postings of a query term: a word's own, or for a phrase ("a b", two terms with a space) the items whose body has
   * a directly followed by b, counted from the sequences of the items holding both words.
   */
  protected postingOf(term: string): PostingView | undefined {
    if (!term.includes(' ')) {
      const t = this.termId.get(term);
      return t === undefined || this.df[t] <= 0 ? undefined : this.postings.view(t);
    }
    const cached = this.phraseCache.get(term);
    if (cached !== undefined) return cached ?? undefined;
    const sp = term.indexOf(' ');
    const a = this.termId.get(term.slice(0, sp));
    const b = this.termId.get(term.slice(sp + 1));
    let out: Posting | null = null;
    if (a !== undefined && b !== undefined && this.df[a] > 0 && this.df[b] > 0) {
      const docs: number[] = [];
      const tfs: number[] = [];
      const count = (s: number) => {
        if (this.ids[s] === undefined || this.sCount[s] < 2) return;
        const c = this.pairsIn(s, a, b);
        if (c) {
          docs.push(s);
          tfs.push(Math.min(c, MAX_TF));
        }
      };
      const na = this.postings.n(a);
      const nb = this.postings.n(b);
      if (Math.max(na, nb) > PROBE_RATIO * Math.min(na, nb)) {
        // One word is much rarer: its items are looked at directly (each one's list says whether it has the other).
        const r = this.reader.reset(this.postings.view(na < nb ? a : b));
        while (r.next()) count(r.slot);
      } else {
        // Both postings are in slot order: walk them together and look only at the items holding both words.
        const ra = this.reader.reset(this.postings.view(a));
        const rb = this.readerB.reset(this.postings.view(b));
        let more = ra.next() && rb.next();
        while (more) {
          const s = ra.slot;
          if (s < rb.slot) more = ra.next();
          else if (s > rb.slot) more = rb.next();
          else {
            more = ra.next() && rb.next();
            count(s);
          }
        }
      }
      if (docs.length) out = postingOf(docs, tfs);
    }
    if (this.phraseCache.size > 512) this.phraseCache.clear();
    this.phraseCache.set(term, out);
    return out ?? undefined;
  }

  /** How often slot `s`'s body has term a directly followed by term b (0 when its list lacks either). */
  private pairsIn(s: number, a: number, b: number): number {
    // The two words' places in the item's list of terms: its sequence is written in those (term-sequence.ts).
    const pool = this.fPool;
    const aLow = a & 63;
    const bLow = b & 63;
    let pa = -1;
    let pb = -1;
    let at = this.fStart[s];
    const distinct = this.fCount[s];
    // Entries are varint(term × 2 + (count > 1)), then varint(count) when above 1. An entry's first byte holds its
    // term's low 6 bits: only entries that could be a or b are read in full, the rest skipped byte by byte.
    for (let k = 0; k < distinct && (pa < 0 || pb < 0); k++) {
      const first = pool[at];
      const low = (first >>> 1) & 63;
      if (low === aLow || low === bLow) {
        let x = first & 127;
        let mul = 128;
        let c = first;
        at++;
        while (c > 127) {
          c = pool[at++];
          x += (c & 127) * mul;
          mul *= 128;
        }
        const t = Math.floor(x / 2);
        if (t === a) pa = k;
        if (t === b) pb = k;
      } else while (pool[at++] > 127);
      if (first & 1) while (pool[at++] > 127);
    }
    return pa < 0 || pb < 0 ? 0 : countPairs(this.seqs.bytes, this.sStart[s], this.sCount[s], distinct, pa, pb);
  }

  /** Live documents holding a term (a phrase: holding it in their body). */
  private dfOf(term: string): number {
    if (!term.includes(' ')) {
      const t = this.termId.get(term);
      return t === undefined ? 0 : Math.max(0, this.df[t]);
    }
    const p = this.postingOf(term);
    return p ? p.n : 0;
  }

  documentsHolding(term: string): number {
    return this.dfOf(term);
  }

  /** Whether any indexed item has this term (e.g. a person term). */
  hasTerm(term: string): boolean {
    return this.dfOf(term) > 0;
  }

  idf(term: string): number {
    const n = this.dfOf(term);
    const N = this.slotOf.size;
    return Math.log(1 + (N - n + 0.5) / (n + 0.5));
  }

  telling(term: string): number {
    const idf = this.idf(term);
    if (!(idf > 0)) return 1;
    // idf = ln(1 + x) with x = (N − n + 0.5) / (n + 0.5): the Robertson–Spärck Jones weight is ln(x).
    return Math.log(Math.expm1(idf)) / idf;
  }
}
