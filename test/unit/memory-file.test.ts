import { describe, expect, it } from 'vitest';
import { ImportError, parseMemoryFile, serializeMemoryFile } from '../../lib/memory/memory-file';
import { createItem } from '../../lib/memory/normalize';
import { guessKind } from '../../lib/memory/kind-guess';

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
  ])('rejects %s with a message naming the problem', (_name, raw, message) => {
    expect(() => parseMemoryFile(raw)).toThrow(ImportError);
    expect(() => parseMemoryFile(raw)).toThrow(message);
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
    await store.add(parseMemoryFile(file(many(100_000))));
    expect(await db.items.count()).toBe(100_000);
    expect(store.view.lexical('project 42 offsite', 5).length).toBeGreaterThan(0);
  });
});
