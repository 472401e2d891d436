import { browser } from 'wxt/browser';
import type { Embedder } from '../embed/embedder';
import { OffscreenEmbedder, offscreenAvailable } from '../embed/offscreen-client';
import { createTransformersEmbedder } from '../embed/transformers-embedder';
import type { ModelStatus } from '../messaging/protocol';

/** The model as the service worker holds it: loaded once per worker life, on first need. */
export type BackendChoice = 'auto' | 'wasm' | 'webgpu';

export class ModelHolder {
  status: ModelStatus = { state: 'idle' };
  private loading?: Promise<Embedder | null>;
  private loadedFor?: BackendChoice;
  constructor(
    private readonly onStatus: (s: ModelStatus) => void,
    /** The options page's backend choice. */
    private readonly backendChoice: () => Promise<BackendChoice> = async () => 'auto',
  ) {}

  get(): Promise<Embedder | null> {
    this.loading ??= this.load();
    return this.loading;
  }

  private offscreen?: OffscreenEmbedder;

  /**
   * The embedder for indexing (imports, late embeddings). In Chrome that is the offscreen document, one engine per core
   * on threads of its own, so the worker's own thread stays free for ranking; where there is no offscreen document
   * (Firefox), or WebGPU was chosen, it is the worker's own model. The store falls back to `get()` if it fails.
   */
  async indexer(): Promise<Embedder | null> {
    const own = await this.get();
    if (!own || !offscreenAvailable() || own.backend.startsWith('webgpu')) return own;
    this.offscreen ??= new OffscreenEmbedder();
    return this.offscreen;
  }

  /** Loads the model again when the backend choice changed since it was loaded. */
  async applyChoice(choice: BackendChoice): Promise<void> {
    if (!this.loading || this.loadedFor === choice) return;
    await this.loading.catch(() => null);
    this.loading = undefined;
    await this.get();
  }

  private async load(): Promise<Embedder | null> {
    this.set({ state: 'loading' });
    try {
      const choice = await this.backendChoice();
      this.loadedFor = choice;
      // WebGPU only where an adapter exists; a "WebGPU" choice without one falls back to WASM.
      const device: 'wasm' | 'webgpu' = choice !== 'wasm' && (await hasWebGpu()) ? 'webgpu' : 'wasm';
      const opts = {
        modelRoot: publicUrl('/models/'),
        wasmUrl: publicUrl('/ort/ort-wasm-simd-threaded.asyncify.wasm'),
      };
      // The int8 rewrite (made at install, scripts/quantize-int8.mjs) runs 3-4x faster in WASM; the q4 model as
      // shipped is the fallback if it is missing or fails. WebGPU, when the browser has an adapter, is tried first.
      const attempts: { device: 'wasm' | 'webgpu'; dtype: 'q8' | 'q4' }[] = [
        ...(device === 'webgpu' ? [{ device, dtype: 'q8' as const }, { device, dtype: 'q4' as const }] : []),
        { device: 'wasm', dtype: 'q8' },
        { device: 'wasm', dtype: 'q4' },
      ];
      let embedder: Embedder | undefined;
      let lastError: unknown;
      for (const a of attempts) {
        try {
          let shown = -1;
          const onProgress = (f: number) => {
            // Tenths only: each status change re-ranks the open panels.
            if (Math.floor(f * 10) === shown) return;
            shown = Math.floor(f * 10);
            this.set({ state: 'loading', progress: f });
          };
          embedder = await createTransformersEmbedder({ ...opts, ...a, onProgress });
          await embedder.embed(['warm up']);
          break;
        } catch (e) {
          embedder = undefined;
          lastError = e;
        }
      }
      if (!embedder) throw lastError;
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
