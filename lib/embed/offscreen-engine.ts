import { browser } from 'wxt/browser';
import { fromThisExtension, isServiceWorker, serve, type Handlers } from '../channel/rpc';
import { MODEL_DIM, ORT_WASM_PATH } from './embedder';
import { EnginePool, engineCount, type Engine } from './engine-pool';
import { EngineChoice } from './engine-choice';
import { startGpuEngine } from './gpu-engine-start';
import { browserGpu, chooseGpuAdapter } from './gpu-adapter';
import type { EngineReply, EngineRequest } from './offscreen-worker';
import { packVectors, type OffscreenProtocol } from './offscreen-wire';
import { WorkerChannel } from './worker-channel';

/** Offscreen document side: only the service worker may ask it to embed. */
function serveOffscreen(handlers: Handlers<OffscreenProtocol>): void {
  serve(handlers, (_type, sender) => fromThisExtension(sender) && isServiceWorker(sender));
}

const url = (p: string) => (browser.runtime.getURL as (p: string) => string)(p);

/** One engine: a dedicated Worker running the int8 model on one WASM thread (lib/embed/offscreen-worker.ts). */
class WasmEngine implements Engine {
  private channel = new WorkerChannel<EngineRequest, EngineReply>(new Worker(new URL('./offscreen-worker.ts', import.meta.url), { type: 'module' }));
  backend = 'wasm';
  constructor(private readonly index: number) {}
  async embed(texts: string[]): Promise<Float32Array[]> {
    const r = await this.channel.call((id) => ({ id, texts, modelRoot: url('/models/'), wasmUrl: url(ORT_WASM_PATH), engine: this.index }));
    this.backend = r.backend;
    return r.vectors;
  }
}

/**
 * The offscreen document's side: an embedding engine and nothing else. It answers the service worker's
 * `offscreen:embed` with the vectors of the texts, computed by its Workers from the extension's own model files: the
 * WASM engines (one per core), or the WebGPU engine where the device has a GPU it may use (engine-choice.ts). It
 * holds no memory: the service worker owns IndexedDB and decides what to embed.
 */
export function serveOffscreenEngine(): void {
  let engines: WasmEngine[] | undefined;
  let pool: EnginePool | undefined;
  const wasm = {
    get backend() {
      return `${engines?.[0].backend ?? 'wasm'}x${engines?.length ?? 0}`;
    },
    embed(texts: string[]) {
      engines ??= Array.from({ length: engineCount() }, (_, k) => new WasmEngine(k)); // started on the first request
      pool ??= new EnginePool(engines);
      return pool.embed(texts);
    },
  };
  const choice = new EngineChoice({ wasm, verdict: (c) => chooseGpuAdapter(browserGpu(), c), startGpu: (c) => startGpuEngine(c === 'webgpu') });
  serveOffscreen({
    'offscreen:embed': async ({ texts, backend, run }) => {
      const r = await choice.embed(texts, backend ?? 'auto', run ?? texts.length);
      return { vectors: packVectors(r.vectors, MODEL_DIM), count: r.vectors.length, dim: MODEL_DIM, backend: `offscreen/${r.backend}`, reason: r.reason };
    },
  });
}
