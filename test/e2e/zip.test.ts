import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PanelState } from '../../lib/messaging/protocol';
import { readTokenTable } from '../../lib/memory/token-table';
import { launchExtension, ROOT, type Harness } from './harness';

/**
 * The packages `npm run zip` writes (npm test runs it before this file): the Chrome Web Store zip is unpacked and
 * that build loaded in headless Chromium, the Firefox zip and its sources zip are checked for what the stores need.
 */
const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const zipPath = (what: 'chrome' | 'firefox' | 'sources') => join(ROOT, '.output', `backstory-${version}-${what}.zip`);
const MODEL_FILES = [
  'models/all-MiniLM-L6-v2/onnx/model_quantized.onnx',
  'models/all-MiniLM-L6-v2/tokenizer.json',
  'models/all-MiniLM-L6-v2/config.json',
  'ort/ort-wasm-simd-threaded.wasm',
];
const ICON_SIZES = ['16', '32', '48', '96', '128'];

function entries(what: 'chrome' | 'firefox' | 'sources'): Record<string, Uint8Array> {
  const path = zipPath(what);
  if (!existsSync(path)) throw new Error(`No ${path}: run \`npm run zip\` first.`);
  return unzipSync(readFileSync(path));
}
const manifestOf = (files: Record<string, Uint8Array>) => JSON.parse(new TextDecoder().decode(files['manifest.json'])) as Record<string, any>;

describe('npm run zip', () => {
  let h: Harness | undefined;
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'backstory-zip-'));
  });
  afterAll(async () => {
    await h?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the Chrome zip is a complete build: unpacked and loaded, it ranks with the bundled model', async () => {
    const files = entries('chrome');
    for (const f of MODEL_FILES) expect(Object.keys(files), f).toContain(f);
    const manifest = manifestOf(files);
    expect(manifest.manifest_version).toBe(3);
    expect(Object.keys(manifest.icons).sort()).toEqual([...ICON_SIZES].sort());
    for (const size of ICON_SIZES) expect(files[manifest.icons[size]]?.length, `icon ${size}`).toBeGreaterThan(100);

    for (const [name, bytes] of Object.entries(files)) {
      if (name.endsWith('/')) continue;
      mkdirSync(dirname(join(dir, name)), { recursive: true });
      writeFileSync(join(dir, name), bytes);
    }
    h = await launchExtension({ buildDir: dir });
    await h.seed((JSON.parse(readFileSync(join(ROOT, 'demo', 'memory.json'), 'utf8')) as { items: unknown[] }).items);
    const { page, tabId } = await h.openPage('/demo/compose.html');
    await page.locator('#body').click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type(' ');
    // Ranked with the model loaded from the zip's own files (the word-only ranking while it loads is not enough).
    await expect
      .poll(async () => {
        const s = await h!.call<PanelState>('panel:get', { tabId });
        return `${s.model.state} ${s.status} ${s.cards[0]?.item.id ?? ''}`;
      }, { timeout: 90_000 })
      .toBe('ready found demo-budget-decision');
    await page.close();
  });

  it('the Firefox zip carries the add-on id, the no-data-collected declaration, the model and the light and dark toolbar icons', () => {
    const files = entries('firefox');
    for (const f of MODEL_FILES) expect(Object.keys(files), f).toContain(f);
    const manifest = manifestOf(files);
    expect(manifest.browser_specific_settings.gecko.id).toBe('backstory@backstory.extension');
    // addons.mozilla.org refuses a new add-on without it; "none": nothing is collected or transmitted.
    expect(manifest.browser_specific_settings.gecko.data_collection_permissions).toEqual({ required: ['none'] });
    const themed = manifest.action.theme_icons as { light: string; dark: string; size: number }[];
    expect(themed.map((t) => t.size)).toEqual([16, 32]);
    for (const t of themed) {
      expect(files[t.light]?.length, t.light).toBeGreaterThan(100);
      expect(files[t.dark]?.length, t.dark).toBeGreaterThan(100);
    }
  });

  it('each zip carries the model\'s weights once (the int8 file every engine runs) and stays under 40 MB', () => {
    for (const what of ['chrome', 'firefox'] as const) {
      const onnx = Object.keys(entries(what)).filter((n) => n.startsWith('models/') && /\.onnx|onnx_data/.test(n));
      expect(onnx, what).toEqual(['models/all-MiniLM-L6-v2/onnx/model_quantized.onnx']);
      // Every install and update downloads it: 80 and 76 MB when the 4-bit files rode along for the WebGPU engine.
      expect(statSync(zipPath(what)).size, what).toBeLessThan(40e6);
    }
    // The token table is a file the worker reads when it starts, not 1.9 MB of its script (which took 75 ms a start),
    // nor JSON made into gpt-tokenizer's Map (200 ms or more a start).
    for (const what of ['chrome', 'firefox'] as const) {
      const files = entries(what);
      const file = files['tokenizer/o200k_base.bin'];
      expect(readTokenTable(file.buffer.slice(file.byteOffset, file.byteOffset + file.byteLength) as ArrayBuffer).size, what).toBe(199_998);
      expect(files['tokenizer/o200k_base.json'], what).toBeUndefined();
      expect(new TextDecoder().decode(files['background.js']), what).not.toContain(' controversies');
    }
    // Both engines kept: the WebGPU runtime is in the Chrome zip (Firefox has no offscreen document to run it).
    expect(Object.keys(entries('chrome'))).toContain('ort/ort-wasm-simd-threaded.jspi.wasm');
  });

  it('the sources zip holds what rebuilds the add-on and none of what install or build fetch and write', () => {
    const names = Object.keys(entries('sources'));
    for (const f of ['package.json', 'package-lock.json', '.npmrc', 'wxt.config.ts', 'assets/icon.svg', 'scripts/install-assets.mjs', 'entrypoints/background.ts']) {
      expect(names, f).toContain(f);
    }
    const fetchedOrBuilt = names.filter((n) => /^(node_modules|\.output|public\/models|public\/ort|public\/tokenizer|\.wxt|\.cache|screenshots)\//.test(n) || n.includes('/node_modules/'));
    expect(fetchedOrBuilt).toEqual([]);
  });

  it('the sources zip rebuilds the Firefox zip byte for byte, as a reviewer does after npm install', () => {
    const src = join(dir, 'sources');
    for (const [name, bytes] of Object.entries(entries('sources'))) {
      if (name.endsWith('/')) continue;
      mkdirSync(dirname(join(src, name)), { recursive: true });
      writeFileSync(join(src, name), bytes);
    }
    // What `npm install` would fetch: the packages, and the model (install-assets checks it against its checksums).
    symlinkSync(join(ROOT, 'node_modules'), join(src, 'node_modules'));
    mkdirSync(join(src, 'public'), { recursive: true });
    symlinkSync(join(ROOT, 'public', 'models'), join(src, 'public', 'models'));
    // Built as from a shell: vitest's NODE_ENV=test would give Preact's other build.
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'NODE_ENV' && !k.startsWith('VITEST')));
    for (const script of ['postinstall', 'build:firefox']) execFileSync('npm', ['run', '--silent', script], { cwd: src, env, stdio: ['ignore', 'ignore', 'inherit'] });
    const built = join(src, '.output', 'firefox-mv3');
    const differ = Object.entries(entries('firefox'))
      .filter(([name]) => !name.endsWith('/'))
      .filter(([name, bytes]) => !existsSync(join(built, name)) || !Buffer.from(bytes).equals(readFileSync(join(built, name))))
      .map(([name]) => name);
    expect(differ).toEqual([]);
  }, 240_000);
});
