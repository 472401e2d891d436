import type { MemoryItem, MemoryKind } from '../memory/types';
import type { MemoryView } from '../memory/index/memory-view';
import type { LearnedWeights } from '../learn/types';

/** The names of the scoring factors; each factor is in [0, 1] and the options page weights it. */
export const WEIGHT_NAMES = ['semantic', 'lexical', 'recency', 'priority', 'continuity', 'situation'] as const;
export type WeightName = (typeof WEIGHT_NAMES)[number];
export type Weights = Record<WeightName, number>;

/** What the content script read of the task at hand. Everything but url/title/site is optional. */
export interface TaskReading {
  url: string;
  title: string;
  /** Hostname, e.g. mail.google.com. */
  site: string;
  /** Which site adapter produced the reading: 'gmail' | 'chatgpt' | 'claude' | 'generic' | ... */
  adapter: string;
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

export interface FactorScores {
  semantic: number;
  lexical: number;
  recency: number;
  priority: number;
  continuity: number;
  situation: number;
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
  /** Set when a learned weight put this card above the next one (the default weights would not have). */
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
  /** What learning from the user's feedback changed in the weights (lib/learn); absent when off or not yet learned. */
  learned?: LearnedWeights;
  now: number;
}
