import Dexie from 'dexie';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { LexicalIndex } from '../../lib/memory/index/lexical-index';
import { describe, expect, it } from 'vitest';
import { openMemoryDB } from '../../lib/memory/db';
import { MemoryStore, StorageFullError } from '../../lib/memory/store';

describe('schema upgrade', () => {
  it('opens a database written by schema v1 and migrates its items without loss', async () => {
    const indexedDB = new IDBFactory();
    // The fixture: the database as version 1 of Backstory left it, with items in v1's looser shape.
    const v1 = new Dexie('backstory', { indexedDB, IDBKeyRange });
    v1.version(1).stores({ items: 'id, kind, updatedAt, *people, *sites, *tags', vectors: 'id', meta: 'key' });
    await v1.table('items').bulkPut([
      { id: 'old-1', text: 'Dana prefers numbers first.', kind: 'instruction', people: ['Dana'], sites: ['Mail.Google.com'], createdAt: 1, updatedAt: 2 },
      { id: 'old-2', text: 'The offsite is in Lisbon.\nHotel near the river.', createdAt: 5 },
    ]);
    await v1.table('vectors').put({ id: 'old-1', model: 'all-MiniLM-L6-v2/q4', vector: new Float32Array(384).fill(0.05) });
    v1.close();

    const db = openMemoryDB('backstory', { indexedDB, IDBKeyRange });
    const store = new MemoryStore(db, async () => null);
    await store.load();
    expect(db.verno).toBe(8); // v3 adds the index pack table, v4 contexts and import jobs, v5 the copy Undo keeps of a deleted import, v6 drops the items' unused indexes, v7 adds sync's ledger, v8 indexes the items' revisions; the v1 -> v2 migration runs on the way
    expect(store.size).toBe(2);
    const a = (await store.read('old-1'))!;
    expect(a).toMatchObject({ text: 'Dana prefers numbers first.', kind: 'instruction', sites: ['mail.google.com'], tags: [], createdAt: 1, updatedAt: 2 });
    expect(a.tokens).toBeGreaterThan(3);
    expect(store.view.vector('old-1')?.length).toBe(384);
    const b = (await store.read('old-2'))!;
    expect(b).toMatchObject({ title: 'The offsite is in Lisbon.', kind: 'evidence', pinned: false, people: [], updatedAt: 5 });
    // The items' indexes are gone from the database itself (each write kept them, nothing read them), but the
    // revision's, by which a start finds the rows written since its pack.
    expect([...db.backendDB().transaction('items').objectStore('items').indexNames]).toEqual(['rev']);
    // The migrated rows had no revision: the worker gives them one after its start.
    await expect.poll(async () => (await db.items.toArray()).map((row) => row.rev).filter((rev) => rev !== undefined).length).toBe(2);
  });
});

describe('storage faults', () => {
  it('tells the user when storage is full, writes nothing, and keeps reading', async () => {
    const db = openMemoryDB('full', { indexedDB: new IDBFactory(), IDBKeyRange });
    const store = new MemoryStore(db, async () => null);
    const [kept] = await store.add([{ text: 'Invoices from Acme are paid net 30.' }], { from: 'user' });
    const realBulkPut = db.items.bulkPut.bind(db.items);
    db.items.bulkPut = (async () => {
      throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
    }) as unknown as typeof db.items.bulkPut;
    await expect(store.add([{ text: 'one more' }, { text: 'and another' }], { from: 'user' })).rejects.toThrow(StorageFullError);
    await expect(store.add([{ text: 'one more' }], { from: 'user' })).rejects.toThrow(/storage is full/i);
    db.items.bulkPut = realBulkPut;
    expect(await db.items.count()).toBe(1);
    expect([...store.items()].map((i) => i.id)).toEqual([kept.id]);
    expect(store.view.lexicalIndex.search(LexicalIndex.queryTerms('Acme'), 5).map((h) => h.id)).toEqual([kept.id]);
  });
});
