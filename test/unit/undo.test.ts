import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { openMemoryDB } from '../../lib/memory/db';
import { inputFromItem } from '../../lib/memory/item-input';
import { MemoryStore } from '../../lib/memory/store';

describe('undo of a delete', () => {
  it('brings a held capture back still held: not indexed, not embedded, not offered', async () => {
    let embedded = 0;
    const embedder = { modelId: 'test', dim: 2, backend: 'test', async embed(texts: string[]) { embedded += texts.length; return texts.map(() => new Float32Array([1, 0])); } };
    const store = new MemoryStore(openMemoryDB('undo', { indexedDB: new IDBFactory(), IDBKeyRange }), async () => embedder);
    const [held] = await store.add([{ text: 'staging password hunter2', needsReview: 'looks like a password', thread: { id: 't', seq: 1 }, lastUsedAt: 5 }], { from: 'user' });
    const removed = await store.remove([held.id]);
    const [back] = await store.add(removed.map(inputFromItem), { from: 'user' }); // what the panel's Undo sends
    expect({ ...back, rev: undefined }).toEqual({ ...held, rev: undefined }); // the row's revision is new
    expect(store.view.lexicalIndex.has(held.id)).toBe(false);
    expect(store.view.hasVector(held.id)).toBe(false);
    expect(embedded).toBe(0);
  });
});
