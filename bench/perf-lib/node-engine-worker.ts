// One engine of the Node engine pool (bench/perf-lib/node-engines.ts): the int8 model on onnxruntime-web's WASM, one
// thread, in a worker thread. It answers one request at a time, in order.
import { parentPort, workerData } from 'node:worker_threads';
import { createOrtWebEmbedder, type ModelDtype } from '../../lib/embed/ort-web-embedder';

const { modelRoot, dtype } = workerData as { modelRoot: string; dtype: ModelDtype };
const engine = createOrtWebEmbedder({ modelRoot, dtype, threads: 1, batchSize: 16 });
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
