import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import type { Embedder } from '../../lib/embed/embedder';
import { nodeEmbedder } from '../../lib/embed/node-embedder';
import { openMemoryDB } from '../../lib/memory/db';
import { MemoryStore } from '../../lib/memory/store';
import { rankMemory } from '../../lib/rank/rank';
import { DEFAULT_SETTINGS } from '../../lib/settings/defaults';

const freshDb = () => openMemoryDB('test', { indexedDB: new IDBFactory(), IDBKeyRange });

function task(text: string) {
  return { url: 'https://example.com/', title: 'Example', site: 'example.com', adapter: 'generic', destination: 'documents' as const, field: { text, kind: 'textarea' as const }, at: Date.now() };
}

describe('MemoryStore with the real model', () => {
  it('stores, embeds and finds an item again after the store is reopened from IndexedDB', async () => {
    const db = freshDb();
    const embedder = await nodeEmbedder();
    const store = new MemoryStore(db, async () => embedder);
    const [a] = await store.add([{ text: 'Our sync worker must use exponential backoff with jitter after an outage.' }], { from: 'user' });
    await store.add([{ text: 'Tomato seedlings need a week of hardening off.' }], { from: 'user' });
    expect(a.tokens).toBeGreaterThan(5);

    const reopened = new MemoryStore(db, async () => embedder);
    await reopened.load();
    expect(reopened.size).toBe(2);
    const v = reopened.view.vector(a.id)!;
    expect(v).toBeInstanceOf(Float32Array);
    expect(v.length).toBe(384);
    const [q] = await embedder.embed(['what backoff should the sync worker use when retrying?']);
    const result = await rankMemory({ task: task('what backoff should the sync worker use when retrying?'), memory: reopened.view, settings: DEFAULT_SETTINGS, queryVector: q, now: Date.now() });
    expect(result.cards[0].item.id).toBe(a.id);
  });

  it('keeps items without a vector when the model is missing, ranks them by words, and embeds them later', async () => {
    const db = freshDb();
    let embedder: Embedder | null = null;
    const store = new MemoryStore(db, async () => embedder);
    const [item] = await store.add([{ text: 'The Lisbon offsite hotel is near Cais do Sodré.' }], { from: 'user' });
    expect(store.unembedded()).toEqual([item.id]);
    const lexicalOnly = await rankMemory({ task: task('which hotel for the Lisbon offsite?'), memory: store.view, settings: DEFAULT_SETTINGS, now: Date.now() });
    expect(lexicalOnly.cards.map((c) => c.item.id)).toContain(item.id);
    embedder = await nodeEmbedder();
    expect(await store.embedPending()).toBe(1);
    expect(store.unembedded()).toEqual([]);
  });

  it('adds a batch all or nothing: one bad item rejects the batch and nothing is stored', async () => {
    const store = new MemoryStore(freshDb(), async () => null);
    await store.add([{ text: 'kept' }], { from: 'user' });
    await expect(store.add([{ text: 'fine' }, { text: '   ' }], { from: 'user' })).rejects.toThrow(/no text/i);
    expect((await store.all()).map((i) => i.text)).toEqual(['kept']);
  });

  it('edits re-index the text, and deletes remove the item from ranking', async () => {
    const store = new MemoryStore(freshDb(), async () => null);
    const [item] = await store.add([{ text: 'Invoices from Acme are paid net 30.' }], { from: 'user' });
    await store.update(item.id, { text: 'Invoices from Globex are paid net 45.' });
    const found = async (q: string) => (await rankMemory({ task: task(q), memory: store.view, settings: DEFAULT_SETTINGS, now: Date.now() })).cards.map((c) => c.item.id);
    expect(await found('Globex invoices')).toContain(item.id);
    expect(await found('Acme invoices net')).toContain(item.id); // "invoices", "net" still match
    await store.remove([item.id]);
    expect(await found('Globex invoices')).toEqual([]);
    expect(store.size).toBe(0);
  });

  it('a load that failed part way is tried again by the next request, and holds each item once', async () => {
    const db = freshDb();
    const writer = new MemoryStore(db, async () => null);
    const [a] = await writer.add([{ text: 'The Lisbon offsite hotel is near Cais do Sodré.' }], { from: 'user' });
    await writer.add([{ text: 'Invoices from Acme are paid net 30.' }], { from: 'user' });
    await db.contexts.put({ id: a.id, model: 'm', vector: new Float32Array(384), print: 1 } as never);

    // IndexedDB fails once, after the items were read and indexed (a busy disk, the browser closing a connection).
    const reopened = new MemoryStore(db, async () => null);
    const read = db.contexts.toArray.bind(db.contexts);
    let failures = 1;
    db.contexts.toArray = (() => (failures-- > 0 ? Promise.reject(new Error('UnknownError: read failed')) : read())) as typeof db.contexts.toArray;
    await expect(reopened.load()).rejects.toThrow(/read failed/);
    // The worker is not restarted: the next request reads memory again rather than failing until it is.
    await reopened.load();
    expect(reopened.size).toBe(2);
    const found = await rankMemory({ task: task('Lisbon offsite hotel'), memory: reopened.view, settings: DEFAULT_SETTINGS, now: Date.now() });
    expect(found.cards.map((c) => c.item.id)).toEqual([a.id]);
    expect((await reopened.all()).length).toBe(2);
  });
});

describe('background indexing of an import', () => {
  /** Counts what it embeds; can be told to die after some batches, as a stopped service worker would. */
  function countingEmbedder(dieAfterBatches = Infinity) {
    const seen: string[] = [];
    let batches = 0;
    const embedder: Embedder = {
      modelId: 'test',
      dim: 4,
      backend: 'test',
      async embed(texts) {
        if (batches++ >= dieAfterBatches) throw new Error('worker stopped');
        seen.push(...texts);
        return texts.map((t) => Float32Array.from([t.length % 7, 1, 0, 0]).map((x, _i, a) => x / Math.hypot(...a)));
      },
    };
    return { embedder, seen };
  }

  it('embeds a note once, not its start twice: a title cut from a long first line or a heading is not put in front', async () => {
    const { embedder, seen } = countingEmbedder();
    const store = new MemoryStore(freshDb(), async () => embedder);
    const long = 'After the outage the sync worker retried failed calls immediately, in a tight loop. We agreed on exponential backoff.';
    const heading = '# Lisbon offsite\nThe hotel is near Cais do Sodré.';
    const [a, b, c] = await store.add([{ text: long }, { text: heading }, { title: 'Priya', text: 'Invoices from Acme are paid net 30.' }], { from: 'user' });
    expect(a.title.endsWith('…')).toBe(true);
    expect(b.title).toBe('Lisbon offsite');
    expect(seen).toEqual([long, heading, 'Priya: Invoices from Acme are paid net 30.']);
    expect(c.title).toBe('Priya');
  });

  it('writes the whole import at once, and a restarted worker finishes embedding it without repeating work', async () => {
    const db = freshDb();
    const first = countingEmbedder(2);
    const store = new MemoryStore(db, async () => first.embedder);
    const inputs = Array.from({ length: 100 }, (_, i) => ({ id: `n${i}`, text: `note number ${i}` }));
    await store.add(inputs, { from: 'user' }, { deferEmbedding: true });
    expect(await db.items.count()).toBe(100);
    expect(store.unembedded()).toHaveLength(100);
    await expect(store.embedPending(undefined, 16)).rejects.toThrow('worker stopped');
    expect(await db.vectors.count()).toBe(32);

    // The worker starts again: everything stored is there, and only the rest is embedded.
    const second = countingEmbedder();
    const restarted = new MemoryStore(db, async () => second.embedder);
    const progress: number[] = [];
    expect(await restarted.embedPending((done) => progress.push(done), 16)).toBe(68);
    expect(second.seen).toHaveLength(68);
    expect(new Set([...first.seen, ...second.seen]).size).toBe(100);
    expect(await db.vectors.count()).toBe(100);
    expect(progress.at(-1)).toBe(68);
    expect(restarted.unembedded()).toEqual([]);
  });
});

describe('model loading progress', () => {
  it('reports how much of the model has loaded, ending at 100%, for the panel’s first-run bar', async () => {
    const { createTransformersEmbedder } = await import('../../lib/embed/transformers-embedder');
    const { NODE_MODEL_ROOT } = await import('../../lib/embed/node-embedder');
    const seen: number[] = [];
    await createTransformersEmbedder({ modelRoot: NODE_MODEL_ROOT, dtype: 'q4', onProgress: (f) => seen.push(f) });
    expect(seen.length).toBeGreaterThan(2);
    expect(seen.every((f, i) => f >= 0 && f <= 1 && (i === 0 || f >= seen[i - 1]))).toBe(true);
    expect(seen.at(-1)).toBe(1);
  });
});
