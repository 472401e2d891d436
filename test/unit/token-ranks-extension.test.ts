// The extension reads the token table from the file install-assets writes (lib/memory/token-ranks-extension.ts): the
// counts it makes must be Node's, and a build without the file must say so, not count wrong.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fakeBrowser } from 'wxt/testing';
import { GptEncoding } from 'gpt-tokenizer/GptEncoding';
import { countTokens } from '../../lib/memory/tokens';

const SHIPPED = join(import.meta.dirname, '..', '..', 'public', 'tokenizer', 'o200k_base.json');

async function freshModule() {
  vi.stubGlobal('chrome', fakeBrowser); // what wxt/browser hands the module
  vi.resetModules();
  return import('../../lib/memory/token-ranks-extension');
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('the token table read from the extension', () => {
  it('counts as Node does: texts in several scripts, emoji, numbers and code', async () => {
    const asked: string[] = [];
    vi.stubGlobal('fetch', async (url: string) => {
      asked.push(String(url));
      return new Response(readFileSync(SHIPPED));
    });
    const ext = await freshModule();
    expect(() => ext.tokenRanks()).toThrow(/before the token table was read/);
    await ext.loadTokenRanks();
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatch(/\/tokenizer\/o200k_base\.json$/);
    const fromFile = GptEncoding.getEncodingApi('o200k_base', ext.tokenRanks);
    const texts = [
      'Dana prefers short status updates on Fridays; the vendor contract renews on 3 March 2026 at £1,200.',
      'Größe, déjà vu, naïve — Ελληνικά, русский, 日本語のテキスト, العربية, עברית, हिन्दी',
      '👩‍💻 shipped 🚀🚀 at 10:45 (UTC+02:00) — ok? ✅',
      'function f(x) { return x.map((y) => y ** 2).filter(Boolean); } // <b>tags</b> &amp;',
      ' \t\n  leading and trailing space \n',
    ];
    for (const t of texts) expect(fromFile.countTokens(t), t).toBe(countTokens(t));
  });

  it('a build without the file says so in words, and a later read tries again', async () => {
    let present = false;
    vi.stubGlobal('fetch', async () => (present ? new Response(readFileSync(SHIPPED)) : new Response('Not found', { status: 404 })));
    const ext = await freshModule();
    await expect(ext.loadTokenRanks()).rejects.toThrow(/token table .* is missing from this build: reinstall the extension/);
    present = true;
    await ext.loadTokenRanks();
    expect(ext.tokenRanks().length).toBe(199_998);
  });
});
