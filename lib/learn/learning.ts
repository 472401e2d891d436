import type { Weights } from '../core/factors';
import type { RankedCard, TaskReading } from '../rank/types';
import type { FeedbackBlock } from './feedback-file';
import { FeedbackStore, openLearningDB, type LearningStatus } from './feedback-store';
import { describeLearned } from './learner';
import { encodeLearning, unionLearning } from './feedback-sync';
import type { FeedbackAction, FeedbackEvent, LearnedWeights, ShownCard } from './types';

interface Shown {
  site: string;
  destination: FeedbackEvent['destination'];
  cards: ShownCard[];
}

/** What the status message carries to the options page: the numbers and the learned change in plain words. */
export interface LearningReport extends Omit<LearningStatus, 'learned'> {
  lines: string[];
  learned?: LearnedWeights;
}

/**
 * Learning in the extension: remembers the cards each tab was last shown (so an insert, copy, drag or "not useful"
 * can be read against them), stores the feedback and hands the ranker what was learned.
 */
export class Learning {
  private shown = new Map<number, Shown>();
  private store?: FeedbackStore;
  constructor(private readonly open: () => FeedbackStore = () => new FeedbackStore(openLearningDB())) {}

  private db(): FeedbackStore {
    return (this.store ??= this.open());
  }

  /** The cards a tab's panel shows now, in order, with their factor scores. */
  noteShown(tabId: number, task: TaskReading, cards: RankedCard[]): void {
    if (tabId < 0) return; // the options page's preview
    this.shown.set(tabId, {
      site: task.site,
      destination: task.destination,
      cards: cards.map((c) => ({ id: c.item.id, factors: c.factors, ...(c.item.pinned ? { pinned: true } : {}) })),
    });
  }

  forgetTab(tabId: number): void {
    this.shown.delete(tabId);
  }

  /** The user used (or dismissed) a card on a tab: stored as feedback against what the tab showed. */
  async feedback(tabId: number, itemId: string, action: FeedbackAction, base: Weights): Promise<void> {
    return this.feedbackTogether(tabId, [itemId], action, base);
  }

  /**
   * The user used several cards in one action (Insert all): each is a use against what the tab showed, and none is
   * preferred to another. Cards the tab did not show (the worker restarted, a search result) teach nothing.
   */
  async feedbackTogether(tabId: number, itemIds: string[], action: FeedbackAction, base: Weights): Promise<void> {
    const s = this.shown.get(tabId);
    if (!s) return;
    const used = [...new Set(itemIds)].filter((id) => s.cards.some((c) => c.id === id));
    const at = Date.now();
    const events = used.map((itemId) => ({
      at, action, itemId, site: s.site, destination: s.destination, shown: s.cards,
      ...(used.length > 1 ? { together: used.filter((id) => id !== itemId) } : {}),
    }));
    await this.db().recordAll(events, base);
  }

  /** What the ranker applies now (undefined when off, not learned yet, or storage is unavailable). */
  async active(): Promise<LearnedWeights | undefined> {
    try {
      return await this.db().active();
    } catch {
      return undefined;
    }
  }

  async status(base: Weights): Promise<LearningReport> {
    const s = await this.db().status();
    return { ...s, lines: s.enabled ? describeLearned(s.learned, base) : [] };
  }

  async set(change: { enabled?: boolean; reset?: boolean }, base: Weights): Promise<LearningReport> {
    if (change.reset) await this.db().reset();
    if (change.enabled !== undefined) await this.db().setEnabled(change.enabled, base);
    return this.status(base);
  }

  /** The `learning` value this device sends to its other devices (lib/learn/feedback-sync.ts). */
  async syncValue(): Promise<unknown> {
    return encodeLearning(await this.db().synced());
  }

  /**
   * What the devices' `learning` values merged to: every concurrent value's events are taken in (a union, each event
   * once), and the weights refitted from what this device then holds. Returns how many events were new here.
   */
  mergeSynced(values: readonly unknown[], base: Weights): Promise<number> {
    return this.db().mergeSynced(unionLearning(values), base);
  }

  exportAll() {
    return this.db().exportAll();
  }

  /** The tally of phrases the user keeps typing into prompts (kept in the learning database). */
  phrases() {
    return this.db().phrases;
  }

  /** A memory file's feedback as checked before its import committed (readFeedbackBlock). */
  importFeedback(block: FeedbackBlock, base: Weights, opts: { withPhrases: boolean }): Promise<number> {
    return this.db().importAll(block, base, opts);
  }

  clear() {
    this.shown.clear();
    return this.db().clear();
  }
}
