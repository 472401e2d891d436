import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import Dexie from 'dexie';
import { describe, expect, it } from 'vitest';
import type { Embedder } from '../../lib/embed/embedder';
import { READ_SLICE, openMemoryDB } from '../../lib/memory/db';
import { ImportJobs } from '../../lib/import/import-jobs';
import { MemoryStore } from '../../lib/memory/store';
import type { MemoryInput } from '../../lib/memory/types';

const fresh = (factory = new IDBFactory()) => openMemoryDB('imports', { indexedDB: factory, IDBKeyRange });

/** Counts the texts it embeds; the vector is a hash of the text. */
function countingEmbedder() {
  const seen: string[] = [];
  const embedder: Embedder = {
    modelId: 'test',
    dim: 4,
    backend: 'test',
    async embed(texts) {
      seen.push(...texts);
      return texts.map((t) => {
        const v = new Float32Array(4);
        for (let i = 0; i < t.length; i++) v[i % 4] += t.charCodeAt(i);
        const n = Math.hypot(...v) || 1;
        return v.map((x) => x / n);
      });
    },
  };
  return { embedder, seen };
}

const chat = (n: number, from = 0): MemoryInput[] =>
  Array.from({ length: n }, (_, i) => ({
    id: `chatgpt:c1:m${from + i}`,
    text: `Message ${from + i} about the Lisbon offsite`,
    thread: { id: 'chatgpt:c1', seq: from + i },
    createdAt: Date.UTC(2025, 0, 1, 0, from + i),
    source: { format: 'chatgpt' },
  }));

describe('MemoryStore.commitImport', () => {
  it('adds new items, leaves unchanged ones alone and replaces changed ones, keyed by id', async () => {
    const { embedder, seen } = countingEmbedder();
    const store = new MemoryStore(fresh(), async () => embedder);
    expect(await store.commitImport(chat(3), { importId: 'import-a', provenance: { from: 'import', trusted: false } })).toEqual({ added: 3, updated: 0, unchanged: 0 });
    await store.embedPending();
    const embeddedFirst = seen.length;

    // A later export: the same three (one edited at the source) and two more.
    const later = chat(5);
    later[1] = { ...later[1], text: 'Message 1, edited: the offsite moved to Porto' };
    expect(await store.commitImport(later, { importId: 'import-b', provenance: { from: 'import', trusted: false } })).toEqual({ added: 2, updated: 1, unchanged: 2 });
    expect(store.size).toBe(5);
    expect((await store.read('chatgpt:c1:m0'))!.source.importId).toBe('import-a'); // unchanged: keeps the first import
    expect((await store.read('chatgpt:c1:m1'))!.source.importId).toBe('import-b');
    expect((await store.read('chatgpt:c1:m1'))!.text).toMatch(/Porto/);
    // Unchanged items keep their vectors; the edited one and the new ones wait for embedPending.
    expect(store.view.hasVector('chatgpt:c1:m0')).toBe(true);
    expect(store.unembedded().sort()).toEqual(['chatgpt:c1:m1', 'chatgpt:c1:m3', 'chatgpt:c1:m4']);
    seen.length = 0;
    await store.embedPending();
    expect(seen).not.toContain('Message 0 about the Lisbon offsite');
    expect(embeddedFirst).toBeGreaterThan(0);

    // The same export a third time: nothing changes.
    expect(await store.commitImport(later, { importId: 'import-c', provenance: { from: 'import', trusted: false } })).toEqual({ added: 0, updated: 0, unchanged: 5 });
  });

  it('keeps what the user decided about an item when it is imported again', async () => {
    const store = new MemoryStore(fresh(), async () => null);
    await store.commitImport(chat(2), { importId: 'a', provenance: { from: 'import', trusted: false } });
    await store.update('chatgpt:c1:m0', { pinned: true, excluded: true });
    expect(await store.commitImport(chat(2), { importId: 'b', provenance: { from: 'import', trusted: false } })).toEqual({ added: 0, updated: 0, unchanged: 2 });
    expect(await store.read('chatgpt:c1:m0')).toMatchObject({ pinned: true, excluded: true });
  });

  it('a file that gives no dates (notes, a hand-made memory file) imported again later is unchanged, not updated', async () => {
    const store = new MemoryStore(fresh(), async () => null);
    const notes: MemoryInput[] = [{ id: 'note:plan.md#0', text: 'Ship the beta in March', source: { format: 'markdown' } }, { id: 'note:plan.md#1', text: 'Dana owns the budget', source: { format: 'markdown' } }];
    await store.commitImport(notes, { importId: 'a', now: Date.UTC(2026, 0, 1), provenance: { from: 'import', trusted: false } });
    expect(await store.commitImport(notes, { importId: 'b', now: Date.UTC(2026, 5, 1), provenance: { from: 'import', trusted: false } })).toEqual({ added: 0, updated: 0, unchanged: 2 });
    expect((await store.read('note:plan.md#0'))!.createdAt).toBe(Date.UTC(2026, 0, 1));
  });

  it('lands whole or not at all: one bad item leaves memory as it was, in memory and in IndexedDB', async () => {
    const db = fresh();
    const store = new MemoryStore(db, async () => null);
    await store.commitImport(chat(2), { importId: 'a', provenance: { from: 'import', trusted: false } });
    const bad = [...chat(4), { id: 'broken', text: '   ' }];
    await expect(store.commitImport(bad, { importId: 'b', provenance: { from: 'import', trusted: false } })).rejects.toThrow(/no text/i);
    expect(store.size).toBe(2);
    const reopened = new MemoryStore(db, async () => null);
    await reopened.load();
    expect([...reopened.items()].map((i) => i.id).sort()).toEqual(['chatgpt:c1:m0', 'chatgpt:c1:m1']);
  });

  it('keeps the thread of each item, across a reopen', async () => {
    const db = fresh();
    await new MemoryStore(db, async () => null).commitImport(chat(2), { importId: 'a', provenance: { from: 'import', trusted: false } });
    const reopened = new MemoryStore(db, async () => null);
    await reopened.load();
    expect((await reopened.read('chatgpt:c1:m1'))!.thread).toEqual({ id: 'chatgpt:c1', seq: 1 });
    expect(reopened.view.lexicalIndex.neighbour('chatgpt:c1:m1', -1)).toBe('chatgpt:c1:m0');
  });

  it('removeImport deletes every item of that import and nothing else', async () => {
    const store = new MemoryStore(fresh(), async () => null);
    await store.add([{ id: 'mine', text: 'A note I wrote myself about Lisbon' }], { from: 'user' });
    await store.commitImport(chat(3), { importId: 'a', provenance: { from: 'import', trusted: false } });
    await store.commitImport(chat(2, 3), { importId: 'b', provenance: { from: 'import', trusted: false } });
    const removed = await store.removeImport('a');
    expect(removed.map((r) => r.id).sort()).toEqual(['chatgpt:c1:m0', 'chatgpt:c1:m1', 'chatgpt:c1:m2']);
    expect([...store.items()].map((i) => i.id).sort()).toEqual(['chatgpt:c1:m3', 'chatgpt:c1:m4', 'mine']);
  });
});

describe('reading items back from IndexedDB', () => {
  /** Every id the store asks IndexedDB for, in the order asked. */
  function countReads(db: ReturnType<typeof fresh>) {
    const asked: string[][] = [];
    const bulkGet = db.items.bulkGet.bind(db.items);
    db.items.bulkGet = ((ids: string[]) => {
      asked.push(ids);
      return bulkGet(ids);
    }) as typeof db.items.bulkGet;
    return asked;
  }

  it('committing thousands of new messages reads none of them back; a changed message still loses its stale context vector', async () => {
    const { embedder, seen } = countingEmbedder();
    const db = fresh();
    const store = new MemoryStore(db, async () => embedder);
    await store.commitImport(chat(3), { importId: 'i1', provenance: { from: 'import', trusted: false } });
    await store.embedPending();
    expect(store.view.hasContextVector('chatgpt:c1:m1')).toBe(true);

    const asked = countReads(db);
    await store.commitImport(chat(3_000, 3), { importId: 'i2', provenance: { from: 'import', trusted: false } });
    // Only the one message already held before them (the new first one reads it as its predecessor) is read.
    expect(asked.flat().length).toBeLessThanOrEqual(2);

    asked.length = 0;
    const changed = chat(3).map((m, i) => (i === 0 ? { ...m, text: 'Message 0, moved to Porto' } : m));
    await store.commitImport(changed, { importId: 'i3', provenance: { from: 'import', trusted: false } });
    expect(store.view.hasContextVector('chatgpt:c1:m1')).toBe(false); // it read m0 as it was
    expect(asked.flat().length).toBeLessThan(10);
    seen.length = 0;
    await store.embedPending();
    expect(seen).toContain('Message 0, moved to Porto');
    expect(store.view.hasContextVector('chatgpt:c1:m1')).toBe(true);
  });

  it('a large read goes a slice at a time, so a ranking\'s read made meanwhile does not wait for all of it', async () => {
    const db = fresh();
    const store = new MemoryStore(db, async () => null);
    await store.commitImport(chat(3_000), { importId: 'i1', provenance: { from: 'import', trusted: false } });
    const asked = countReads(db);
    const done: string[] = [];
    const all = store.view.hydrate(chat(3_000).map((m) => m.id!), false).then((got) => {
      done.push('indexing run');
      return got;
    });
    await new Promise((r) => setTimeout(r, 0));
    const one = store.view.hydrate(['chatgpt:c1:m2999']).then((got) => {
      done.push('ranking');
      return got;
    });
    const [got, mine] = await Promise.all([all, one]);
    expect(done).toEqual(['ranking', 'indexing run']);
    expect(got.size).toBe(3_000);
    expect([...got.keys()].slice(0, 3)).toEqual(['chatgpt:c1:m0', 'chatgpt:c1:m1', 'chatgpt:c1:m2']);
    expect(mine.get('chatgpt:c1:m2999')?.text).toBe('Message 2999 about the Lisbon offsite');
    expect(asked.length).toBeGreaterThan(1);
    expect(Math.max(...asked.map((ids) => ids.length))).toBeLessThanOrEqual(READ_SLICE);
  });

  it('an indexing run reads each waiting message once before its first batch, though most are also the one before the next', async () => {
    const { embedder } = countingEmbedder();
    const db = fresh();
    let readBefore: number | undefined;
    const embed = embedder.embed.bind(embedder);
    embedder.embed = (texts) => {
      readBefore ??= asked.flat().length;
      return embed(texts);
    };
    const store = new MemoryStore(db, async () => embedder);
    await store.commitImport(chat(1_000), { importId: 'i1', provenance: { from: 'import', trusted: false } });
    const asked = countReads(db);
    await store.embedPending();
    expect(readBefore).toBe(1_000);
    expect(store.view.hasContextVector('chatgpt:c1:m999')).toBe(true);
    expect(store.view.hasVector('chatgpt:c1:m999')).toBe(true);
  });
});

describe('ImportJobs', () => {
  it('keeps a job with its files as Blobs and its staged batches, until discarded', async () => {
    const factory = new IDBFactory();
    const jobs = new ImportJobs(fresh(factory));
    const job = await jobs.create([
      { name: 'conversations.json', blob: new Blob(['{"a":1}']) },
      { name: 'plan.md', path: 'vault/plan.md', blob: new Blob(['# Plan\nShip it']) },
    ]);
    expect(job).toMatchObject({ state: 'queued', read: 0, fileNames: ['conversations.json', 'vault/plan.md'], bytes: 21 });

    // Another page (or a restarted worker) opens the database and finds the job and its files.
    const elsewhere = new ImportJobs(fresh(factory));
    const files = await elsewhere.files(job.id);
    expect(files.map((f) => [f.name, f.path])).toEqual([['conversations.json', undefined], ['plan.md', 'vault/plan.md']]);
    expect(await files[1].blob.text()).toBe('# Plan\nShip it');

    await elsewhere.stage(job.id, 1, chat(2, 2));
    await elsewhere.stage(job.id, 0, chat(2));
    expect((await elsewhere.staged(job.id)).map((i) => i.id)).toEqual(['chatgpt:c1:m0', 'chatgpt:c1:m1', 'chatgpt:c1:m2', 'chatgpt:c1:m3']);
    const done = await elsewhere.update(job.id, { state: 'done', read: 4, counts: { added: 4, updated: 0, unchanged: 0 }, finishedAt: 5 });
    expect(done.state).toBe('done');
    expect((await jobs.list()).map((j) => j.state)).toEqual(['done']);

    await jobs.discard(job.id);
    expect(await jobs.files(job.id)).toEqual([]);
    expect(await jobs.staged(job.id)).toEqual([]);
    expect(await jobs.get(job.id)).toMatchObject({ state: 'done' });
  });

  it('lists jobs newest first and refuses to update a job that does not exist', async () => {
    const jobs = new ImportJobs(fresh());
    const a = await jobs.create([{ name: 'a.txt', blob: new Blob(['a']) }], 1);
    const b = await jobs.create([{ name: 'b.txt', blob: new Blob(['b']) }], 2);
    expect((await jobs.list()).map((j) => j.id)).toEqual([b.id, a.id]);
    await expect(jobs.update('import-nope', { state: 'failed' })).rejects.toThrow(/No import job/);
  });
});

describe('schema v4', () => {
  it('upgrades a v3 database without losing items or vectors, and drops the unused meta table', async () => {
    const factory = new IDBFactory();
    const v3 = new Dexie('imports', { indexedDB: factory, IDBKeyRange });
    v3.version(3).stores({ items: 'id, kind, updatedAt, lastUsedAt, *people, *sites, *tags', vectors: 'id', meta: 'key', packs: 'key' });
    const item = { id: 'x', text: 'Kept across the upgrade', title: 'Kept', kind: 'evidence', tags: [], people: [], sites: [], pinned: false, createdAt: 1, updatedAt: 1, source: {}, tokens: 4 };
    await v3.table('items').put(item);
    await v3.table('vectors').put({ id: 'x', model: 'm', vector: new Float32Array([1, 0]) });
    await v3.table('meta').put({ key: 'k', value: 1 });
    v3.close();

    const db = fresh(factory);
    await db.open();
    expect(await db.items.get('x')).toEqual(item);
    expect((await db.vectors.get('x'))!.vector).toEqual(new Float32Array([1, 0]));
    expect(db.tables.map((t) => t.name)).not.toContain('meta');
    expect(db.tables.map((t) => t.name)).toEqual(expect.arrayContaining(['contexts', 'importJobs', 'importFiles', 'importStaged']));
  });
});
