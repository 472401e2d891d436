import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-web';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cosine } from '../../lib/embed/embedder';
import { NODE_MODEL_ROOT } from '../../lib/embed/node-embedder';
import { createOrtWebEmbedder } from '../../lib/embed/ort-web-embedder';
import { createOrtEmbedder, MODEL_FILES } from '../../lib/embed/ort-embedder';
import { FLOAT_WEIGHTS_PATH, int8ToFloatGraph } from '../../lib/embed/int8-to-float';
import { useLocalModels } from '../../lib/embed/local-models';
import type { MemoryItem } from '../../lib/memory/types';
import { embedText } from '../../lib/memory/index/item-text';
import { buildWithBrokenModel, launchExtension, type Harness } from './harness';

type Status = { unembedded: number; indexBackend?: string; indexReason?: string };

// Real text of the kinds people keep, so the comparison is about what memory holds.
const NOTES = [
  'Dana prefers short emails with the decision in the first line and no exclamation marks.',
  'The sync worker retried forever because the backoff cap was never read from the config file.',
  'Board meeting moved to Thursday 3pm; bring the signed supplier contract and the Q3 forecast.',
  'Caroline said the support group gave her the courage to apply for the counselling course.',
  'We decided to ship the Firefox build first and keep the Safari port for next quarter.',
  'Tomato seedlings need a week of hardening off before they go into the raised beds.',
  'The draft budget for Q3 is 1.2M; do not share it outside the finance channel.',
  'Code answers: TypeScript, one runnable example, no preamble, mention the edge cases.',
  'Melanie ran a charity race for mental health last Saturday and wants to do another in spring.',
  'Invoice 4471 was paid twice; finance will refund the second payment by Friday.',
  'The staging database is reset every Sunday night, so test data must be seeded by a script.',
  'Use British spelling in the newsletter and keep every paragraph under four lines.',
].map((text, i) => ({ id: `gpu${i}`, text }));

async function storedVectors(h: Harness): Promise<Record<string, number[]>> {
  const page = await h.extensionPage();
  return page.evaluate(
    () =>
      new Promise<Record<string, number[]>>((ok, no) => {
        const r = indexedDB.open('backstory');
        r.onerror = () => no(r.error);
        r.onsuccess = () => {
          const get = r.result.transaction('vectors').objectStore('vectors').getAll();
          get.onsuccess = () => {
            r.result.close();
            ok(Object.fromEntries((get.result as { id: string; vector: Float32Array }[]).map((row) => [row.id, Array.from(row.vector)])));
          };
          get.onerror = () => no(get.error);
        };
      }),
  );
}

async function optionsPage(h: Harness) {
  const page = await h.context.newPage();
  await page.goto(`chrome-extension://${h.extensionId}/options.html`);
  return page;
}

async function embeddedTexts(h: Harness): Promise<Map<string, string>> {
  const { items } = await h.call<{ items: MemoryItem[] }>('memory:list', {});
  return new Map(items.map((i) => [i.id, embedText(i)]));
}

describe('indexing on WebGPU (Chromium on its software adapter, SwiftShader)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await launchExtension({ webgpu: true });
  });
  afterAll(async () => h?.close());

  it('stays on WASM by default: a software adapter is no GPU, and the options page says why', { timeout: 240_000 }, async () => {
    // More than a few items: those are embedded by the service worker as they are saved, not by the indexing engine.
    await h.seed(NOTES.slice(0, 10).map((n) => ({ id: `auto${n.id}`, text: `Automatic, ${n.text}` })));
    await expect.poll(async () => (await h.call<Status>('model:status', {})).unembedded, { timeout: 120_000 }).toBe(0);
    const status = await h.call<Status>('model:status', {});
    expect(status.indexBackend).toMatch(/^offscreen\/wasm\/q8x\d$/);
    expect(status.indexReason).toMatch(/only a software adapter \(google swiftshader/i);
    const page = await optionsPage(h);
    await expect.poll(() => page.locator('[data-testid="index-backend"]').innerText(), { timeout: 30_000 }).toMatch(/WASM.*only a software adapter/i);
    await page.close();
  });

  it('indexes on WebGPU when chosen, with vectors that agree with the WASM path on the same texts', { timeout: 300_000 }, async () => {
    await h.call('settings:set', { patch: { embed: { backend: 'webgpu' } } });
    await h.seed(NOTES);
    await expect.poll(async () => (await h.call<Status>('model:status', {})).unembedded, { timeout: 240_000 }).toBe(0);
    const status = await h.call<Status>('model:status', {});
    expect(status.indexBackend, status.indexReason).toBe('offscreen/webgpu/q8');
    expect(status.indexReason).toMatch(/software adapter .*chosen in the options; vectors checked against WASM/);

    // The same texts on the WASM path (onnxruntime's WASM kernels, in Node): the float graph the WebGPU engine builds
    // from the shipped int8 file, and the int8 file itself, which the rest of memory and every query are embedded with.
    const stored = await storedVectors(h);
    const texts = await embeddedTexts(h);
    const ids = NOTES.map((n) => n.id);
    const int8 = new Uint8Array(readFileSync(join(NODE_MODEL_ROOT, 'all-MiniLM-L6-v2', 'onnx', MODEL_FILES.q8.model)));
    const { model, weights } = int8ToFloatGraph(int8);
    useLocalModels(NODE_MODEL_ROOT);
    const graph = await createOrtEmbedder({ ort, model, externalData: [{ path: FLOAT_WEIGHTS_PATH, data: weights }], backend: 'wasm/f32', dtype: 'q8' });
    const q8 = await createOrtWebEmbedder({ modelRoot: NODE_MODEL_ROOT, dtype: 'q8' });
    const onGraph = await graph.embed(ids.map((id) => texts.get(id)!));
    const onQ8 = await q8.embed(ids.map((id) => texts.get(id)!));
    await graph.close();
    await q8.close();
    const gpu = ids.map((id) => new Float32Array(stored[id]));
    const sameGraph = gpu.map((v, i) => cosine(v, onGraph[i]));
    const vsInt8 = gpu.map((v, i) => cosine(v, onQ8[i]));
    console.log(`WebGPU vs the same graph on WASM: ${Math.min(...sameGraph).toFixed(4)}-${Math.max(...sameGraph).toFixed(4)}; vs the int8 file: ${Math.min(...vsInt8).toFixed(4)}-${Math.max(...vsInt8).toFixed(4)}`);
    // Measured on SwiftShader: 1.0000 (to four places) against the same graph, 0.9887-0.9952 against the int8 file
    // (the WASM engines' activation quantisation is the difference; the q4 file the engine ran before was 0.986-0.995
    // from it too).
    expect(Math.min(...sameGraph)).toBeGreaterThan(0.999);
    expect(Math.min(...vsInt8)).toBeGreaterThan(0.98);
    expect(vsInt8.reduce((s, x) => s + x, 0) / vsInt8.length).toBeGreaterThan(0.99);

    // And the memory ranks by meaning with them: a question in other words finds its note first.
    const { tabId, page } = await h.openPage('/fixtures/textarea.html');
    await page.locator('#field').fill('why did the retry loop of the sync service never stop?');
    await expect
      .poll(async () => (await h.call<{ cards: { item: { id: string } }[] }>('panel:get', { tabId })).cards[0]?.item.id, { timeout: 60_000 })
      .toBe('gpu1');
    await page.close();
  });

  it('forcing WASM in the options takes effect for the next import', { timeout: 240_000 }, async () => {
    await h.call('settings:set', { patch: { embed: { backend: 'wasm' } } });
    // New texts: a text memory already holds takes the vector it has.
    await h.seed(NOTES.slice(0, 10).map((n) => ({ id: `wasm${n.id}`, text: `Forced WASM, ${n.text}` })));
    await expect.poll(async () => (await h.call<Status>('model:status', {})).unembedded, { timeout: 120_000 }).toBe(0);
    const status = await h.call<Status>('model:status', {});
    expect(status.indexBackend).toMatch(/^offscreen\/wasm\//);
    expect(status.indexReason).toBe('WASM chosen in the options');
  });
});

describe('when the WebGPU engine fails', () => {
  let h: Harness;
  let dir: string;
  beforeAll(async () => {
    // A build whose WebGPU runtime is broken; the WASM runtime and the model file both engines read are intact.
    dir = buildWithBrokenModel('broken-gpu', () => false);
    writeFileSync(join(dir, 'ort', 'ort-wasm-simd-threaded.jspi.wasm'), 'corrupt');
    h = await launchExtension({ buildDir: dir, webgpu: true });
  });
  afterAll(async () => {
    await h?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('indexes everything on WASM instead, each item once, and says what went wrong', { timeout: 300_000 }, async () => {
    await h.call('settings:set', { patch: { embed: { backend: 'webgpu' } } });
    await h.seed(NOTES);
    await expect.poll(async () => (await h.call<Status>('model:status', {})).unembedded, { timeout: 240_000 }).toBe(0);
    const status = await h.call<Status>('model:status', {});
    expect(status.indexBackend).toMatch(/^offscreen\/wasm\//);
    expect(status.indexReason).toMatch(/^WebGPU could not start \(.+\); indexing with WASM$/);
    const stored = await storedVectors(h);
    expect(Object.keys(stored).sort()).toEqual(NOTES.map((n) => n.id).sort());
    const page = await optionsPage(h);
    await expect.poll(() => page.locator('[data-testid="index-backend"]').innerText(), { timeout: 30_000 }).toMatch(/WebGPU could not start/);
    await page.close();
  });
});
