import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { OverrideMemo } from '../../lib/rank/overridden-instructions';
import { FeedbackStore, openLearningDB } from '../../lib/learn/feedback-store';
import { Learning } from '../../lib/learn/learning';
import type { LearnedWeights } from '../../lib/learn/types';
import { openMemoryDB } from '../../lib/memory/db';
import { MemoryStore } from '../../lib/memory/store';
import type { TaskReading } from '../../lib/rank/types';
import { QueryVectorCache } from '../../lib/service/query-vectors';
import { rankForTab, type RankInputs } from '../../lib/service/ranking';
import { DEFAULT_SETTINGS } from '../../lib/settings/defaults';
import { reasonOf } from './rank-fixtures';

/** A tab's panel as the worker ranks it: with what learning applies, and the cards noted where feedback reads them. */
const NOW = Date.UTC(2026, 10, 1);
const DAY = 86_400_000;
const task: TaskReading = { url: 'https://mail.google.com/', title: '', site: 'mail.google.com', adapter: 'gmail', destination: 'email', field: { text: 'the offsite hotel booking', kind: 'textarea' }, at: NOW };
const fresh = (name: string) => new Learning(() => new FeedbackStore(openLearningDB(name, { indexedDB: new IDBFactory(), IDBKeyRange })));

async function memory(): Promise<MemoryStore> {
  const store = new MemoryStore(openMemoryDB('tab-ranking', { indexedDB: new IDBFactory(), IDBKeyRange }), async () => null);
  // Alike in words; the older is tagged important (priority), the newer is recent.
  await store.add([
    { id: 'old', text: 'Offsite hotel booking: the Lisbon hotel.', tags: ['important'], createdAt: NOW - 200 * DAY },
    { id: 'new', text: 'Offsite hotel booking: the Porto hotel.', createdAt: NOW - DAY },
  ], { from: 'user' });
  return store;
}

const inputs = (store: MemoryStore, tabId: number, learning: RankInputs['learning']): RankInputs => ({
  tabId, task, store, settings: DEFAULT_SETTINGS, embedder: null, queries: new QueryVectorCache(), overrides: new OverrideMemo(), model: { state: 'failed' },
  recentlyUsed: [], dismissed: [], learning, seq: 1, now: NOW,
});

describe('ranking a tab', () => {
  it('ranks with the learned change the learning it is given applies, and says so on the card', async () => {
    const store = await memory();
    // Recency counts more and priority less (a change to one factor alone is scaled back to the sliders' total).
    const learned: LearnedWeights = { global: { semantic: 0, lexical: 0, recency: Math.log(3), priority: -Math.log(3), continuity: 0, situation: 0 }, sites: {}, pairs: 500, fittedAt: NOW };
    const off = await rankForTab(inputs(store, 1, { active: async () => undefined, noteShown: () => {} }));
    expect(off.cards.map((c) => c.item.id)).toEqual(['old', 'new']);
    const on = await rankForTab(inputs(store, 1, { active: async () => learned, noteShown: () => {} }));
    expect(on.cards.map((c) => c.item.id)).toEqual(['new', 'old']);
    expect(on.cards[0].learned).toMatch(/^Learned from your feedback: recency counts more everywhere, so it is above “Offsite hotel booking: the Lisbon/);
    expect(reasonOf(on.trace, 'new')).toMatch(/Learned from your feedback: recency counts more/);
  });

  it('notes the cards a tab shows in the learning it is given, so a use there is feedback and nowhere else', async () => {
    const store = await memory();
    const mine = fresh('mine');
    const other = fresh('other');
    const state = await rankForTab(inputs(store, 4, mine));
    expect(state.cards.length).toBe(2);
    await other.feedback(4, state.cards[1].item.id, 'insert', DEFAULT_SETTINGS.weights);
    expect((await other.exportAll()).events).toEqual([]);
    await mine.feedback(4, state.cards[1].item.id, 'insert', DEFAULT_SETTINGS.weights);
    const { events } = await mine.exportAll();
    expect(events.map((e) => [e.itemId, e.site, e.shown.map((c) => c.id)])).toEqual([[state.cards[1].item.id, 'mail.google.com', state.cards.map((c) => c.item.id)]]);
  });
});
