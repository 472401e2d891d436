import { browser } from 'wxt/browser';
import { serveOffscreen } from '../messaging/rpc';
import { MODEL_DIM, ORT_WASM_PATH } from './embedder';
import type { EngineReply, EngineRequest } from './offscreen-worker';
import { packVectors } from './offscreen-wire';

/**
 * Engines (Workers) the document runs: one per core, at least two, at most four; the service worker needs little
 * while it only stores. Each runs the model on one thread and gets its share of every batch. Splitting batches
 * between single-threaded engines held up better than one engine on two WASM threads, whose per-operator
 * synchronisation stalls as soon as the cores are shared with anything else (two threads ran slower than one on the
 * loaded 2-core machine this was measured on), and it needs no SharedArrayBuffer, so the extension's pages need no
 * cross-origin isolation.
 */
export function engineCount(cores = navigator.hardwareConcurrency || 2): number {
  return Math.min(4, Math.max(2, cores - 1));
}

/** Splits `n` items into `parts` contiguous runs as even as possible (the batch is sorted by length). */
export function shares(n: number, parts: number): [number, number][] {
  const out: [number, number][] = [];
  for (let p = 0, start = 0; p < parts; p++) {
    const size = Math.floor(n / parts) + (p < n % parts ? 1 : 0);
    if (size) out.push([start, start + size]);
    start += size;
  }
  return out;
}

class Engine {
  private worker = new Worker(new URL('./offscreen-worker.ts', import.meta.url), { type: 'module' });
  private waiting = new Map<number, (r: EngineReply) => void>();
  private next = 0;
  constructor() {
    this.worker.onmessage = (e: MessageEvent<EngineReply>) => {
      this.waiting.get(e.data.id)?.(e.data);
      this.waiting.delete(e.data.id);
    };
    this.worker.onerror = (e) => {
      for (const done of this.waiting.values()) done({ id: -1, error: `embedding engine failed: ${e.message}` });
      this.waiting.clear();
    };
  }
  embed(texts: string[]): Promise<{ vectors: Float32Array[]; backend: string }> {
    const url = (p: string) => (browser.runtime.getURL as (p: string) => string)(p);
    const id = this.next++;
    const req: EngineRequest = { id, texts, modelRoot: url('/models/'), wasmUrl: url(ORT_WASM_PATH) };
    return new Promise((ok, no) => {
      this.waiting.set(id, (r) => ('error' in r ? no(new Error(r.error)) : ok(r)));
      this.worker.postMessage(req);
    });
  }
}

/**
 * The offscreen document's side: an embedding engine and nothing else. It answers the service worker's
 * `offscreen:embed` with the vectors of the texts, computed by its Workers from the extension's own model files. It
 * holds no memory: the service worker owns IndexedDB and decides what to embed.
 */
export function serveOffscreenEngine(): void {
  let engines: Engine[] | undefined;
  serveOffscreen({
    'offscreen:embed': async ({ texts }) => {
      const all = (engines ??= Array.from({ length: engineCount() }, () => new Engine())); // started on the first request
      const parts = await Promise.all(shares(texts.length, all.length).map(([a, b], i) => all[i].embed(texts.slice(a, b))));
      const vectors = parts.flatMap((p) => p.vectors);
      return { vectors: packVectors(vectors, MODEL_DIM), count: vectors.length, dim: MODEL_DIM, backend: `offscreen/${parts[0]?.backend ?? 'wasm'}x${all.length}` };
    },
  });
}
