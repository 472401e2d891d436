import type { ItemHead, MemoryItem } from '../types';
import type { Passage } from './passages';

/**
 * The memory as the ranker sees it; implemented by `IndexedMemory` (memory-index.ts), which the store
 * keeps in the extension and `arrayMemoryView` builds in Node (tests, bench).
 */
export interface MemoryView {
  /** Every item's head (all but its text and title). */
  items(): Iterable<ItemHead>;
  head(id: string): ItemHead | undefined;
  /**
   * Reads these items whole (text and title), for the few a ranking reads: the texts of a store-backed memory stay in
   * IndexedDB until asked for, and are kept for `get` a while (`keep` false: only returned). Resolves to those that
   * exist, in the order asked.
   */
  hydrate(ids: Iterable<string>, keep?: boolean): Promise<Map<string, MemoryItem>>;
  /** Whether `get(id)` answers now without a `hydrate` (held whole, or read since the item last changed). */
  hasText(id: string): boolean;
  /** Whether the item's text reads as a decision (lib/memory/index/decision-words.ts), known without reading it. */
  isDecision(id: string): boolean;
  /** The whole item, once `hydrate` brought it (a store-backed memory throws for one it did not). */
  get(id: string): MemoryItem | undefined;
  vector(id: string): Float32Array | undefined;
  readonly size: number;
  /** BM25-scored lexical search with weighted query terms (see lib/memory/index/lexical-index.ts). */
  lexicalIndex: LexicalSearcher;
  /**
   * Weighted mean cosine of the queries with the context vectors of `ids` (those that have one), in one pass. A
   * context vector embeds the item read in its thread context (`contextText(item, prev)` in lib/memory/index/item-text.ts);
   * the dense score mixes it with the item's own.
   */
  contextScores(ids: Iterable<string>, queries: Float32Array[], weights: number[]): Map<string, number>;
  /**
   * The dense pass: Σ w_i cos(q_i, v) / Σ w_i for every stored vector, only the best `limit` returned; an item of
   * several passages has its best passage's score. Quantised
   * vectors in typed arrays score 100k items in a few tens of ms this way.
   */
  denseScores(queries: Float32Array[], weights: number[], limit?: number): Map<string, number>;
  /** The item's passages (one, the whole text, unless it is longer than the model's window: lib/memory/index/passages.ts). */
  passages(id: string): readonly Passage[];
  /** The cosine of the (weighted) queries with each of the item's passage vectors, in passage order; empty without vectors. */
  passageScores(id: string, queries: Float32Array[], weights: number[]): number[];
  /** Items that may need a guarantee whatever their score: pinned, instructions, items tied to a site. */
  flagged(): Iterable<ItemHead>;
  /**
   * Items listed under any of these keys ('person:<name or email>', 'site:<host>', 'url:<url>'; see
   * `situationKeys` in lib/memory/index/situation-keys.ts).
   */
  situated(keys: string[]): Iterable<ItemHead>;
}

/** The part of a lexical index the ranker needs; `LexicalIndex` implements it. */
export interface LexicalSearcher {
  /** Items matching any of the weighted terms, best BM25 score first. */
  search(terms: Map<string, number>, limit: number): LexicalHit[];
  /** BM25 score an item would get if it matched every term (normalises scores into [0, 1]). */
  idealScore(terms: Map<string, number>): number;
  /** Term frequencies of an indexed item (pseudo-relevance feedback). */
  termsOf(id: string): Map<string, number> | undefined;
  /** Whether an indexed item holds this term (without building its term map). */
  docHas(id: string, term: string): boolean;
  /**
   * Whether the item in a slot (`docSlot`) holds any of these terms (`docHas` of each), answered from the terms'
   * postings read once: for asking it of many items. Valid until the index changes.
   */
  holdingAny(terms: string[]): (slot: number) => boolean;
  /** Inverse document frequency of a term. */
  idf(term: string): number;
  /**
   * How well a term tells items apart, as a share of its `idf`: the Robertson–Spärck Jones weight over `idf`, the two
   * agreeing for rare words; 0 or less for a term half the items or more hold (in a chat, a speaker's name: every turn
   * by them holds it, yet `idf` weighs it ln 2 in each). 1 for a term no item holds.
   */
  telling(term: string): number;
  /** Whether any item holds the term. */
  hasTerm(term: string): boolean;
  /** How many documents hold the term (an item of several passages counts each that does). */
  documentsHolding(term: string): number;
  /** Whether the item asks a question (its thread successor is then likely the answer). */
  asks(id: string): boolean;
  /** The id of the item `offset` places away in the same thread, if indexed. */
  neighbour(id: string, offset: number): string | undefined;
  /** Whether the item is indexed with a thread; when false, `neighbour` finds nothing for it. */
  inThread(id: string): boolean;
  /**
   * The slot of an item's document, -1 when it is not indexed: what the `…At` questions take, so an item asked
   * several things is looked up once. Valid until the index changes.
   */
  docSlot(id: string): number;
  /** `neighbour` of the item in a slot. */
  neighbourAt(slot: number, offset: number): string | undefined;
  /** `inThread` of the item in a slot. */
  threadedAt(slot: number): boolean;
  /** How many indexed items the item's thread holds (1 for an item in none). */
  threadSize(id: string): number;
}

export interface LexicalHit {
  id: string;
  score: number;
  /** Query terms (normalised) the item matched (in any of its passages). */
  matched: string[];
  /** An item of several passages: each passage that matched, with its score (the item's is its best passage's). */
  passages?: { part: number; score: number }[];
}
