import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import type { Embedder } from '../../lib/embed/embedder';
import { openMemoryDB } from '../../lib/memory/db';
import { MemoryStore } from '../../lib/memory/store';

const freshDb = () => openMemoryDB('write-order', { indexedDB: new IDBFactory(), IDBKeyRange });

/**
 * An embedder whose answers wait until the test lets them go (`release`), as a slow model does while the user deletes
 * or clears what is being embedded.
 */
function heldEmbedder() {
  const waiting: { texts: string[]; done: () => void }[] = [];
  let holding = false;
  const embedder: Embedder = {
    modelId: 'test',
    dim: 2,
    backend: 'test',
    embed(texts) {
      const made = texts.map((t) => new Float32Array([t.length % 2, 1]));
      if (!holding) return Promise.resolve(made);
      return new Promise((resolve) => waiting.push({ texts, done: () => resolve(made) }));
    },
  };
  return {
    embedder,
    hold: () => void (holding = true),
    /** Resolves once an embedding has been asked for and is being held. */
    async asked(n = 1): Promise<void> {
      for (let i = 0; i < 500 && waiting.length < n; i++) await new Promise((r) => setTimeout(r, 2));
      if (waiting.length < n) throw new Error('the embedder was never asked');
    },
    /** Lets the held embeddings finish, in the given order (default: as asked). */
    release(order?: number[]) {
      holding = false;
      const all = waiting.splice(0);
      for (const i of order ?? all.map((_, k) => k)) all[i].done();
    },
  };
}

async function storeWith(texts: string[]) {
  const db = freshDb();
  const model = heldEmbedder();
  const store = new MemoryStore(db, async () => model.embedder);
  const items = await store.add(texts.map((text) => ({ text })), { from: 'user' });
  return { db, model, store, items, reopened: async () => {
    const again = new MemoryStore(db, async () => model.embedder);
    await again.load();
    return again;
  } };
}

describe('memory writes are applied in the order they were made', () => {
  it('a memory deleted while its edit is being embedded stays deleted, in memory and after a restart', async () => {
    const { db, model, store, items: [item], reopened } = await storeWith(['Invoices from Acme are paid net 30.']);
    model.hold();
    const edit = store.update(item.id, { text: 'Invoices from Acme are paid net 45.' }).catch(() => undefined);
    await model.asked();
    await store.remove([item.id]);
    model.release();
    await edit;
    expect(await store.read(item.id)).toBeUndefined();
    expect(await db.items.get(item.id)).toBeUndefined();
    expect(await db.vectors.get(item.id)).toBeUndefined();
    expect((await reopened()).size).toBe(0);
  });

  it('Clear all while an edit is being embedded leaves memory empty', async () => {
    const { db, model, store, items, reopened } = await storeWith(['Invoices from Acme are paid net 30.', 'The offsite is in Lisbon.']);
    model.hold();
    const edit = store.update(items[0].id, { text: 'Invoices from Acme are paid net 45.' }).catch(() => undefined);
    await model.asked();
    await store.clear();
    model.release();
    await edit;
    expect(store.size).toBe(0);
    expect(await db.items.count()).toBe(0);
    expect(await db.vectors.count()).toBe(0);
    expect((await reopened()).size).toBe(0);
  });

  it('Clear all while a new note is being embedded leaves memory empty', async () => {
    const { db, model, store, reopened } = await storeWith([]);
    model.hold();
    const adding = store.add([{ text: 'Remember the Lisbon hotel booking.' }], { from: 'user' }).catch(() => undefined);
    await model.asked();
    await store.clear();
    model.release();
    await adding;
    expect(store.size).toBe(0);
    expect(await db.items.count()).toBe(0);
    expect((await reopened()).size).toBe(0);
  });

  it('of two edits, the later one is what stays, even when the earlier one takes longer to embed', async () => {
    const { model, store, items: [item], reopened } = await storeWith(['Invoices are paid net 30.']);
    model.hold();
    const first = store.update(item.id, { text: 'Invoices are paid net 45.' });
    await model.asked(1);
    const second = store.update(item.id, { text: 'Invoices are paid net 60, said Priya.' });
    await model.asked(2);
    model.release([1, 0]); // the later edit's embedding finishes first
    await Promise.all([first, second]);
    expect((await store.read(item.id))?.text).toBe('Invoices are paid net 60, said Priya.');
    const again = await reopened();
    expect((await again.read(item.id))?.text).toBe('Invoices are paid net 60, said Priya.');
    // Its vector is the later text's, not the earlier edit's.
    expect(Array.from(again.view.vector(item.id) ?? [])).toEqual(Array.from(store.view.vector(item.id) ?? []));
    expect(again.view.hasVector(item.id)).toBe(true);
    expect(again.unembedded()).toEqual([]);
  });

  it('an edit changes only what it names: a pin made while it was embedding stays', async () => {
    const { model, store, items: [item], reopened } = await storeWith(['Invoices are paid net 30.']);
    model.hold();
    const edit = store.update(item.id, { text: 'Invoices are paid net 45.' });
    await model.asked();
    await store.update(item.id, { pinned: true });
    model.release();
    await edit;
    const again = await reopened();
    expect(await again.read(item.id)).toMatchObject({ text: 'Invoices are paid net 45.', pinned: true });
  });

  it('a card inserted (marked used) right as it is deleted stays deleted, however the two interleave', async () => {
    for (let ticks = 0; ticks < 6; ticks++) {
      const { db, store, items: [item], reopened } = await storeWith(['Invoices are paid net 30.']);
      const removing = store.remove([item.id]);
      for (let i = 0; i < ticks; i++) await Promise.resolve(); // the insert arrives a moment after the delete
      await Promise.all([removing, store.touch([item.id])]);
      expect(await store.read(item.id)).toBeUndefined();
      expect(await db.items.get(item.id)).toBeUndefined();
      expect((await reopened()).size).toBe(0);
    }
  });

  it('an indexing batch that finishes around a delete brings back neither the memory nor its vector', async () => {
    for (let ticks = 0; ticks < 40; ticks += 3) {
      const db = freshDb();
      const model = heldEmbedder();
      const store = new MemoryStore(db, async () => model.embedder);
      await store.add(Array.from({ length: 5 }, (_, i) => ({ id: `n${i}`, text: `imported note ${i}` })), { from: 'user' }, { deferEmbedding: true });
      model.hold();
      const indexing = store.embedPending(undefined, 16);
      await model.asked();
      model.release();
      for (let i = 0; i < ticks; i++) await Promise.resolve(); // the delete lands while the batch is being stored
      await store.remove(['n2']);
      await indexing;
      expect(await store.read('n2')).toBeUndefined();
      expect(store.view.hasVector('n2')).toBe(false);
      expect(await db.items.get('n2')).toBeUndefined();
      expect(await db.vectors.get('n2')).toBeUndefined();
      expect(await db.vectors.count()).toBe(4);
    }
  });

  it('an indexing batch that finishes around Clear all leaves memory empty', async () => {
    for (let ticks = 0; ticks < 40; ticks += 3) {
      const db = freshDb();
      const model = heldEmbedder();
      const store = new MemoryStore(db, async () => model.embedder);
      await store.add(Array.from({ length: 5 }, (_, i) => ({ id: `n${i}`, text: `imported note ${i}`, thread: { id: 't', seq: i } })), { from: 'user' }, { deferEmbedding: true });
      model.hold();
      const indexing = store.embedPending(undefined, 16);
      await model.asked();
      model.release();
      for (let i = 0; i < ticks; i++) await Promise.resolve();
      await store.clear();
      await indexing;
      expect(store.size).toBe(0);
      expect(store.view.vectorCount + store.view.contextCount).toBe(0);
      expect(await db.items.count()).toBe(0);
      expect(await db.vectors.count()).toBe(0);
      expect(await db.contexts.count()).toBe(0);
    }
  });
});
