import { browser } from 'wxt/browser';
import type { Embedder } from '../embed/embedder';
import { createTransformersEmbedder } from '../embed/transformers-embedder';
import type { ModelStatus } from '../messaging/protocol';

/** The model as the service worker holds it: loaded once per worker life, on first need. */
export class ModelHolder {
  status: ModelStatus = { state: 'idle' };
  private loading?: Promise<Embedder | null>;
  constructor(private readonly onStatus: (s: ModelStatus) => void) {}

  get(): Promise<Embedder | null> {
    this.loading ??= this.load();
    return this.loading;
  }

  private async load(): Promise<Embedder | null> {
    this.set({ state: 'loading' });
    try {
      const device = (await hasWebGpu()) ? 'webgpu' : 'wasm';
      const opts = {
        modelRoot: publicUrl('/models/'),
        wasmUrl: publicUrl('/ort/ort-wasm-simd-threaded.asyncify.wasm'),
      };
      let embedder: Embedder;
      try {
        embedder = await createTransformersEmbedder({ ...opts, device });
      } catch (e) {
        if (device === 'wasm') throw e;
        embedder = await createTransformersEmbedder({ ...opts, device: 'wasm' });
      }
      await embedder.embed(['warm up']);
      this.set({ state: 'ready', backend: embedder.backend });
      return embedder;
    } catch (e) {
      // Lexical ranking still works without the model; the panel says why.
      this.set({ state: 'failed', error: e instanceof Error ? e.message : String(e) });
      return null;
    }
  }

  private set(s: ModelStatus) {
    this.status = s;
    this.onStatus(s);
  }
}

async function hasWebGpu(): Promise<boolean> {
  const gpu = (navigator as Navigator & { gpu?: { requestAdapter(): Promise<unknown> } }).gpu;
  if (!gpu) return false;
  try {
    return !!(await gpu.requestAdapter());
  } catch {
    return false;
  }
}

/** URL of a file copied into the build at install time (WXT's PublicPath type only knows committed files). */
function publicUrl(path: string): string {
  return (browser.runtime.getURL as (p: string) => string)(path);
}
