import Dexie, { type EntityTable } from 'dexie';
import { isDestination } from '../core/destinations';
import { perFactor, type Weights } from '../core/factors';
import { fitWeights, LEARNING, preferencePairs } from './learner';
import type { FeedbackAction, FeedbackEvent, LearnedWeights } from './types';
import type { FeedbackBlock } from './feedback-file';
import { eventKey, laterSwitch, SYNC_EVENTS, type SyncedLearning } from './feedback-sync';
import { PhraseTally, type PhraseRow } from './phrase-tally';

interface StateRow {
  key: 'state';
  enabled: boolean;
  learned?: LearnedWeights;
  /** The sliders the change was fitted against (a change is a multiplier on them). */
  base?: Weights;
  /** When learning was last switched on or off here or on another device (the later switch wins when they sync). */
  enabledAt?: number;
  /** Feedback up to this time was forgotten (a reset, here or on another device): it is not taken back from sync. */
  resetAt?: number;
}

export type LearningDB = Dexie & {
  events: EntityTable<FeedbackEvent, 'id'>;
  state: EntityTable<StateRow, 'key'>;
  /** Instruction-like phrases seen in the user's prompts and what the user answered to an offer (lib/learn/phrase-tally.ts). */
  phrases: EntityTable<PhraseRow, 'key'>;
};

/** A database of its own, so its schema moves independently of the memory's. */
export const LEARNING_DB_NAME = 'backstory-learning';

export function openLearningDB(name = LEARNING_DB_NAME, deps?: { indexedDB: IDBFactory; IDBKeyRange: typeof IDBKeyRange }): LearningDB {
  const db = (deps ? new Dexie(name, deps) : new Dexie(name)) as LearningDB;
  db.version(1).stores({ events: '++id, at', state: 'key' });
  db.version(2).stores({ events: '++id, at', state: 'key', phrases: 'key, lastAt' });
  return db;
}

/** The most recent events the fit reads: old habits fade, and the fit stays a few tens of ms. */
const FIT_EVENTS = 1000;
/** Events kept at most; older ones are dropped as new ones arrive. */
export const KEEP_EVENTS = 5000;

export interface LearningStatus {
  enabled: boolean;
  events: number;
  pairs: number;
  /** Pairs needed before anything is learned. */
  needed: number;
  /** What was learned, in plain words (empty before there is enough feedback, or when nothing stood out). */
  learned?: LearnedWeights;
}

const ACTIONS = new Set<FeedbackAction>(['insert', 'copy', 'drag', 'dismiss']);

/** Checks an event from a message or a file; undefined when it is not one. */
export function validEvent(v: unknown): FeedbackEvent | undefined {
  if (!v || typeof v !== 'object') return undefined;
  const e = v as Partial<FeedbackEvent>;
  if (!ACTIONS.has(e.action as FeedbackAction) || typeof e.itemId !== 'string' || !Array.isArray(e.shown)) return undefined;
  const shown = e.shown
    .filter((c) => c && typeof c.id === 'string' && c.factors && typeof c.factors === 'object')
    .slice(0, 50)
    .map((c) => {
      const factors = perFactor((n) => {
        const x = Number(c.factors[n]);
        return Number.isFinite(x) ? Math.max(0, Math.min(1, x)) : 0;
      });
      return { id: c.id, factors, ...(c.pinned ? { pinned: true } : {}) };
    });
  const destination = isDestination(e.destination) ? e.destination : 'documents';
  const together = Array.isArray(e.together) ? e.together.filter((id): id is string => typeof id === 'string').slice(0, 50) : [];
  return {
    at: Number.isFinite(e.at) ? Number(e.at) : Date.now(), action: e.action!, itemId: e.itemId, site: typeof e.site === 'string' ? e.site : '', destination, shown,
    ...(together.length ? { together } : {}),
  };
}

/** Feedback events and what was learned from them, on the device. */
export class FeedbackStore {
  private cache?: Promise<StateRow>;
  /** Phrases the user keeps typing into prompts, offered as instructions. */
  readonly phrases: PhraseTally;
  constructor(private readonly db: LearningDB) {
    this.phrases = new PhraseTally(db);
  }

  private state(): Promise<StateRow> {
    return (this.cache ??= this.db.state.get('state').then((s) => s ?? { key: 'state', enabled: true }));
  }

  private async save(s: StateRow): Promise<void> {
    this.cache = Promise.resolve(s);
    await this.db.state.put(s);
  }

  /** The learned change the ranker should apply now; undefined when learning is off or has not learned yet. */
  async active(): Promise<LearnedWeights | undefined> {
    const s = await this.state();
    return s.enabled ? s.learned : undefined;
  }

  /** Stores one event and refits (only the events are kept when learning is off: turning it on uses them). */
  async record(event: FeedbackEvent, base: Weights): Promise<void> {
    return this.recordAll([event], base);
  }

  /** Stores the events of one action (Insert all gives one per card) and refits once. */
  async recordAll(events: FeedbackEvent[], base: Weights): Promise<void> {
    if (!events.length) return;
    await this.addEvents(events);
    if ((await this.state()).enabled) await this.refit(base);
  }

  /** Stores events, dropping the oldest beyond the cap. */
  private async addEvents(events: FeedbackEvent[]): Promise<void> {
    await this.db.events.bulkAdd(events);
    const n = await this.db.events.count();
    if (n > KEEP_EVENTS) {
      const old = await this.db.events.orderBy('at').limit(n - KEEP_EVENTS).primaryKeys();
      await this.db.events.bulkDelete(old);
    }
  }

  async refit(base: Weights): Promise<void> {
    const events = await this.db.events.orderBy('at').reverse().limit(FIT_EVENTS).toArray();
    const learned = fitWeights(preferencePairs(events), base);
    await this.save({ ...(await this.state()), learned, base });
  }

  async status(): Promise<LearningStatus> {
    const s = await this.state();
    const events = await this.db.events.orderBy('at').reverse().limit(FIT_EVENTS).toArray();
    return { enabled: s.enabled, events: await this.db.events.count(), pairs: preferencePairs(events).length, needed: LEARNING.minPairs, learned: s.learned };
  }

  /** Off: ranking uses the sliders alone; the feedback stays, so turning it on again picks up where it was. */
  async setEnabled(enabled: boolean, base: Weights, at = Date.now()): Promise<void> {
    await this.save({ ...(await this.state()), enabled, enabledAt: at });
    if (enabled) await this.refit(base);
  }

  /** Back to the defaults: the feedback and what was learned from it are forgotten (on synced devices too). */
  async reset(): Promise<void> {
    const newest = (await this.db.events.orderBy('at').last())?.at ?? 0;
    const { enabled, enabledAt, resetAt } = await this.state();
    await this.db.events.clear();
    await this.save({ key: 'state', enabled, enabledAt, resetAt: Math.max(Date.now(), newest, resetAt ?? 0) });
  }

  /** What this device says about learning to its other devices (lib/learn/feedback-sync.ts encodes it). */
  async synced(): Promise<SyncedLearning> {
    const s = await this.state();
    const events = (await this.db.events.orderBy('at').reverse().limit(SYNC_EVENTS).toArray()).map(({ id: _id, ...e }) => e);
    return { ...(s.enabledAt !== undefined ? { enabled: { on: s.enabled, at: s.enabledAt } } : {}), resetAt: s.resetAt ?? 0, events };
  }

  /**
   * Takes in what the devices' learning merged to: feedback reset elsewhere is forgotten here, events not held yet
   * are added (one already held, by its key, is not added again), a later switch of learning is followed, and the
   * weights are fitted again when anything changed. Returns how many events were added.
   */
  async mergeSynced(l: SyncedLearning, base: Weights): Promise<number> {
    let s = await this.state();
    let changed = false;
    if (l.resetAt > (s.resetAt ?? 0)) {
      const gone = await this.db.events.where('at').belowOrEqual(l.resetAt).primaryKeys();
      await this.db.events.bulkDelete(gone);
      s = { ...s, resetAt: l.resetAt, ...(gone.length ? { learned: undefined } : {}) };
      changed = true;
    }
    if (l.enabled && laterSwitch(l.enabled, s.enabledAt === undefined ? undefined : { on: s.enabled, at: s.enabledAt })) {
      s = { ...s, enabled: l.enabled.on, enabledAt: l.enabled.at };
      changed = true;
    }
    const floor = s.resetAt ?? 0;
    const candidates = l.events.filter((e) => e.at > floor);
    let added: typeof candidates = [];
    if (candidates.length) {
      const oldest = Math.min(...candidates.map((e) => e.at));
      const held = new Set((await this.db.events.where('at').aboveOrEqual(oldest).toArray()).map(eventKey));
      added = candidates.filter((e) => !held.has(eventKey(e)) && !!held.add(eventKey(e)));
    }
    if (changed) await this.save(s);
    if (added.length) await this.addEvents(added.map(({ id: _id, ...e }) => e));
    if ((changed || added.length) && s.enabled) await this.refit(base);
    return added.length;
  }

  /** For the memory file: every event, whether learning is on, and the phrase tally. */
  async exportAll(): Promise<{ enabled: boolean; events: FeedbackEvent[]; phrases: PhraseRow[] }> {
    const events = (await this.db.events.orderBy('at').toArray()).map(({ id: _id, ...e }) => e);
    return { enabled: (await this.state()).enabled, events, phrases: await this.db.phrases.toArray() };
  }

  /**
   * Adds the feedback of an imported memory file, as checked by readFeedbackBlock (lib/learn/feedback-file.ts), and
   * refits. Phrase counts seed phrase offers only from a trusted file (`withPhrases`). Whether learning is on stays as
   * the user set it. Returns how many events were added.
   */
  async importAll(block: Pick<FeedbackBlock, 'events' | 'phrases'>, base: Weights, opts: { withPhrases: boolean }): Promise<number> {
    if (block.events.length) await this.addEvents(block.events);
    if (opts.withPhrases && block.phrases.length) await this.phrases.merge(block.phrases);
    if ((await this.state()).enabled) await this.refit(base);
    return block.events.length;
  }

  /** Clear all: the feedback goes with the memory. */
  async clear(): Promise<void> {
    const newest = (await this.db.events.orderBy('at').last())?.at ?? 0;
    const { resetAt } = await this.state();
    await this.db.events.clear();
    await this.db.state.clear();
    await this.db.phrases.clear();
    this.cache = undefined;
    // Synced devices forget the same feedback rather than send it back.
    await this.save({ key: 'state', enabled: true, resetAt: Math.max(Date.now(), newest, resetAt ?? 0) });
  }
}
