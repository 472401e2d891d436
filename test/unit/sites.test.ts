import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ADAPTERS, pickAdapter } from '../../lib/sites/index';
import { clip, outermost, tidy, uniq } from '../../lib/sites/text';

const loc = (url: string) => new URL(url) as unknown as Location;

describe('adapter selection', () => {
  it('picks by hostname, with the generic adapter last and for everything else', () => {
    expect(pickAdapter(loc('https://mail.google.com/mail/u/0/#inbox')).name).toBe('gmail');
    expect(pickAdapter(loc('https://chatgpt.com/c/1')).name).toBe('chatgpt');
    expect(pickAdapter(loc('https://chat.openai.com/')).name).toBe('chatgpt');
    expect(pickAdapter(loc('https://claude.ai/new')).name).toBe('claude');
    expect(pickAdapter(loc('https://example.com/mail.google.com')).name).toBe('generic');
    expect(pickAdapter(loc('https://mail.google.com.evil.test/')).name).toBe('generic');
    expect(pickAdapter(loc('http://127.0.0.1:5173/gmail-compose.html')).name).toBe('generic');
    expect(ADAPTERS.at(-1)?.name).toBe('generic');
  });
  it('every adapter declares what it reads and (site adapters) what it watches', () => {
    for (const a of ADAPTERS) {
      expect(typeof a.read).toBe('function');
      if (a.name !== 'generic') expect(typeof a.scope).toBe('function');
    }
  });
});

describe('the README', () => {
  it('lists every site an adapter reads, by its address, with what is read and how a card is inserted', () => {
    const readme = readFileSync(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8');
    const section = /## Supported sites\n([\s\S]*?)\n## /.exec(readme)?.[1] ?? '';
    const rows = section.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| site '));
    for (const a of ADAPTERS) {
      if (a.name === 'generic') continue;
      for (const host of a.hosts) {
        // The address as the adapter narrows it: docs.google.com/document, not all of docs.google.com.
        const address = `${host.replace(/^www\./, '')}${(a.path ?? '').replace(/\/$/, '')}`;
        const row = rows.find((r) => r.includes(`\`${address}`));
        expect(row, `${a.name}: ${host}`).toBeDefined();
        // site | what is read | how a card is inserted: none of them empty.
        expect(row!.split('|').slice(1, -1).map((c) => c.trim()).filter(Boolean), `${a.name}: ${host}`).toHaveLength(3);
      }
    }
  });
});

describe('text helpers', () => {
  it('tidies lines, clips, dedupes case-insensitively, keeps outermost matches', () => {
    expect(tidy('  a \n\n  b\u00a0\u00a0c ')).toBe('a\nb c');
    expect(clip('abcdef', 4)).toBe('abc…');
    expect(uniq(['Ana', 'ana', ' ', 'Bo'])).toEqual(['Ana', 'Bo']);
    const outer = { contains: (x: unknown) => x === inner } as unknown as Element;
    const inner = { contains: () => false } as unknown as Element;
    expect(outermost([outer, inner])).toEqual([outer]);
  });
});
