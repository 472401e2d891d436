import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import type { Embedder } from '../../lib/embed/embedder';
import { openMemoryDB } from '../../lib/memory/db';
import { MemoryStore } from '../../lib/memory/store';
import { LexicalIndex } from '../../lib/rank/lexical-index';

/** A deterministic fake model: the vector is a hash of the text, so a changed text has a different vector. */
const fakeEmbedder: Embedder = {
  modelId: 'fake',
  dim: 8,
  backend: 'test',
  async embed(texts) {
    return texts.map((t) => {
      const v = new Float32Array(8);
      for (let i = 0; i < t.length; i++) v[i % 8] += ((t.charCodeAt(i) * 31) % 17) - 8;
      const n = Math.hypot(...v) || 1;
      return v.map((x) => x / n);
    });
  },
};

const fresh = () => openMemoryDB('pack', { indexedDB: new IDBFactory(), IDBKeyRange });

/** Everything the ranker reads for one item: vector codes and its BM25 entry. */
function snapshot(store: MemoryStore) {
  const out: Record<string, unknown> = {};
  for (const it of store.items()) {
    const v = store.view.vector(it.id);
    out[it.id] = { v: v ? Array.from(v).map((x) => x.toFixed(4)) : null, tf: [...(store.view.lexicalIndex.termsOf(it.id) ?? [])].sort(), asks: store.view.lexicalIndex.asks(it.id) };
  }
  return out;
}

async function seeded() {
  const db = fresh();
  const store = new MemoryStore(db, async () => fakeEmbedder);
  await store.add([
    { id: 'a', text: 'Did Alice approve the painted houses on 3 March?', people: ['Alice'], tags: ['house'] },
    { id: 'b', text: 'Budget review moved to Thursday at 10:30.', title: 'Budget' },
    { id: 'c', text: 'Plumber: call back after the weekend.', tags: ['home'] },
  ]);
  await store.add([{ id: 'd', text: 'Imported note, embedded later.' }], { deferEmbedding: true });
  return { db, store };
}

describe('persisted index pack', () => {
  it('loads the same vectors and BM25 entries from the pack as from the tables', async () => {
    const { db, store } = await seeded();
    await store.savePack();
    expect(await db.packs.count()).toBe(1);
    const fromPack = new MemoryStore(db, async () => fakeEmbedder);
    await fromPack.load();
    await db.packs.clear();
    const fromRows = new MemoryStore(db, async () => fakeEmbedder);
    await fromRows.load();
    expect(snapshot(fromPack)).toEqual(snapshot(fromRows));
    expect(snapshot(fromPack)).toEqual(snapshot(store));
    expect(fromPack.view.vector('d')).toBeUndefined();
    expect(fromPack.unembedded()).toEqual(['d']);
  });

  it('uses the tables wherever the pack no longer matches them (IndexedDB stays the truth)', async () => {
    const { db, store } = await seeded();
    await store.savePack();
    // Changes the pack never saw: an edit, a deletion, a vector that arrived later, and one written by other code.
    await store.update('b', { text: 'Budget review moved to Friday.' });
    await store.remove(['c']);
    await store.embedPending();
    await db.items.put({ ...store.get('a')!, text: 'Changed behind the store: tomatoes need hardening off.' });
    const reopened = new MemoryStore(db, async () => fakeEmbedder);
    await reopened.load();
    await db.packs.clear();
    const truth = new MemoryStore(db, async () => fakeEmbedder);
    await truth.load();
    expect(snapshot(reopened)).toEqual(snapshot(truth));
    expect(reopened.view.lexicalIndex.termsOf('a')?.has('tomato')).toBe(true);
    expect(reopened.view.vector('d')).toBeDefined();
    expect(reopened.get('c')).toBeUndefined();
  });

  it('drops a vector the table no longer has even if the pack still holds it', async () => {
    const { db, store } = await seeded();
    await store.savePack();
    await db.vectors.delete('a'); // other code deleted it; the item itself is unchanged
    const reopened = new MemoryStore(db, async () => fakeEmbedder);
    await reopened.load();
    expect(reopened.view.vector('a')).toBeUndefined();
    expect(reopened.view.vector('b')).toBeDefined();
  });

  it('exports and re-imports BM25 entries exactly', () => {
    const a = new LexicalIndex();
    a.addItem({ id: 'x', text: 'Running costs rose 12% on 3 March? Ask Bob.', title: 'Costs', tags: ['q1'], people: ['Bob'], createdAt: Date.UTC(2025, 2, 3) });
    a.addItem({ id: 'y', text: 'Painted houses', title: '', tags: [], people: [], thread: { id: 't', seq: 2 } });
    const p = a.exportDocs(['x', 'y']);
    const terms = p.terms.split('\u0000');
    const b = new LexicalIndex();
    b.addPacked('x', p, terms, 0);
    b.addPacked('y', p, terms, 1);
    for (const id of ['x', 'y']) expect([...b.termsOf(id)!]).toEqual([...a.termsOf(id)!]);
    const q = LexicalIndex.queryTerms('running costs houses');
    expect(b.search(q, 5)).toEqual(a.search(q, 5));
    expect(b.neighbour('y', 0)).toBe('y');
  });
});
