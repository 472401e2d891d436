import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { OverrideMemo } from '../../lib/rank/overridden-instructions';
import { openMemoryDB } from '../../lib/memory/db';
import { MemoryStore } from '../../lib/memory/store';
import type { TaskReading } from '../../lib/rank/types';
import { QueryVectorCache } from '../../lib/service/query-vectors';
import { rankForTab } from '../../lib/service/ranking';
import { KeptTraces, panelTrace } from '../../lib/service/panel-trace';
import { LEFT_OUT_SHOWN } from '../../lib/messaging/protocol';
import { DEFAULT_SETTINGS } from '../../lib/settings/defaults';
import { displayTitle } from '../../lib/core/items';

/** A mail to Alice, who has hundreds of notes: most of them are weighed unread and left out. */
const NOW = Date.UTC(2026, 10, 1);
const task: TaskReading = {
  url: 'https://mail.google.com/mail/u/0/#inbox', title: 'Inbox', site: 'mail.google.com', adapter: 'gmail', destination: 'email',
  field: { text: 'the quarterly budget review', kind: 'contenteditable' }, people: ['Alice <alice@example.com>'], at: NOW,
};

/** Alice's notes saved, then read by a worker that starts again: it holds no texts, so they are weighed unread. */
async function aliceMemory(): Promise<MemoryStore> {
  const idb = { indexedDB: new IDBFactory(), IDBKeyRange };
  const store = new MemoryStore(openMemoryDB('panel-trace', idb), async () => null);
  const notes = Array.from({ length: 400 }, (_, k) => ({
    id: `a${k}`, title: `Alice note ${k}: ${k === 377 ? 'the harbour picnic' : 'a lunch'}`, text: `Alice mentioned item ${k} over lunch.`,
    people: ['Alice <alice@example.com>'], createdAt: NOW - (k + 1) * 3_600_000,
  }));
  await store.add([...notes, { id: 'budget', text: 'The quarterly budget review moved to Friday.', createdAt: NOW - 86_400_000 }], { from: 'user' });
  const again = new MemoryStore(openMemoryDB('panel-trace', idb), async () => null);
  await again.load();
  return again;
}

async function rank(store: MemoryStore, tabId: number) {
  return rankForTab({
    tabId, task, store, settings: DEFAULT_SETTINGS, embedder: null, queries: new QueryVectorCache(), overrides: new OverrideMemo(),
    model: { state: 'failed' }, recentlyUsed: [], dismissed: [], learning: { active: async () => undefined, noteShown: () => {} }, seq: 7, now: NOW,
  });
}

describe("what a ranking's trace sends the panel, and the search over the rest", () => {
  it('an update carries the cards and the first left out with the count of all; a search finds one far past them, titled', async () => {
    const store = await aliceMemory();
    const state = await rank(store, 3);
    const all = state.trace;
    const left = all.filter((e) => !e.included);
    expect(left.length).toBeGreaterThan(300);
    expect(left.filter((e) => e.untitled).length).toBeGreaterThan(300);

    const sent = panelTrace(all);
    expect(sent.leftOut).toBe(left.length);
    expect(sent.trace.filter((e) => !e.included)).toEqual(left.slice(0, LEFT_OUT_SHOWN));
    expect(sent.trace.filter((e) => e.included).map((e) => e.id).sort()).toEqual(state.cards.map((c) => c.item.id).sort());
    expect(JSON.stringify(sent.trace).length * 5).toBeLessThan(JSON.stringify(all).length);

    const picnic = left.findIndex((e) => e.id === 'a377');
    expect(picnic).toBeGreaterThan(LEFT_OUT_SHOWN);
    const kept = new KeptTraces();
    kept.keep(3, 7, all);
    let reads = 0;
    const titles = async (ids: string[]) => {
      reads += ids.length;
      const got = new Map((await store.readMany(ids)).map((it) => [it.id, displayTitle(it)]));
      return ids.map((id) => got.get(id) ?? '');
    };
    const found = await kept.find(3, 'Harbour PICNIC', titles);
    expect(found.seq).toBe(7);
    expect(found.entries.map((e) => [e.id, e.title, e.untitled])).toEqual([['a377', 'Alice note 377: the harbour picnic', undefined]]);
    expect(found.entries[0].decided).toEqual(left[picnic].decided);
    const read = reads;
    expect(read).toBeGreaterThan(300);
    // The tab's next search (and the next ranking's) reads no title again; another tab has nothing kept.
    expect((await kept.find(3, 'note 12', titles)).entries.length).toBeGreaterThan(0);
    kept.keep(3, 8, all);
    expect((await kept.find(3, 'lunch', titles)).entries.length).toBe(LEFT_OUT_SHOWN);
    expect(reads).toBe(read);
    expect(await kept.find(4, 'lunch', titles)).toEqual({ seq: -1, entries: [] });
    // A ranking that started before a newer one and finishes after it leaves the newer trace in place.
    kept.keep(3, 6, all.slice(0, 5));
    expect((await kept.find(3, 'lunch', titles)).seq).toBe(8);
    // A closed tab's trace goes with it (a ranking still under way then: tab-ranker.test.ts).
    kept.forget(3);
    expect(await kept.find(3, 'lunch', titles)).toEqual({ seq: -1, entries: [] });
  });
});
