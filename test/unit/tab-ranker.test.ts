import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { openMemoryDB } from '../../lib/memory/db';
import { MemoryStore } from '../../lib/memory/store';
import { TabRanker } from '../../lib/service/tab-ranker';
import { normalizeSettings } from '../../lib/settings/settings';
import type { TaskReading } from '../../lib/rank/types';

type Deps = ConstructorParameters<typeof TabRanker>;

/** A worker's tab ranker over a real store; the browser around it (model, page access, learning) as plain objects. */
async function ranker() {
  const store = new MemoryStore(openMemoryDB('tabs', { indexedDB: new IDBFactory(), IDBKeyRange }), async () => null);
  await store.add(
    Array.from({ length: 30 }, (_, i) => ({ id: `n${i}`, text: `Harbour picnic plan ${i}: bring the blue blankets and the kite.` })),
    { from: 'user' },
  );
  const task: TaskReading = { url: 'https://mail.example/', title: 'Mail', site: 'mail.example', adapter: 'generic', destination: 'documents', field: { text: 'harbour picnic blankets', kind: 'textarea' }, at: Date.now() };
  const shown: number[] = [];
  const settings = normalizeSettings({});
  const tabs = new TabRanker(
    store,
    { status: { state: 'failed' }, get: async () => null } as unknown as Deps[1],
    { get: async () => task, usedIn: () => [], dismissedIn: () => [] } as unknown as Deps[2],
    { get: async () => settings, rank: async () => settings.rank } as unknown as Deps[3],
    { tabAccess: async () => ({ state: 'granted' }) } as unknown as Deps[4],
    { readNow: async () => {} } as unknown as Deps[5],
    { progress: undefined } as unknown as Deps[6],
    { active: async () => undefined, noteShown: (tabId: number) => shown.push(tabId) } as unknown as Deps[7],
  );
  return { tabs, shown };
}

describe('a tab ranked for its panel', () => {
  it('keeps its trace for Why not? and notes what it showed for learning', async () => {
    const { tabs, shown } = await ranker();
    const state = await tabs.rank(5, 1, undefined, {});
    expect(state.cards.length).toBeGreaterThan(0);
    expect((await tabs.traceFind(5, 'picnic')).seq).toBe(1);
    expect(shown).toEqual([5]);
  });

  it('keeps nothing of a ranking still under way when its tab closed: no trace, nothing noted as shown', async () => {
    const { tabs, shown } = await ranker();
    const ranking = tabs.rank(5, 1, undefined, {});
    tabs.forgetTab(5);
    await ranking;
    expect(await tabs.traceFind(5, 'picnic')).toEqual({ seq: -1, entries: [] });
    expect(shown).toEqual([]);
  });
});
