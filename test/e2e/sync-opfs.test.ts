// Sync's local-folder place against a real FileSystemDirectoryHandle: the Origin Private File System of a page in
// headless Chromium (the user's picked folder is the same interface).
import { build } from 'esbuild';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, CHROMIUM_ARGS } from './harness';

const ORIGIN = 'https://sync.backstory.test';
let browser: Browser;
let script: string;

beforeAll(async () => {
  const out = await build({
    entryPoints: [join(dirname(fileURLToPath(import.meta.url)), 'fixtures/sync/opfs-entry.ts')],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'chrome120',
    write: false,
    logLevel: 'error',
  });
  script = out.outputFiles[0].text;
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
});

afterAll(async () => {
  await browser?.close();
});

describe('a local folder in Chromium (Origin Private File System)', () => {
  it('writes, lists, reads and removes sync files, and says a removed folder is gone', async () => {
    const context = await browser.newContext();
    await context.route(`${ORIGIN}/**`, (route) => {
      const js = route.request().url().endsWith('.js');
      return route.fulfill({
        status: 200,
        contentType: js ? 'text/javascript' : 'text/html',
        body: js ? script : '<!doctype html><script src="/sync.js"></script>',
      });
    });
    const page = await context.newPage();
    await page.goto(`${ORIGIN}/`);
    const result = (await page.evaluate('window.runSync()')) as Record<string, unknown>;
    await context.close();
    expect(result.move).toBe(true);
    expect(result.seqs).toEqual([1, 2]);
    expect(result.device).toBe('Chromium');
    expect(result.problems).toEqual([]);
    expect(result.exists).toBe('exists');
    expect((result.listed as string[]).length).toBe(4);
    expect((result.listed as string[]).every((p) => !p.endsWith('.tmp') && !p.endsWith('.crswap'))).toBe(true);
    expect(result.gone).toMatch(/^gone: The folder 'sync-test' is no longer there/);
  });
});
