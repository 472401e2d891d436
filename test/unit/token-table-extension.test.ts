// The extension reads the token table from the file install-assets writes (lib/memory/token-ranks-extension.ts): the
// counts it makes must be Node's, and a build without the file, or with a damaged one, must say so, not count wrong.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fakeBrowser } from 'wxt/testing';
import ranks from 'gpt-tokenizer/bpeRanks/o200k_base';
import { readTokenTable, tokenBytes, tokenTableFile } from '../../lib/memory/token-table';
import { countTokens } from '../../lib/memory/tokens';

const SHIPPED = join(import.meta.dirname, '..', '..', 'public', 'tokenizer', 'o200k_base.bin');

async function freshModules() {
  vi.stubGlobal('chrome', fakeBrowser); // what wxt/browser hands the module
  vi.resetModules();
  vi.doMock('../../lib/memory/token-ranks-node', () => import('../../lib/memory/token-ranks-extension'));
  const ext = await import('../../lib/memory/token-ranks-extension');
  const tokens = await import('../../lib/memory/tokens');
  return { ext, tokens };
}

afterEach(() => {
  vi.doUnmock('../../lib/memory/token-ranks-node');
  vi.unstubAllGlobals();
});

const texts = [
  'Dana prefers short status updates on Fridays; the vendor contract renews on 3 March 2026 at £1,200.',
  'Größe, déjà vu, naïve — Ελληνικά, русский, 日本語のテキスト, العربية, עברית, हिन्दी',
  '👩‍💻 shipped 🚀🚀 at 10:45 (UTC+02:00) — ok? ✅',
  'function f(x) { return x.map((y) => y ** 2).filter(Boolean); } // <b>tags</b> &amp;',
  ' \t\n  leading and trailing space \n',
];

describe('the token table read from the extension', () => {
  it('is the file install-assets writes from gpt-tokenizer\'s ranks, and counts as Node does', async () => {
    const shipped = readFileSync(SHIPPED);
    expect(Buffer.compare(shipped, Buffer.from(tokenTableFile(tokenBytes(ranks))))).toBe(0);
    const asked: string[] = [];
    vi.stubGlobal('fetch', async (url: string) => {
      asked.push(String(url));
      return new Response(shipped);
    });
    const { ext, tokens } = await freshModules();
    expect(() => tokens.countTokens('hello')).toThrow(/before the token table was read/);
    await tokens.loadTokenCounter();
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatch(/\/tokenizer\/o200k_base\.bin$/);
    expect(ext.tokenTable().size).toBe(199_998);
    for (const t of texts) expect(tokens.countTokens(t), t).toBe(countTokens(t));
  });

  it('a build without the file says so in words, and a later read tries again', async () => {
    let present = false;
    vi.stubGlobal('fetch', async () => (present ? new Response(readFileSync(SHIPPED)) : new Response('Not found', { status: 404 })));
    const { ext } = await freshModules();
    await expect(ext.loadTokenTable()).rejects.toThrow(/token table .* is missing from this build: reinstall the extension/);
    present = true;
    await ext.loadTokenTable();
    expect(ext.tokenTable().size).toBe(199_998);
  });

  it('a file cut short, of another format, or with a token twice is refused in words', () => {
    const whole = tokenTableFile(tokenBytes(ranks));
    const copy = (f: (b: Uint8Array) => void) => {
      const b = whole.slice();
      f(b);
      return b.buffer;
    };
    expect(() => readTokenTable(whole.slice(0, whole.length - 1).buffer)).toThrow(/damaged: it is not the length its header gives/);
    expect(() => readTokenTable(whole.slice(0, 10).buffer)).toThrow(/not in a format this version reads/);
    expect(() => readTokenTable(copy((b) => (b[4] = 2)))).toThrow(/not in a format this version reads/);
    expect(() => readTokenTable(new TextEncoder().encode(JSON.stringify(ranks)).buffer)).toThrow(/not in a format this version reads/);
    // Token 1 ("\"") made the same as token 0 ("!"): the table would give one of them the other's rank.
    expect(() => readTokenTable(copy((b) => (b[16 + 199_998 + 1] = b[16 + 199_998])))).toThrow(/a token appears twice/);
    // One length a byte longer and the next a byte shorter: the bytes still add up, the tokens do not.
    expect(() => readTokenTable(copy((b) => { b[16 + 5]++; b[16 + 6]--; }))).toThrow(/damaged/);
  });
});
