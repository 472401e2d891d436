// One engine of the Node engine pool (bench/lib/perf/node-engines.ts): the int8 model on onnxruntime-web's WASM, one
// thread, in a worker thread. It answers one request at a time, in order.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { engineRuntimeBytes } from '../../../lib/embed/engine-pool';
import { createOrtWebEmbedder, type ModelDtype } from '../../../lib/embed/ort-web-embedder';

const { modelRoot, dtype, index } = workerData as { modelRoot: string; dtype: ModelDtype; index: number };
// Each engine's runtime module of its own, as in the offscreen document (see engineRuntimeBytes).
const ortMain = createRequire(import.meta.url).resolve('onnxruntime-web'); // …/dist/ort.node.min.js
const wasm = readFileSync(join(dirname(ortMain), 'ort-wasm-simd-threaded.wasm'));
const engine = createOrtWebEmbedder({ modelRoot, dtype, threads: 1, batchSize: 16, wasmBinary: engineRuntimeBytes(new Uint8Array(wasm), index) });
let queue: Promise<void> = Promise.resolve();

parentPort!.on('message', ({ id, texts }: { id: number; texts: string[] }) => {
  queue = queue.then(async () => {
    try {
      const vectors = await (await engine).embed(texts);
      parentPort!.postMessage({ id, vectors }, vectors.map((v) => v.buffer as ArrayBuffer));
    } catch (e) {
      parentPort!.postMessage({ id, error: e instanceof Error ? e.message : String(e) });
    }
  });
});
