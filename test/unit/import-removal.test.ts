import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import Dexie from 'dexie';
import { describe, expect, it } from 'vitest';
import { ImportRemoval, RemovedImports, UNDO_IMPORT_MS } from '../../lib/memory-browse/import-removal';
import { openMemoryDB } from '../../lib/memory/db';
import { MemoryStore } from '../../lib/memory/store';
import type { MemoryInput } from '../../lib/memory/types';

const T0 = Date.UTC(2025, 0, 1);
const chat = (seq: number, text: string): MemoryInput => ({
  id: `chatgpt:c1:${seq}`, text, createdAt: T0 + seq, thread: { id: 'chatgpt:c1', seq },
  source: { importId: 'imp-chat', format: 'chatgpt', title: 'Trip planning' },
});
const imported = [
  chat(0, 'Can you plan a trip to Lisbon?'),
  chat(1, 'Sure: three days in Lisbon, budgeting 900 euros.'),
  { ...chat(2, 'My bank PIN is 4421'), needsReview: 'it looks like a secret' },
];

/** One worker life: a store and the import removal over the same database, as the service worker makes them. */
function workerOn(db: ReturnType<typeof openMemoryDB>, clock: { now: number }) {
  const store = new MemoryStore(db, async () => null);
  const removal = new ImportRemoval(store, new RemovedImports(db), () => undefined, () => clock.now);
  return { store, removal };
}

describe('Undo of "Delete this import" after the worker stopped', () => {
  it('brings the import back as it was from a worker started after the delete, and keeps no copy after', async () => {
    const db = openMemoryDB('removal', { indexedDB: new IDBFactory(), IDBKeyRange });
    const clock = { now: T0 };
    const first = workerOn(db, clock);
    await first.store.add([...imported, { id: 'own', text: 'The offsite is in Lisbon.' }], { from: 'user' }, { deferEmbedding: true });
    expect(await first.removal.remove('imp-chat')).toEqual({ removed: 3 });

    // MV3 stops the idle worker; the user clicks Undo and a fresh worker answers.
    clock.now += 40_000;
    const second = workerOn(db, clock);
    expect(await second.removal.restore('imp-chat')).toEqual({ restored: 3 });
    expect(second.store.size).toBe(4);
    expect((await second.store.read('chatgpt:c1:2'))?.needsReview).toBe('it looks like a secret');
    expect((await second.store.read('chatgpt:c1:1'))?.source).toMatchObject({ importId: 'imp-chat', format: 'chatgpt' });
    expect(await db.removedImports.count()).toBe(0); // the deleted memories' copy is gone once it has served
    await expect(workerOn(db, clock).removal.restore('imp-chat')).rejects.toThrow(/Too late to undo/);
  });

  it('once Undo is no longer offered the copy is dropped, even by a worker that starts later', async () => {
    const db = openMemoryDB('removal-late', { indexedDB: new IDBFactory(), IDBKeyRange });
    const clock = { now: T0 };
    const first = workerOn(db, clock);
    await first.store.add(imported, { from: 'user' }, { deferEmbedding: true });
    await first.removal.remove('imp-chat');
    expect(await db.removedImports.count()).toBe(1);

    clock.now += UNDO_IMPORT_MS + 1;
    const later = workerOn(db, clock);
    await later.removal.expire(); // at every worker start
    expect(await db.removedImports.count()).toBe(0);
    await expect(later.removal.restore('imp-chat')).rejects.toThrow(/Too late to undo/);
    expect(later.store.size).toBe(0);
  });

  it('Clear all also drops what Undo would have brought back', async () => {
    const db = openMemoryDB('removal-clear', { indexedDB: new IDBFactory(), IDBKeyRange });
    const clock = { now: T0 };
    const w = workerOn(db, clock);
    await w.store.add(imported, { from: 'user' }, { deferEmbedding: true });
    await w.removal.remove('imp-chat');
    await w.removal.forgetAll();
    expect(await db.removedImports.count()).toBe(0);
    await expect(workerOn(db, clock).removal.restore('imp-chat')).rejects.toThrow(/Too late to undo/);
  });
});

describe('schema v5', () => {
  it('upgrades a v4 database without losing items, vectors or import jobs, and adds the tables for the copy Undo keeps and for hand-overs', async () => {
    const factory = new IDBFactory();
    const v4 = new Dexie('upgrade', { indexedDB: factory, IDBKeyRange });
    v4.version(4).stores({
      items: 'id, kind, updatedAt, lastUsedAt, *people, *sites, *tags', vectors: 'id', packs: 'key', contexts: 'id',
      importJobs: 'id, createdAt', importFiles: '[job+n], job', importStaged: '[job+batch], job',
    });
    const item = { id: 'x', text: 'Kept across the upgrade', title: 'Kept', kind: 'evidence', tags: [], people: [], sites: [], pinned: false, createdAt: 1, updatedAt: 1, source: {}, tokens: 4 };
    const job = { id: 'import-1', createdAt: 1, fileNames: ['conv.json'], bytes: 2, state: 'done', read: 1 };
    await v4.table('items').put(item);
    await v4.table('vectors').put({ id: 'x', model: 'm', vector: new Float32Array([1, 0]) });
    await v4.table('importJobs').put(job);
    v4.close();

    const db = openMemoryDB('upgrade', { indexedDB: factory, IDBKeyRange });
    await db.open();
    expect(await db.items.get('x')).toEqual(item);
    expect((await db.vectors.get('x'))!.vector).toEqual(new Float32Array([1, 0]));
    expect(await db.importJobs.get('import-1')).toEqual(job);
    expect(db.tables.map((t) => t.name)).toEqual(expect.arrayContaining(['removedImports', 'handovers']));
    expect(await db.removedImports.count()).toBe(0);
  });
});
