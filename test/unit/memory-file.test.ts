import { LexicalIndex } from '../../lib/memory/index/lexical-index';
import { describe, expect, it } from 'vitest';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { checkMemoryHeader, ImportError, memoryFileChunks, parseMemoryFile, parseMemoryItem, serializeMemoryFile } from '../../lib/memory/memory-file';
import { createItem } from '../../lib/memory/normalize';
import { openMemoryDB } from '../../lib/memory/db';
import { MemoryStore } from '../../lib/memory/store';
import type { MemoryItem } from '../../lib/memory/types';
import { guessKind } from '../../lib/memory/kind-guess';
import { intake } from '../../lib/memory/intake';

const file = (items: unknown[], extra: Record<string, unknown> = {}) => JSON.stringify({ format: 'backstory-memory', version: 1, items, ...extra });

describe('memory file', () => {
  it('round-trips items, keeping fields Backstory does not know', () => {
    const inputs = parseMemoryFile(file([{ id: 'a', text: 'Hello', kind: 'evidence', colour: 'teal', source: { url: 'https://x.test/' }, createdAt: '2026-01-02T03:04:05.000Z' }]));
    const items = inputs.map((i) => createItem(i));
    const out = JSON.parse(serializeMemoryFile(items));
    expect(out.format).toBe('backstory-memory');
    expect(out.items[0]).toMatchObject({ id: 'a', text: 'Hello', kind: 'evidence', colour: 'teal', source: { url: 'https://x.test/' }, createdAt: '2026-01-02T03:04:05.000Z' });
  });

  it.each([
    ['not JSON', '{ nope', /not valid JSON/],
    ['the wrong format', JSON.stringify({ format: 'other', version: 1, items: [] }), /Wrong format "other"/],
    ['the wrong version', JSON.stringify({ format: 'backstory-memory', version: 9, items: [] }), /Unsupported version 9/],
    ['an item without text', file([{ text: 'ok' }, { title: 'no text' }]), /Item 1 has no "text"/],
    ['duplicate ids', file([{ id: 'x', text: 'a' }, { id: 'x', text: 'b' }]), /Item 1: duplicate id "x"/],
    ['a bad date', file([{ text: 'a', createdAt: 'yesterday' }]), /Item 0: "createdAt" is not an ISO 8601 date/],
    // A number past ±8.64e15 ms is no date: kept, it made every later export of the whole memory fail.
    ['a date outside any calendar', file([{ text: 'a' }, { text: 'b', createdAt: -1e300 }]), /Item 1: "createdAt" is not an ISO 8601 date/],
    ['a last use outside any calendar', file([{ text: 'a', lastUsedAt: 9e15 }]), /Item 0: "lastUsedAt" is not an ISO 8601 date/],
    ['a bad kind', file([{ text: 'a' }, { text: 'b', kind: 'fact' }]), /Item 1: "kind" must be "evidence" or "instruction"/],
    ['a thread without seq', file([{ text: 'a', thread: { id: 't' } }]), /Item 0: "thread.seq" is missing/],
    ['tags that are not strings', file([{ text: 'a', tags: ['x', 3] }]), /Item 0: "tags" must be a list of strings/],
    ['an item that is not an object', file([{ text: 'a' }, 'b']), /Item 1 is not an object/],
  ])('rejects %s with a message naming the problem', (_name, raw, message) => {
    expect(() => parseMemoryFile(raw)).toThrow(ImportError);
    expect(() => parseMemoryFile(raw)).toThrow(message);
  });

  it('exports an item whose time is past any date (kept before such times were refused) at the nearest date', () => {
    const item = { ...createItem({ id: 'odd', text: 'a', createdAt: Date.UTC(2026, 0, 1) }), createdAt: -1e300, lastUsedAt: 1e300 };
    const out = JSON.parse(serializeMemoryFile([item]));
    expect(out.items[0]).toMatchObject({ id: 'odd', createdAt: '-271821-04-20T00:00:00.000Z', lastUsedAt: '+275760-09-13T00:00:00.000Z' });
  });

  it('round-trips every field Backstory stores: an export imported into a new profile is the same memory', async () => {
    const now = Date.UTC(2026, 0, 5);
    const items: MemoryItem[] = [
      createItem({
        id: 'chatgpt:c1:m2', text: 'Yes, last Tuesday!', title: 'Me', kind: 'evidence', tags: ['trip'], people: ['Dana <dana@x.example>'],
        sites: ['chatgpt.com'], pinned: true, excluded: true, archived: true, createdAt: now - 5000, updatedAt: now - 1000, lastUsedAt: now - 10,
        source: { url: 'https://chatgpt.com/c/1', title: 'Trip', importId: 'import-1', format: 'chatgpt' }, thread: { id: 'chatgpt:c1', seq: 2 },
        aux: '[shares a photo: a beach]', extra: { colour: 'teal', nested: { a: [1, 2] } },
      }),
      createItem({ id: 'held', text: 'token: sk-live-abc', needsReview: 'looks like an API key', kind: 'instruction', createdAt: now }),
      createItem({ id: 'note:old.md#0', text: 'A note whose file gave no date', undated: true, createdAt: now }),
    ];
    const back = parseMemoryFile(serializeMemoryFile(items)).map((i) => createItem(intake(i, { from: 'import', trusted: true }), now + 99));
    expect(back).toEqual(items);

    // Through the store of a new profile: the same items again, the held one still held and unindexed.
    const store = new MemoryStore(openMemoryDB('profile', { indexedDB: new IDBFactory(), IDBKeyRange }), async () => null);
    await store.add(parseMemoryFile(serializeMemoryFile(items)), { from: 'import', trusted: true }, { now: now + 99 });
    expect((await store.readMany(items.map((it) => it.id))).map((it) => ({ ...it, rev: undefined }))).toEqual(items); // but the row's own revision
    expect(store.view.lexicalIndex.has('held')).toBe(false);
    expect(store.view.lexicalIndex.neighbour('chatgpt:c1:m2', 0)).toBe('chatgpt:c1:m2');
  });

  it('writes the file in chunks, one per item, that join to the same JSON', () => {
    const items = [createItem({ id: 'a', text: 'one' }), createItem({ id: 'b', text: 'two' })];
    const chunks = [...memoryFileChunks(items)];
    expect(chunks.length).toBe(items.length + 2);
    expect(JSON.parse(chunks.join('')).items.map((i: { id: string }) => i.id)).toEqual(['a', 'b']);
    expect(JSON.parse([...memoryFileChunks([])].join(''))).toEqual({ format: 'backstory-memory', version: 1, items: [] });
  });

  it('checks one streamed item and the header on their own, naming the item index', () => {
    // Its format is the reader's whatever the file says; what the file said is kept aside for a trusted file.
    expect(parseMemoryItem({ text: 'hi', thread: { id: 't', seq: 0 } }, 7)).toEqual({ text: 'hi', source: { format: 'memory-file' }, fileSource: {}, thread: { id: 't', seq: 0 } });
    expect(parseMemoryItem({ text: 'hi', source: { format: 'mbox', url: 'u' } }, 7).source).toEqual({ format: 'memory-file', url: 'u' });
    expect(() => parseMemoryItem({ text: '' }, 7)).toThrow('Item 7 has no "text".');
    try {
      parseMemoryItem({ text: 'x', pinned: 'yes' }, 12);
    } catch (e) {
      expect(e).toBeInstanceOf(ImportError);
      expect((e as ImportError).itemIndex).toBe(12);
      expect((e as Error).message).toBe('Item 12: "pinned" must be true or false.');
    }
    expect(() => checkMemoryHeader({ format: 'backstory-memory', version: 1 })).not.toThrow();
    expect(() => checkMemoryHeader({ format: 'notes' })).toThrow(/Wrong format "notes"/);
  });
});

describe('kind guess', () => {
  it.each([
    ['Never share the draft budget outside finance.', 'instruction'],
    ["Don't cc legal on first drafts.", 'instruction'],
    ['I prefer short answers with code first.', 'instruction'],
    ['The offsite is in Lisbon on November 18.', 'evidence'],
    ['Dana approved the Q3 budget on the call.', 'evidence'],
  ])('%s → %s', (text, kind) => {
    expect(guessKind(text)).toBe(kind);
  });
});

describe('large imports', () => {
  const many = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `n${i}`, text: `Note ${i} about project ${i % 97} and the ${['budget', 'offsite', 'retry'][i % 3]}.` }));

  it('names the one bad item among 100,000', () => {
    const items: { id: string; text?: string }[] = many(100_000);
    delete items[99_998].text;
    expect(() => parseMemoryFile(file(items))).toThrow('Item 99998 has no "text".');
  });

  it('imports 100,000 items in one all-or-nothing write', async () => {
    const { IDBFactory, IDBKeyRange } = await import('fake-indexeddb');
    const { openMemoryDB } = await import('../../lib/memory/db');
    const { MemoryStore } = await import('../../lib/memory/store');
    const db = openMemoryDB('big', { indexedDB: new IDBFactory(), IDBKeyRange });
    const store = new MemoryStore(db, async () => null);
    await store.add(parseMemoryFile(file(many(100_000))), { from: 'import', trusted: true });
    expect(await db.items.count()).toBe(100_000);
    expect(store.view.lexicalIndex.search(LexicalIndex.queryTerms('project 42 offsite'), 5).map((h) => h.id).length).toBeGreaterThan(0);
  });
});
