import { Worker } from 'node:worker_threads';
import type { Engine } from '../../../lib/embed/engine-pool';
import type { ModelDtype } from '../../../lib/embed/ort-web-embedder';

/**
 * The extension's engine pool as Node can run it: each engine a worker thread with the model on one WASM thread
 * (what each of the offscreen document's Workers runs), so the bench measures the shipped EnginePool and
 * MemoryStore.embedPending on both cores.
 */
export class NodeWorkerEngine implements Engine {
  private worker: Worker;
  private waiting = new Map<number, (r: { vectors?: Float32Array[]; error?: string }) => void>();
  private next = 0;
  constructor(modelRoot: string, dtype: ModelDtype, index: number) {
    // Worker threads do not inherit tsx's loader (Node 20): a small script loads the TypeScript engine through tsx.
    const entry = new URL('./node-engine-worker.ts', import.meta.url).href;
    const tsx = import.meta.resolve('tsx/esm/api');
    this.worker = new Worker(`import(${JSON.stringify(tsx)}).then(({ tsImport }) => tsImport(${JSON.stringify(entry)}, ${JSON.stringify(entry)}))`, { eval: true, workerData: { modelRoot, dtype, index } });
    this.worker.on('message', (r: { id: number; vectors?: Float32Array[]; error?: string }) => {
      this.waiting.get(r.id)?.(r);
      this.waiting.delete(r.id);
    });
    this.worker.on('error', (e) => {
      for (const done of this.waiting.values()) done({ error: e.message });
      this.waiting.clear();
    });
  }
  async embed(texts: string[]): Promise<Float32Array[]> {
    const id = this.next++;
    const r = await new Promise<{ vectors?: Float32Array[]; error?: string }>((done) => {
      this.waiting.set(id, done);
      this.worker.postMessage({ id, texts });
    });
    if (r.error || !r.vectors) throw new Error(r.error ?? 'no vectors');
    return r.vectors;
  }
  close(): Promise<number> {
    return this.worker.terminate();
  }
}
