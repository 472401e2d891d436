import type { MemoryItem, MemoryKind, MemoryScope } from '../memory/types';
import type { Destination } from '../core/destinations';
import type { MemoryView } from '../memory/index/memory-view';
import type { OverrideMemo } from './overridden-instructions';
import type { PassageChoice } from './passage-choice';

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
  /**
   * On a site Backstory has an adapter for: which of that adapter's landmarks the page has (names only, never text;
   * lib/sites/landmarks.ts). None found: the page is not what the adapter knows, and the reading is the focused field
   * alone (the side panel says so).
   */
  landmarks?: ReadingLandmarks;
  /** When the reading was taken (epoch ms). */
  at: number;
}

/** What a site adapter found of a page's structure: the adapter's name and label, and its landmarks' names. */
export interface ReadingLandmarks {
  adapter: string;
  /** The site as the user knows it ("Notion", "Outlook"). */
  label: string;
  found: string[];
  missing: string[];
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


export interface RankedCard {
  item: MemoryItem;
  kind: MemoryKind;
  score: number;
  factors: FactorScores;
  /** Words of the task that the item matched (for highlighting and explanations). */
  matched: string[];
  /**
   * An item longer than the model's window: the passages that matched, best first. The card shows them (the rest
   * folded), Insert puts them in, the package packs them (`excerpt` in lib/memory/index/passages.ts).
   */
  passages?: PassageChoice;
  /** Plain-words explanation of why this card is here. */
  why: string[];
  /** Set when the card is here because of a guarantee rather than its score. */
  guaranteed?: 'pinned' | 'instruction' | 'situation' | 'child';
  /** Set by learning (lib/learn/learned-ranking.ts) when a learned weight put this card above the next one. */
  learned?: string;
}

export interface TraceEntry {
  id: string;
  /** Its title as a card shows it (`displayTitle`); empty while `untitled`. */
  title: string;
  /**
   * Its text was not read by the ranking (an item tied to the situation, weighed on its fields alone: a mail to
   * someone with thousands of notes reads the few that can make a card): the panel reads its title where it shows it.
   */
  untitled?: true;
  included: boolean;
  /**
   * What decided, as data: the words are made only where the entry is shown (`traceReason` in lib/rank/trace.ts),
   * since a ranking traces hundreds of candidates and the panel shows a few.
   */
  decided: Reason;
  score?: number;
  /** Which stage decided: 'filter' | 'guarantee' | 'threshold' | 'budget' | 'redundancy' | 'selected' | 'limit'. */
  stage?: TraceStage;
  /**
   * Each factor's weighted contribution to the score (what the panel's bars show; the factors themselves are on the
   * cards: the trace of thousands of candidates travels to the panel at every ranking).
   */
  contributions?: FactorScores;
  /** With a score: what its explanation names besides the numbers. */
  notes?: ScoreNotes;
  /** Set by learning (lib/learn/learned-ranking.ts) when a learned weight put this card above the next one. */
  learned?: string;
}

/**
 * Why a candidate was taken or left out: words, a card the budget had no room for, or an item that does not apply
 * here (hundreds of scoped rules are filtered at every ranking: their words are made where an entry is shown).
 */
export type Reason = string | NoRoom | OnlyFor | OutOfScope;

/** An item kept for other sites ("Only for …"). */
export interface OnlyFor {
  onlyFor: readonly string[];
}

/** An instruction whose scope does not match the task: the scope, and the task's site and destination. */
export interface OutOfScope {
  outOfScope: MemoryScope;
  site: string;
  destination: Destination;
}

/** A card that did not fit: the token budget, the tokens it needed and those left. */
export interface NoRoom {
  budget: number;
  need: number;
  left: number;
}

/** What a score's explanation says besides its numbers (`explainNotes` in lib/rank/trace.ts puts it in words). */
export interface ScoreNotes {
  /** The task's terms it matched itself (not only through its thread neighbour), as the index keeps them. */
  terms?: string[];
  /**
   * Those terms as its text writes them, where shared words count in the score (`writtenTerms`): read at once for
   * a card, and for a trace entry only when it is shown (`needsWords`).
   */
  words?: string[];
  /** Words its thread neighbour matched (for an item found through its neighbour). */
  viaNeighbour: string[];
  /** How it is tied to this situation. */
  situation: string[];
  continuity?: string;
  /** Its place among its conversation's turns, when discounted for it. */
  threadPlace?: number;
  /** The title of the newer decision on the same subject. */
  supersededBy?: string;
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
  /**
   * Embeddings of the subjects rules are conditioned on (`MemoryScope.values` of a subject scope), by the subject as
   * stored, made by the model of `queryVectors`: a subject condition also holds when the ask is close to it in meaning.
   */
  conditionVectors?: ReadonlyMap<string, Float32Array>;
  now: number;
}

/**
 * The cosine of the ask's embedding to a subject's when they are close enough for the subject's condition to hold
 * in meaning (`Tuning.conditionCos`); undefined when they are not, or without vectors.
 */
export type SubjectCloseness = (subject: string) => number | undefined;
