import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { ImportRemoval, RemovedImports, UNDO_IMPORT_MS } from '../../lib/memory-browse/import-removal';
import { MemoryCatalog } from '../../lib/memory-browse/memory-query';
import { openMemoryDB } from '../../lib/memory/db';
import { createItem } from '../../lib/memory/normalize';
import { arrayMemoryView } from '../../lib/memory/index/memory-index';
import { MemoryStore } from '../../lib/memory/store';
import type { MemoryInput } from '../../lib/memory/types';

const T0 = Date.UTC(2025, 0, 1);

async function storeWith(inputs: MemoryInput[]) {
  const db = openMemoryDB(`q${Math.random()}`, { indexedDB: new IDBFactory(), IDBKeyRange });
  const store = Object.assign(new MemoryStore(db, async () => null), { removedImports: new RemovedImports(db) });
  await store.add(inputs, { from: 'user' }, { deferEmbedding: true });
  return store;
}

const chat = (conv: string, seq: number, text: string, at: number): MemoryInput => ({
  id: `chatgpt:${conv}:${seq}`, text, createdAt: at, thread: { id: `chatgpt:${conv}`, seq },
  source: { importId: 'imp-chat', format: 'chatgpt', title: `Conversation ${conv}` },
});

const sample: MemoryInput[] = [
  { id: 'budget', text: 'The Q3 budget review moved to Thursday.', kind: 'evidence', people: ['Dana Lee'], tags: ['budget'], createdAt: T0 + 10 },
  { id: 'tone', text: 'Write short, plain replies; no exclamation marks.', kind: 'instruction', createdAt: T0 + 20 },
  { id: 'offsite', text: 'The Lisbon offsite hotel is near Cais do Sodré.', source: { url: 'https://www.docs.example.com/trip' }, tags: ['travel'], createdAt: T0 + 30 },
  { id: 'mailsite', text: 'Gmail signature: Best, Sam', sites: ['mail.google.com'], createdAt: T0 + 40 },
  { id: 'held', text: 'The budget password is hunter2', needsReview: 'it looks like a secret', createdAt: T0 + 50 },
  chat('c1', 2, 'Then book the Lisbon flights for the budget trip.', T0 + 60),
  chat('c1', 0, 'Can you plan a trip to Lisbon?', T0 + 70),
  chat('c1', 1, 'Sure: three days in Lisbon, budgeting 900 euros.', T0 + 80),
  chat('c2', 0, 'How do I bake sourdough?', T0 + 90),
];

describe('memory browser queries (MemoryCatalog on the real store)', () => {
  it('pages through memory newest change first and counts every match', async () => {
    const store = await storeWith(Array.from({ length: 250 }, (_, i) => ({ id: `n${i}`, text: `Note number ${i} about gardening`, createdAt: T0 + i })));
    const cat = new MemoryCatalog();
    const first = await cat.query(store.view, { filter: {}, offset: 0, limit: 40 });
    expect(first.total).toBe(250);
    expect(first.items.map((i) => i.id).slice(0, 3)).toEqual(['n249', 'n248', 'n247']);
    const third = await cat.query(store.view, { filter: {}, offset: 80, limit: 40 });
    expect(third.items[0].id).toBe('n169');
    expect((await cat.query(store.view, { filter: {}, offset: 240, limit: 40 })).items).toHaveLength(10);
  });

  it('filters by kind, site, person, tag, import, format and conversation; thread items come in thread order', async () => {
    const store = await storeWith(sample);
    const cat = new MemoryCatalog();
    const ids = async (filter: Parameters<MemoryCatalog['query']>[1]['filter']) => (await cat.query(store.view, { filter, offset: 0, limit: 50 })).items.map((i) => i.id);
    expect(await ids({ kind: 'instruction' })).toEqual(['tone']);
    await store.update('tone', { pinned: true });
    await store.update('offsite', { excluded: true });
    expect(await ids({ pinned: true })).toEqual(['tone']);
    expect(await ids({ excluded: true })).toEqual(['offsite']);
    expect(await ids({ pinned: false, excluded: false })).toHaveLength(sample.length - 2);
    expect(await ids({ site: 'docs.example.com' })).toEqual(['offsite']); // from the source URL, "www." dropped
    expect(await ids({ site: 'mail.google.com' })).toEqual(['mailsite']);
    expect(await ids({ person: 'Dana Lee' })).toEqual(['budget']);
    expect(await ids({ tag: 'travel' })).toEqual(['offsite']);
    expect(await ids({ importId: 'imp-chat' })).toHaveLength(4);
    expect(await ids({ format: 'chatgpt', text: 'sourdough' })).toEqual(['chatgpt:c2:0']);
    // Threads as the importers give them (read straight from a view of the items).
    const threaded = arrayMemoryView(sample.map((input) => ({ ...createItem(input), ...(input.thread ? { thread: input.thread } : {}) })), new Map());
    const thread = await cat.query(threaded, { filter: { threadId: 'chatgpt:c1' }, offset: 0, limit: 50 });
    expect(thread.items.map((i) => i.id)).toEqual(['chatgpt:c1:0', 'chatgpt:c1:1', 'chatgpt:c1:2']);
    expect(thread.thread).toEqual({ id: 'chatgpt:c1', title: 'Conversation c1' });
  });

  it('matches every word typed through the index, the last one while half typed, and held items by their text', async () => {
    const store = await storeWith(sample);
    const cat = new MemoryCatalog();
    const ids = async (text: string) => (await cat.query(store.view, { filter: { text }, offset: 0, limit: 50 })).items.map((i) => i.id).sort();
    expect(await ids('lisbon budget')).toEqual(['chatgpt:c1:1', 'chatgpt:c1:2']); // "budgeting" stems to budget
    expect(await ids('lisbon budg')).toEqual(['chatgpt:c1:1', 'chatgpt:c1:2']); // still typing: a prefix
    expect(await ids('lisbon budg ')).toEqual([]); // "budg" finished: no such word
    expect(await ids('hotel LISBON')).toEqual(['offsite']);
    expect(await ids('password')).toEqual(['held']); // not in the index (held back), found by its text
    expect(await ids('Dana')).toEqual(['budget']); // people are searchable
    expect(await ids('sourdo')).toEqual(['chatgpt:c2:0']);
    expect(await ids('lisbon zzz')).toEqual([]);
  });

  it('follows memory as it changes: additions, edits (to the top) and deletions', async () => {
    const store = await storeWith(sample);
    const cat = new MemoryCatalog();
    const top = () => cat.query(store.view, { filter: {}, offset: 0, limit: 3 });
    expect((await top()).total).toBe(sample.length);
    await store.update('budget', { tags: ['budget', 'finance'] }, T0 + 1000);
    expect((await top()).items[0].id).toBe('budget');
    expect((await cat.query(store.view, { filter: { tag: 'finance' }, offset: 0, limit: 5 })).total).toBe(1);
    await store.add([{ id: 'new', text: 'A fresh note about invoices', createdAt: T0 + 2000 }], { from: 'user' });
    await store.remove(['tone']);
    expect((await top()).total).toBe(sample.length);
    expect((await top()).items[0].id).toBe('new');
    expect((await cat.query(store.view, { filter: { kind: 'instruction' }, offset: 0, limit: 5 })).total).toBe(0);
    expect((await cat.query(store.view, { filter: { text: 'invoices' }, offset: 0, limit: 5 })).items.map((i) => i.id)).toEqual(['new']);
  });

  it('offers the values to filter by, with each import and its size', async () => {
    const store = await storeWith(sample);
    const f = (await new MemoryCatalog().query(store.view, { filter: {}, offset: 0, limit: 1, facets: true })).facets!;
    expect(f.sites).toEqual(['docs.example.com', 'mail.google.com']);
    expect(f.people).toEqual(['Dana Lee']);
    expect(f.tags).toEqual(['budget', 'travel']);
    expect(f.formats).toEqual(['chatgpt']);
    expect(f.imports).toEqual([{ id: 'imp-chat', format: 'chatgpt', count: 4, newest: T0 + 90 }]);
  });
});

describe('deleting a whole import', () => {
  it('removes every item of the import and nothing else; Undo brings them back as they were, until it is too late', async () => {
    const store = await storeWith([...sample, { ...chat('c3', 0, 'My bank PIN is 4421', T0 + 95), needsReview: 'it looks like a secret' }]);
    const cat = new MemoryCatalog();
    let now = T0;
    const changes: boolean[] = [];
    const removal = new ImportRemoval(store, store.removedImports, (restored) => changes.push(restored), () => now);
    expect(await removal.remove('imp-chat')).toEqual({ removed: 5 });
    expect(store.size).toBe(sample.length - 4);
    expect((await cat.query(store.view, { filter: { importId: 'imp-chat' }, offset: 0, limit: 10 })).total).toBe(0);
    expect(await store.read('budget')).toBeDefined();

    now += UNDO_IMPORT_MS / 2;
    expect(await removal.restore('imp-chat')).toEqual({ restored: 5 });
    expect(store.size).toBe(sample.length + 1);
    expect((await store.read('chatgpt:c3:0'))?.needsReview).toBe('it looks like a secret');
    expect((await store.read('chatgpt:c1:1'))?.source).toMatchObject({ importId: 'imp-chat', format: 'chatgpt' });
    expect((await cat.query(store.view, { filter: { text: 'sourdough' }, offset: 0, limit: 5 })).total).toBe(1); // words find it at once
    expect(changes).toEqual([false, true]);

    await removal.remove('imp-chat');
    now += UNDO_IMPORT_MS + 1;
    await expect(removal.restore('imp-chat')).rejects.toThrow(/Too late to undo/);
    await expect(removal.remove('imp-chat')).rejects.toThrow(/no memories left/);
  });
});
