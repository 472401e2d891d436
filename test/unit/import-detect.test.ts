import { strToU8, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { sniffFormat } from '../../lib/import/detect';
import { fixtureBytes } from './import-fixtures';

const head = (b: Uint8Array) => b.subarray(0, 64 * 1024);

describe('format from content', () => {
  it.each([
    ['chatgpt/conversations.json', 'export', 'chatgpt'],
    ['claude/conversations.json', 'conversations.json', 'claude'],
    ['mail/takeout.mbox', 'mail.txt', 'mbox'],
    ['mail/reply.eml', 'reply.txt', 'eml'],
    ['vault/Projects/Lisbon offsite.md', 'plan', 'markdown'],
    ['vault/Daily/2026-03-03.md', '2026-03-03.md', 'markdown'],
    ['vault/Daily/2026-03-03.md', 'today.txt', 'text'],
    ['vault/attachments/floor-plan.png', 'floor-plan.md', 'unknown'],
  ])('%s named "%s" is %s', (path, name, format) => {
    expect(sniffFormat(head(fixtureBytes(path)), name)).toBe(format);
  });

  it('knows a zip by its magic number and a memory file by its format field', () => {
    expect(sniffFormat(zipSync({ 'a.txt': strToU8('x') }), 'notes.json')).toBe('zip');
    expect(sniffFormat(strToU8('\uFEFF{ "format": "backstory-memory", "version": 1, "items": [] }'), 'x.txt')).toBe('memory-file');
    expect(sniffFormat(strToU8('[{"title":"t","create_time":1,"mapping":{}}]'), 'x')).toBe('chatgpt');
    expect(sniffFormat(strToU8('[{"id": 1}]'), 'x.json')).toBe('conversations');
  });

  it('does not take prose that starts with "From" for an mbox', () => {
    expect(sniffFormat(strToU8('From the desk of the studio manager:\nWe close early on Friday.'), 'memo')).toBe('text');
  });
});
