/**
 * A LexicalIndex's documents as flat arrays (`LexicalIndex.exportDocs`), as the store persists them (lib/memory/pack.ts).
 * Phrases are not stored as terms: each entry keeps the term sequence of its body instead (`seq`), and a query's
 * phrase ("pottery class") is found by scanning the sequences of the items holding its rarer word.
 */
export interface PackedLexicon {
  /** The terms, joined by U+0000, sorted in code-unit order. */
  terms: string;
  /**
   * Item i's entries are items[i] .. items[i+1] - 1, one per passage (lib/memory/index/passages.ts); the fields below
   * are per entry.
   */
  items: Uint32Array;
  /**
   * Entry i's distinct terms are term[start[i]] .. term[start[i+1] - 1], with counts in tf. Term numbers are 16-bit
   * when the lexicon has at most 65,536 terms, else 32-bit (in `seq` too).
   */
  start: Uint32Array;
  term: Uint16Array | Uint32Array;
  tf: Uint16Array;
  len: Uint32Array;
  asks: Uint8Array;
  threads: ({ id: string; seq: number } | null)[];
  /** Entry i's body as a term sequence: seq[seqStart[i]] .. seq[seqStart[i+1] - 1] (adjacent pairs are phrases). */
  seqStart: Uint32Array;
  seq: Uint16Array | Uint32Array;
}

export function packedTerms(p: PackedLexicon): string[] {
  return p.terms ? p.terms.split('\u0000') : [];
}
