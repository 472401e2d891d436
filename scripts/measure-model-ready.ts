/**
 * Measures by hand how long the model takes to be ready in headless Chromium, for builds compared side by side in
 * alternating rounds (so the machine's noise hits each alike): the service worker's model (launch -> `model:status`
 * ready) and, with `--webgpu`, the WebGPU engine's start (a fresh engine Worker: runtime, model, graph, first text,
 * on Chromium's software adapter where there is no GPU). Not a test: the figures depend on the machine.
 *
 *   npx tsx scripts/measure-model-ready.ts [--rounds 3] [--webgpu] BUILD_DIR [BUILD_DIR…]
 * e.g. `.output/chrome-mv3` against an earlier commit's build.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { launchExtension } from '../test/e2e/harness';

const argv = process.argv.slice(2);
const at = argv.indexOf('--rounds');
const rounds = at >= 0 ? Number(argv[at + 1]) : 3;
const webgpu = argv.includes('--webgpu');
const builds = argv.filter((a, i) => !a.startsWith('--') && argv[i - 1] !== '--rounds').map((d) => resolve(d));
if (!builds.length) throw new Error('name at least one build directory (e.g. .output/chrome-mv3)');

/** The WebGPU engine's first answer, timed in an extension page (a string: the page runs it as written). */
const gpuStart = (worker: string) => `(async () => {
  const url = (p) => chrome.runtime.getURL(p);
  const w = new Worker(url('/assets/${worker}'), { type: 'module' });
  const t = performance.now();
  const reply = await new Promise((ok) => {
    w.onmessage = (e) => ok(e.data);
    w.postMessage({ id: 0, texts: ['The sync worker retries with exponential backoff.'], modelRoot: url('/models/'), wasmUrl: url('/ort/ort-wasm-simd-threaded.jspi.wasm'), allowSoftware: true });
  });
  const ms = performance.now() - t;
  w.terminate();
  if (reply.error) throw new Error(reply.error);
  return [ms, reply.backend];
})()`;

const figures = new Map(builds.map((b) => [b, { worker: [] as number[], gpu: [] as number[] }]));
for (let r = 1; r <= rounds; r++) {
  for (const dir of builds) {
    const f = figures.get(dir)!;
    const t0 = Date.now();
    const h = await launchExtension({ buildDir: dir, webgpu });
    try {
      for (;;) {
        const s = await h.call<{ state: string; error?: string }>('model:status', {});
        if (s.state === 'failed') throw new Error(`${dir}: the model failed: ${s.error}`);
        if (s.state === 'ready') break;
        if (s.state === 'idle') await h.call('memory:list', {}).catch(() => undefined); // loaded on first need
        await new Promise((ok) => setTimeout(ok, 25));
      }
      f.worker.push(Date.now() - t0);
      let line = `round ${r} ${dir}: launch -> worker model ready ${f.worker.at(-1)} ms`;
      const assets = join(dir, 'assets');
      const worker = webgpu && existsSync(assets) ? readdirSync(assets).find((n) => /^gpu-worker-.*\.js$/.test(n)) : undefined;
      if (worker) {
        const page = await h.extensionPage();
        const [ms, backend] = (await page.evaluate(gpuStart(worker))) as [number, string];
        f.gpu.push(Math.round(ms));
        line += `; WebGPU engine ready with its first text ${Math.round(ms)} ms (${backend})`;
      }
      console.log(line);
    } finally {
      await h.close();
    }
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const [dir, f] of figures)
  console.log(`${dir}: worker model ready median ${median(f.worker)} ms (${f.worker.join(', ')})${f.gpu.length ? `; WebGPU engine median ${median(f.gpu)} ms (${f.gpu.join(', ')})` : ''}`);
