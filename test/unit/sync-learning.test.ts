import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { DEFAULT_WEIGHTS, perFactor, type FactorName } from '../../lib/core/factors';
import { FeedbackStore, openLearningDB } from '../../lib/learn/feedback-store';
import { decodeLearning, encodeLearning, SYNC_CHARS, SYNC_EVENTS, unionLearning } from '../../lib/learn/feedback-sync';
import { Learning } from '../../lib/learn/learning';
import { learnedWeightsFor } from '../../lib/learn/learner';
import { SiteSuggestions } from '../../lib/service/site-suggestions';
import { syncedSettingsIO } from '../../lib/service/synced-settings';
import type { FeedbackEvent } from '../../lib/learn/types';
import type { SyncDeps } from '../../lib/sync/engine';
import { badValue, JSON_LIMITS, jsonWithin, SETTINGS_ID } from '../../lib/sync/fields';
import { MergeState } from '../../lib/sync/merge';
import { MemoryStorage, SyncedFolders } from '../../lib/sync/storage-memory';
import { StateStore } from '../../lib/sync/state-store';
import type { SyncStorage } from '../../lib/sync/types';
import { SyncProfile } from './sync-fixtures';

const idb = () => ({ indexedDB: new IDBFactory(), IDBKeyRange });

/** A browser profile: memory, settings, learning and the sites it may read, syncing through `storage`. */
class Profile extends SyncProfile {
  readonly feedback = new FeedbackStore(openLearningDB('learning', idb()));
  readonly learning = new Learning(() => this.feedback);
  /** Origins this browser granted (optional host permissions), and its local storage. */
  granted: string[] = [];
  readonly local = new Map<string, unknown>();
  readonly sites = new SiteSuggestions({
    granted: async () => this.granted,
    reserved: async () => ['https://dav.example.net/*'],
    storage: {
      get: async (key) => (this.local.has(key) ? { [key]: structuredClone(this.local.get(key)) } : {}),
      set: async (items) => void Object.entries(items).forEach(([k, v]) => this.local.set(k, structuredClone(v))),
    },
  });
  settings = { rank: { weights: { semantic: 1 } }, capture: { sent: false } };
  constructor(name: string, storage: SyncStorage) {
    super(name, storage, null);
  }
  protected override moreDeps(): Partial<SyncDeps> {
    return {
      settings: syncedSettingsIO({
        settings: { get: async () => this.settings, set: async (p) => void (this.settings = { ...this.settings, ...(p as object) }) },
        learning: { syncValue: () => this.learning.syncValue(), mergeSynced: (v) => this.learning.mergeSynced(v, DEFAULT_WEIGHTS) },
        sites: this.sites,
      }),
    };
  }
  async keys(): Promise<string[]> {
    return (await this.feedback.exportAll()).events.map((e) => `${e.at} ${e.itemId}`).sort();
  }
  /** How many values the `learning` register holds as heads (concurrent edits not merged yet). */
  async learningHeads(): Promise<number> {
    const state = new MergeState();
    await new StateStore(this.db).load(state, [SETTINGS_ID]);
    return state.records.get(SETTINGS_ID)?.get('learning')?.heads.length ?? 0;
  }
}

const scores = (given: Partial<Record<FactorName, number>>) => perFactor((n) => given[n] ?? 0.4);

/** A use of card `used` among 8 shown cards: the user takes the newest card over the more similar ones. */
function use(at: number, used: string, site = 'mail.example.com'): FeedbackEvent {
  const shown = Array.from({ length: 8 }, (_, i) => ({ id: `${used}-${i}`, factors: scores({ semantic: 0.8 + i * 0.01, recency: 0.1 }) }));
  shown[3] = { id: used, factors: scores({ semantic: 0.3, recency: 0.95 }) };
  return { at, action: 'insert', itemId: used, site, destination: 'email', shown };
}

/** A user who takes the newest of 8 varied cards, `n` times from time `at` (deterministic for a seed). */
function newestTaken(n: number, at: number, seed: number): FeedbackEvent[] {
  let x = seed >>> 0;
  const r = () => ((x = (Math.imul(x, 1664525) + 1013904223) >>> 0) / 2 ** 32);
  return Array.from({ length: n }, (_, k) => {
    const shown = Array.from({ length: 8 }, (_, i) => ({
      id: `s${seed}-${k}-${i}`,
      factors: { semantic: 0.3 + 0.5 * r(), lexical: 0.5 * r(), recency: r(), priority: 0, continuity: 0, situation: r() < 0.3 ? 0.8 : 0 },
    }));
    const newest = shown.reduce((a, b) => (b.factors.recency > a.factors.recency ? b : a));
    return { at: at + k, action: 'insert' as const, itemId: newest.id, site: 'mail.example.com', destination: 'email' as const, shown };
  });
}

/** Two devices on one folder that carries writes only on `deliver`, both joined before anything is said. */
async function twoDevices() {
  const folders = new SyncedFolders({ seed: 3 });
  const laptop = new Profile('Laptop', folders.place('laptop'));
  const desktop = new Profile('Desktop', folders.place('desktop'));
  await laptop.connect();
  folders.deliver();
  await desktop.connect();
  folders.deliver();
  return { folders, laptop, desktop };
}

describe('learning syncs as a union of feedback', () => {
  it('feedback given on both devices before they sync ends as the union on both, with no doubles after more passes', async () => {
    const { folders, laptop, desktop } = await twoDevices();
    await laptop.feedback.recordAll([use(1_000, 'l1'), use(2_000, 'l2'), use(3_000, 'l3')], DEFAULT_WEIGHTS);
    await desktop.feedback.recordAll([use(1_500, 'd1'), use(2_500, 'd2')], DEFAULT_WEIGHTS);
    // Both write before either sees the other: two concurrent values of `learning`.
    await laptop.pass();
    await desktop.pass();
    folders.deliver();
    await laptop.pass();
    expect(await laptop.learningHeads()).toBe(1); // its edit named both heads as its base
    folders.deliver();
    for (let round = 0; round < 3; round++) {
      await desktop.pass();
      folders.deliver();
      await laptop.pass();
      folders.deliver();
    }
    const union = ['1000 l1', '1500 d1', '2000 l2', '2500 d2', '3000 l3'];
    expect(await laptop.keys()).toEqual(union);
    expect(await desktop.keys()).toEqual(union);
    expect(await laptop.learningHeads()).toBe(1);
    expect(await desktop.learningHeads()).toBe(1);
    // Settled: a pass with nothing new sends nothing.
    expect((await desktop.pass())?.sent).toBe(0);
  });

  it('a third device takes in both concurrent values at once: every head counts, not only the latest', async () => {
    const folders = new SyncedFolders({ seed: 5 });
    const [a, b, c] = ['A', 'B', 'C'].map((n) => new Profile(n, folders.place(n)));
    for (const p of [a, b, c]) {
      await p.connect();
      folders.deliver();
    }
    await a.feedback.recordAll([use(1_000, 'a1')], DEFAULT_WEIGHTS);
    await b.feedback.recordAll([use(2_000, 'b1')], DEFAULT_WEIGHTS);
    await a.pass();
    await b.pass();
    folders.deliver();
    await c.pass();
    expect(await c.keys()).toEqual(['1000 a1', '2000 b1']);
    expect(await c.learningHeads()).toBe(1);
  });

  it('each device refits from the union: neither had enough feedback alone', async () => {
    const folder = new MemoryStorage();
    const laptop = new Profile('Laptop', folder);
    const desktop = new Profile('Desktop', folder);
    // 8 uses of 8 cards are 56 preference pairs, fewer than the 60 learning needs; both devices' are 112.
    await laptop.feedback.recordAll(newestTaken(8, 10_000, 1), DEFAULT_WEIGHTS);
    await desktop.feedback.recordAll(newestTaken(8, 20_000, 2), DEFAULT_WEIGHTS);
    expect(await laptop.feedback.active()).toBeUndefined();
    expect(await desktop.feedback.active()).toBeUndefined();
    await laptop.connect();
    await laptop.pass();
    await desktop.connect();
    await desktop.pass();
    await laptop.pass();
    for (const p of [laptop, desktop]) {
      const status = await p.feedback.status();
      expect(status.events).toBe(16);
      expect(status.pairs).toBe(112);
      const w = learnedWeightsFor(DEFAULT_WEIGHTS, await p.feedback.active(), 'mail.example.com');
      expect(w.recency / DEFAULT_WEIGHTS.recency).toBeGreaterThan(1.2); // the user takes the newest card
    }
  });

  it('a reset on one device forgets the feedback on both, and a switched-off learning stays off', async () => {
    const folder = new MemoryStorage();
    const laptop = new Profile('Laptop', folder);
    const desktop = new Profile('Desktop', folder);
    await laptop.feedback.recordAll([use(1_000, 'l1')], DEFAULT_WEIGHTS);
    await desktop.feedback.recordAll([use(1_500, 'd1')], DEFAULT_WEIGHTS);
    await laptop.connect();
    await laptop.pass();
    await desktop.connect();
    await desktop.pass();
    await laptop.pass();
    expect(await laptop.keys()).toHaveLength(2);
    await laptop.learning.set({ reset: true, enabled: false }, DEFAULT_WEIGHTS);
    await laptop.pass();
    await desktop.pass();
    await laptop.pass();
    expect(await laptop.keys()).toEqual([]);
    expect(await desktop.keys()).toEqual([]);
    expect((await desktop.feedback.status()).enabled).toBe(false);
    // New feedback after the reset syncs again.
    await desktop.feedback.recordAll([use(Date.now() + 1_000, 'd2')], DEFAULT_WEIGHTS);
    await desktop.pass();
    await laptop.pass();
    expect(await laptop.keys()).toHaveLength(1);
  });

  it('sends the newest events within the field’s limits, and reads a hostile value as nothing', () => {
    const many = Array.from({ length: 3 * SYNC_EVENTS }, (_, i) => use(i + 1, `card-${i}`));
    const value = encodeLearning({ resetAt: 0, events: many }) as { events: unknown[] };
    expect(value.events).toHaveLength(SYNC_EVENTS);
    expect(decodeLearning(value).events.map((e) => e.itemId).at(-1)).toBe(`card-${3 * SYNC_EVENTS - 1}`);
    expect(jsonWithin(value, JSON_LIMITS)).toBe(true);
    // Cards with long ids: fewer events, still within the budget.
    const long = many.map((e) => ({ ...e, shown: e.shown.map((c) => ({ ...c, id: c.id.padEnd(2_000, 'x') })) }));
    const big = encodeLearning({ resetAt: 0, events: long }) as { events: unknown[] };
    expect(big.events.length).toBeGreaterThan(0);
    expect(big.events.length).toBeLessThan(SYNC_EVENTS);
    expect(JSON.stringify(big).length).toBeLessThan(SYNC_CHARS + 1_000);
    // Scores of 0 are one digit in JSON but count 8 characters in the field check: still within it.
    const zeros = many.map((e) => ({ ...e, shown: Array.from({ length: 50 }, (_, i) => ({ id: `${i}`, factors: perFactor(() => 0) })) }));
    const flat = encodeLearning({ resetAt: 0, events: zeros });
    expect(jsonWithin(flat, JSON_LIMITS)).toBe(true);
    expect(badValue('learning', flat)).toBeUndefined();
    expect(decodeLearning({ events: [[1, 'hack', 'x', 's', 'email', []], 'junk'], enabled: { on: 'yes', at: 1 } })).toEqual({ resetAt: 0, events: [] });
    expect(decodeLearning('<script>')).toEqual({ resetAt: 0, events: [] });
  });
});

describe('a device sends what another reads back, so two devices settle', () => {
  it('encodes an event as it decodes: cards capped, scores clamped and rounded, a bad event left out', () => {
    const wide = use(5, 'wide');
    wide.shown = Array.from({ length: 60 }, (_, i) => ({ id: i ? `w${i}` : 'wide', factors: scores({ semantic: 1.7, recency: 0.123456 }) }));
    const bad = { ...use(6, 'bad'), itemId: 'x'.repeat(5_000) };
    const value = encodeLearning({ resetAt: 0, events: [wide, bad, use(7, 'ok')] });
    expect(encodeLearning(decodeLearning(value))).toEqual(value);
    expect(decodeLearning(value).events.map((e) => [e.itemId, e.shown.length])).toEqual([['wide', 50], ['ok', 8]]);
  });

  it('switches made at the same moment settle on off, whichever device reads them', () => {
    const on = encodeLearning({ enabled: { on: true, at: 9 }, resetAt: 0, events: [] });
    const off = encodeLearning({ enabled: { on: false, at: 9 }, resetAt: 0, events: [] });
    expect(unionLearning([on, off]).enabled).toEqual({ on: false, at: 9 });
    expect(unionLearning([off, on]).enabled).toEqual({ on: false, at: 9 });
  });
});

describe('the sites allowed on one device are suggested on the other', () => {
  it('suggests (never grants) a site allowed elsewhere, leaves out sync’s server and built-in sites, and keeps a dismissal', async () => {
    const folder = new MemoryStorage();
    const laptop = new Profile('Laptop', folder);
    const desktop = new Profile('Desktop', folder);
    laptop.granted = ['https://wiki.example.org/*', 'https://dav.example.net/*', 'https://mail.google.com/*', 'https://tracker.example.com/*'];
    await laptop.connect();
    await laptop.pass();
    await desktop.connect();
    await desktop.pass();
    expect(desktop.granted).toEqual([]); // nothing granted by sync
    expect(await desktop.sites.shown()).toEqual(['tracker.example.com', 'wiki.example.org']);
    expect(await desktop.sites.dismiss('tracker.example.com')).toEqual(['wiki.example.org']);
    // The user allows the other one here; more passes, and a new site on the laptop.
    desktop.granted = ['https://wiki.example.org/*'];
    laptop.granted = [...laptop.granted, 'https://notes.example.io/*'];
    for (let round = 0; round < 2; round++) {
      await laptop.pass();
      await desktop.pass();
    }
    expect(await desktop.sites.shown()).toEqual(['notes.example.io']);
    expect(await laptop.sites.shown()).toEqual([]);
  });
});
