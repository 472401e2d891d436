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
  /** The digest of all of the above (`lexiconDigest`, hex): a pack whose lexicon does not match it is refused. */
  sum: string;
}

/** The lexicon as an index exports it (`PackableLexicalDocs.exportDocs`), before its digest is taken. */
export type LexiconPools = Omit<PackedLexicon, 'sum'>;

/** The lexicon's arrays the digest covers, in order. */
const digested = (l: LexiconPools) => [l.items, l.len, l.asks, l.fPool, l.fStart, l.fCount, l.seqs, l.sStart, l.sCount, l.post, l.postStart, l.postCount, l.postLast];

/**
 * SHA-256 (WebCrypto) of the lexicon's terms and of each of its arrays, then of those digests in order, as hex:
 * written with the pack (`sum`) and checked at each start (lib/memory/pack.ts). The pack keeps the index's pools as
 * the index holds them (each document's terms, each term's posting of documents), which a start takes as they are: a
 * damaged byte would make a search find a document for a word it lacks, or name one past the last. The digests run
 * in the browser's native code off the worker's thread; an FNV-1a over the same bytes in script took 13-92 ms of a
 * start in a build at 10k items (its first run in the worker's life, on code V8 had not compiled).
 */
export async function lexiconDigest(l: LexiconPools): Promise<string> {
  const parts = await Promise.all([new TextEncoder().encode(l.terms), ...digested(l)].map((a) => crypto.subtle.digest('SHA-256', a)));
  const joined = new Uint8Array(parts.length * 32);
  parts.forEach((d, k) => joined.set(new Uint8Array(d), k * 32));
  return Array.from(new Uint8Array(await crypto.subtle.digest('SHA-256', joined)), (b) => b.toString(16).padStart(2, '0')).join('');
}

export function packedTerms(p: LexiconPools): string[] {
  return p.terms ? p.terms.split('\u0000') : [];
}
