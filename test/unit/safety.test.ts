import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { LexicalIndex } from '../../lib/memory/index/lexical-index';
import { describe, expect, it } from 'vitest';
import { decodeFileBytes } from '../../lib/memory/decode-text';
import { openMemoryDB } from '../../lib/memory/db';
import { cleanText, MAX_ITEM_CHARS } from '../../lib/memory/normalize';
import { findSecrets } from '../../lib/memory/secrets';
import { MemoryStore } from '../../lib/memory/store';
import { rankMemory } from '../../lib/rank/rank';
import { DEFAULT_SETTINGS } from '../../lib/settings/defaults';
import { normalizeRankSettings } from '../../lib/settings/settings';
import { reasonOf } from './rank-fixtures';

const task = (text: string) => ({ url: 'https://x.test/', title: '', site: 'x.test', adapter: 'generic', destination: 'documents' as const, field: { text, kind: 'textarea' as const }, at: 0 });

describe('secrets on capture', () => {
  it.each([
    ['aws', 'deploy with AKIAIOSFODNN7EXAMPLE and the usual bucket'],
    ['github', 'token ghp_abcdefghijklmnopqrstuvwxyz0123456789ABCD'],
    ['openai', 'OPENAI key sk-proj-abcdefghijklmnopqrstuvwx1234'],
    ['assignment', 'password = "correct-horse-battery"'],
    ['private key', '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----'],
  ])('flags a %s', (_k, text) => {
    expect(findSecrets(text).length).toBeGreaterThan(0);
  });

  it('does not flag ordinary notes about passwords and keys', () => {
    expect(findSecrets('Reset your password from the settings page; the API key rotates monthly.')).toEqual([]);
  });

  it('holds a flagged item out of ranking and indexes until confirmed', async () => {
    const store = new MemoryStore(openMemoryDB('s', { indexedDB: new IDBFactory(), IDBKeyRange }), async () => null);
    const [held] = await store.add([{ text: 'staging deploy token ghp_abcdefghijklmnopqrstuvwxyz0123456789ABCD', needsReview: 'secret' }], { from: 'user' });
    const rank = () => rankMemory({ task: task('staging deploy token'), memory: store.view, settings: DEFAULT_SETTINGS, now: Date.now() });
    expect((await rank()).cards).toEqual([]);
    expect(reasonOf((await rank()).trace, held.id) ?? 'not a candidate').not.toMatch(/^Score/);
    expect(store.view.lexicalIndex.search(LexicalIndex.queryTerms('staging'), 10).map((h) => h.id)).toEqual([]);
    await store.update(held.id, { needsReview: '' });
    expect((await rank()).cards.map((c) => c.item.id)).toEqual([held.id]);
  });
});

describe('odd text', () => {
  it('strips control characters but keeps right-to-left text, emoji and line breaks', () => {
    expect(cleanText('a\u0000b\u0007c\r\nשלום 👋🏽\tend')).toBe('abc\nשלום 👋🏽\tend');
  });

  it('refuses an oversized item with a message that gives the size', async () => {
    const store = new MemoryStore(openMemoryDB('o', { indexedDB: new IDBFactory(), IDBKeyRange }), async () => null);
    await expect(store.add([{ text: 'x'.repeat(MAX_ITEM_CHARS + 1) }], { from: 'user' })).rejects.toThrow(/characters; one memory holds at most/);
    expect(store.size).toBe(0);
  });

  it('decodes UTF-8, UTF-16 and Windows-1252 note files without replacement characters', () => {
    const utf8 = new TextEncoder().encode('Café – naïve');
    expect(decodeFileBytes(utf8)).toEqual({ text: 'Café – naïve', encoding: 'UTF-8' });
    const cp1252 = Uint8Array.from([0x43, 0x61, 0x66, 0xe9, 0x20, 0x96, 0x20, 0x6e, 0x61, 0xef, 0x76, 0x65]);
    expect(decodeFileBytes(cp1252)).toEqual({ text: 'Café – naïve', encoding: 'Windows-1252' });
    const utf16 = Uint8Array.from([0xff, 0xfe, 0x48, 0x00, 0xe9, 0x00]);
    expect(decodeFileBytes(utf16).text).toBe('Hé');
  });
});

describe('settings', () => {
  it('clamps and fills stored settings so a bad value cannot break ranking', () => {
    const s = normalizeRankSettings({ weights: { semantic: 7, lexical: -1, recency: 'x' }, budgetTokens: 1e9, halfLifeDays: 0 });
    expect(s.weights.semantic).toBe(1);
    expect(s.weights.lexical).toBe(0);
    expect(s.weights.recency).toBe(DEFAULT_SETTINGS.weights.recency);
    expect(s.budgetTokens).toBe(20_000);
    expect(s.halfLifeDays).toBe(0.5);
  });
});
