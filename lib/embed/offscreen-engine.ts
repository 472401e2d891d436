import { browser } from 'wxt/browser';
import { serveOffscreen } from '../messaging/rpc';
import { MODEL_DIM, ORT_WASM_PATH } from './embedder';
import { EnginePool, engineCount, type Engine } from './engine-pool';
import type { EngineReply, EngineRequest } from './offscreen-worker';
import { packVectors } from './offscreen-wire';

const url = (p: string) => (browser.runtime.getURL as (p: string) => string)(p);

/** One engine: a dedicated Worker running the int8 model on one WASM thread (lib/embed/offscreen-worker.ts). */
class WorkerEngine implements Engine {
  private worker = new Worker(new URL('./offscreen-worker.ts', import.meta.url), { type: 'module' });
  private waiting = new Map<number, (r: EngineReply) => void>();
  private next = 0;
  backend = 'wasm';
  constructor(private readonly index: number) {
    this.worker.onmessage = (e: MessageEvent<EngineReply>) => {
      this.waiting.get(e.data.id)?.(e.data);
      this.waiting.delete(e.data.id);
    };
    this.worker.onerror = (e) => {
      for (const done of this.waiting.values()) done({ id: -1, error: `embedding engine failed: ${e.message}` });
      this.waiting.clear();
    };
  }
  async embed(texts: string[]): Promise<Float32Array[]> {
    const id = this.next++;
    const req: EngineRequest = { id, texts, modelRoot: url('/models/'), wasmUrl: url(ORT_WASM_PATH), engine: this.index };
    const r = await new Promise<EngineReply>((done) => {
      this.waiting.set(id, done);
      this.worker.postMessage(req);
    });
    if ('error' in r) throw new Error(r.error);
    this.backend = r.backend;
    return r.vectors;
  }
}

/**
 * The offscreen document's side: an embedding engine and nothing else. It answers the service worker's
 * `offscreen:embed` with the vectors of the texts, computed by its Workers from the extension's own model files. It
 * holds no memory: the service worker owns IndexedDB and decides what to embed.
 */
export function serveOffscreenEngine(): void {
  let engines: WorkerEngine[] | undefined;
  let pool: EnginePool | undefined;
  serveOffscreen({
    'offscreen:embed': async ({ texts }) => {
      engines ??= Array.from({ length: engineCount() }, (_, k) => new WorkerEngine(k)); // started on the first request
      pool ??= new EnginePool(engines);
      const vectors = await pool.embed(texts);
      return { vectors: packVectors(vectors, MODEL_DIM), count: vectors.length, dim: MODEL_DIM, backend: `offscreen/${engines[0].backend}x${engines.length}` };
    },
  });
}
