import { textHash } from '../../core/text-hash';

/**
 * A LexicalIndex's documents as the store persists them (`PackableLexicalDocs.exportDocs`, lib/memory/pack.ts): the
 * index's own pools, laid out document by document and term by term, so a start takes them as they are instead of
 * building every posting again. Documents are numbered in the pack's item order (an item of several passages has one
 * per passage); postings name documents by that number. Phrases are not stored as terms: each document keeps the term
 * sequence of its body instead, and a query's phrase ("pottery class") is found by scanning the sequences of the items
 * holding its rarer word.
 */
export interface PackedLexicon {
  /** The terms, joined by U+0000, sorted in code-unit order; a term's number is its place. */
  terms: string;
  /** Item i's documents are items[i] .. items[i+1] - 1, one per passage (lib/memory/index/passages.ts). */
  items: Uint32Array<ArrayBuffer>;
  /** Per document: its length in terms, whether it asks something, its thread. */
  len: Uint32Array<ArrayBuffer>;
  asks: Uint8Array<ArrayBuffer>;
  threads: ({ id: string; seq: number } | null)[];
  /**
   * Document d's distinct terms, in the order they first occur, as the index's forward pool holds them
   * (lib/memory/index/lexical-docs.ts): fCount[d] entries from byte fStart[d] of fPool, each the term's number times
   * two (plus one when its count follows) and the count above 1 (lib/memory/index/posting.ts varints).
   */
  fPool: Uint8Array<ArrayBuffer>;
  fStart: Uint32Array<ArrayBuffer>;
  fCount: Uint32Array<ArrayBuffer>;
  /** Document d's body as sCount[d] places in its term list, from byte sStart[d] of seqs (term-sequence.ts). */
  seqs: Uint8Array<ArrayBuffer>;
  sStart: Uint32Array<ArrayBuffer>;
  sCount: Uint32Array<ArrayBuffer>;
  /**
   * Term t's posting, documents in order with their counts (posting.ts): bytes postStart[t] .. postStart[t+1] of
   * post, postCount[t] entries, the last of them document postLast[t].
   */
  post: Uint8Array<ArrayBuffer>;
  postStart: Uint32Array<ArrayBuffer>;
  postCount: Uint32Array<ArrayBuffer>;
  postLast: Int32Array<ArrayBuffer>;
  /** The print of all of the above (lib/memory/pack.ts `lexiconPrint`): a pack whose lexicon does not match it is refused. */
  sum: number;
}

/** The lexicon's arrays a print covers, in order. */
const printed = (l: Omit<PackedLexicon, 'sum'>) => [l.items, l.len, l.asks, l.fPool, l.fStart, l.fCount, l.seqs, l.sStart, l.sCount, l.post, l.postStart, l.postCount, l.postLast];

/**
 * FNV-1a of the lexicon's terms and arrays, 32 bits at a time, written with the pack (`sum`) and checked at each start (lib/memory/pack.ts). The pack keeps the
 * index's pools as the index holds them (each document's terms, each term's posting of documents), which a start
 * takes as they are: a damaged byte would make a search find a document for a word it lacks, or name one past the
 * last. Reading every posting to check it took 45-90 ms of a start in Node; this reads the same bytes in a few.
 */
export function lexiconPrint(l: Omit<PackedLexicon, 'sum'>): number {
  let h = textHash(l.terms);
  for (const a of printed(l)) {
    const whole = a.byteLength >>> 2;
    const words = a.byteOffset % 4 === 0 ? new Uint32Array(a.buffer, a.byteOffset, whole) : new Uint32Array(a.buffer.slice(a.byteOffset, a.byteOffset + whole * 4));
    for (let i = 0; i < whole; i++) h = Math.imul(h ^ words[i], 0x01000193);
    const tail = new Uint8Array(a.buffer, a.byteOffset + whole * 4, a.byteLength - whole * 4);
    for (let i = 0; i < tail.length; i++) h = Math.imul(h ^ tail[i], 0x01000193);
    h = Math.imul(h ^ a.length, 0x01000193);
  }
  return h >>> 0;
}

export function packedTerms(p: PackedLexicon): string[] {
  return p.terms ? p.terms.split('\u0000') : [];
}
