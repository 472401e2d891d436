import type { MemoryItem, MemoryKind } from '../memory/types';
import type { Destination } from '../core/destinations';
import type { OverrideMemo } from './overridden-instructions';

import type { FactorScores, Weights } from '../core/factors';

/** The factors and their weights are declared in lib/core/factors.ts; the ranker takes and gives them as these. */
export type { FactorScores, Weights };

/** What the content script read of the task at hand. Everything but url/title/site is optional. */
export interface TaskReading {
  url: string;
  title: string;
  /** Hostname, e.g. mail.google.com. */
  site: string;
  /** Which site adapter produced the reading: 'gmail' | 'chatgpt' | 'claude' | 'generic' | ... */
  adapter: string;
  /** Where the user is writing, as the site's adapter declares it (lib/sites/adapter.ts). */
  destination: Destination;
  /** The focused editable's text (the current ask). */
  field?: { text: string; kind: 'textarea' | 'input' | 'contenteditable'; label?: string };
  selection?: string;
  subject?: string;
  /** Recipients or chat partner: names and/or email addresses. */
  people?: string[];
  /** The last few turns of the conversation / thread on screen, oldest first. */
  turns?: string[];
  /** Nearby headings on generic pages. */
  headings?: string[];
  /** The conversation or mail thread on screen, keyed as the importers key it (`chatgpt:<id>`, `mail-thread:<id>`...). */
  thread?: { id: string };
  /** When the reading was taken (epoch ms). */
  at: number;
}

export interface RankSettings {
  /** The sliders' weights, with what learning from feedback taught already applied when it is on (lib/learn). */
  weights: Weights;
  /** Recency half-life in days. */
  halfLifeDays: number;
  /** Total token budget of the context package. */
  budgetTokens: number;
  /** At most this many cards in the panel. */
  maxCards: number;
  /** Cards whose relevance is below this are not shown (empty state instead of noise). */
  threshold: number;
}

/**
 * The memory as the ranker sees it; implemented by `IndexedMemory` (lib/rank/indexed-memory.ts), which the store
 * keeps in the extension and `arrayMemoryView` builds in Node (tests, bench).
 */
export interface MemoryView {
  items(): Iterable<MemoryItem>;
  get(id: string): MemoryItem | undefined;
  vector(id: string): Float32Array | undefined;
  readonly size: number;
  /** BM25-scored lexical search with weighted query terms (see lib/rank/lexical-index.ts). */
  lexicalIndex: LexicalSearcher;
  /**
   * Weighted mean cosine of the queries with the context vectors of `ids` (those that have one), in one pass. A
   * context vector embeds the item read in its thread context (`contextText(item, prev)` in lib/rank/item-text.ts);
   * the dense score mixes it with the item's own.
   */
  contextScores(ids: Iterable<string>, queries: Float32Array[], weights: number[]): Map<string, number>;
  /**
   * The dense pass: Σ w_i cos(q_i, v) / Σ w_i for every stored vector, only the best `limit` returned. Quantised
   * vectors in typed arrays score 100k items in a few tens of ms this way.
   */
  denseScores(queries: Float32Array[], weights: number[], limit?: number): Map<string, number>;
  /** Items that may need a guarantee whatever their score: pinned, instructions, items tied to a site. */
  flagged(): Iterable<MemoryItem>;
  /**
   * Items listed under any of these keys ('person:<name or email>', 'site:<host>', 'url:<url>'; see
   * `situationKeys` in lib/rank/indexed-memory.ts).
   */
  situated(keys: string[]): Iterable<MemoryItem>;
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
  /** Inverse document frequency of a term. */
  idf(term: string): number;
  /** Whether any item holds the term. */
  hasTerm(term: string): boolean;
  /** Whether the item asks a question (its thread successor is then likely the answer). */
  asks(id: string): boolean;
  /** The id of the item `offset` places away in the same thread, if indexed. */
  neighbour(id: string, offset: number): string | undefined;
  /** Whether the item is indexed with a thread; when false, `neighbour` finds nothing for it. */
  inThread(id: string): boolean;
}

export interface LexicalHit {
  id: string;
  score: number;
  /** Query terms (normalised) the item matched. */
  matched: string[];
}

export interface RankedCard {
  item: MemoryItem;
  kind: MemoryKind;
  score: number;
  factors: FactorScores;
  /** Words of the task that the item matched (for highlighting and explanations). */
  matched: string[];
  /** Plain-words explanation of why this card is here. */
  why: string[];
  /** Set when the card is here because of a guarantee rather than its score. */
  guaranteed?: 'pinned' | 'instruction' | 'situation' | 'child';
  /** Set by learning (lib/learn/learned-ranking.ts) when a learned weight put this card above the next one. */
  learned?: string;
}

export interface TraceEntry {
  id: string;
  title: string;
  included: boolean;
  /** The deciding reason in plain words. */
  reason: string;
  score?: number;
  factors?: FactorScores;
  /** Which stage decided: 'filter' | 'guarantee' | 'threshold' | 'budget' | 'redundancy' | 'selected' | 'limit'. */
  stage?: TraceStage;
  /** Each factor's weighted contribution to the score. */
  contributions?: FactorScores;
}

export type TraceStage = 'filter' | 'guarantee' | 'threshold' | 'budget' | 'redundancy' | 'selected' | 'limit';

export interface RankResult {
  cards: RankedCard[];
  /** Every candidate considered, included or not, with the deciding reason. */
  trace: TraceEntry[];
  /** True when nothing cleared the relevance threshold. */
  empty: boolean;
  /** The text of the query actually used (for debugging and the panel). */
  query: string;
  tookMs: number;
  /** The context package of the selected cards for the task's destination (what "insert all" inserts). */
  package?: { text: string; tokens: number; ids: string[] };
}

export interface RankRequest {
  task: TaskReading;
  memory: MemoryView;
  settings: RankSettings;
  /** Embedding of the task text, when the model is available. */
  queryVector?: Float32Array;
  /** Embeddings of `taskQueryTexts(task)`, in the same order; when given, preferred over `queryVector`. */
  queryVectors?: Float32Array[];
  /** Ids of items inserted earlier in this tab (continuity). */
  recentlyUsed?: string[];
  /** Ids the user dismissed for this page. */
  dismissed?: string[];
  /** Overrides found in earlier rankings of this memory, kept by a caller that ranks it again and again. */
  overrides?: OverrideMemo;
  now: number;
}
