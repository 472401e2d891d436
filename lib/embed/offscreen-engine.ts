import { browser } from 'wxt/browser';
import { serveOffscreen } from '../messaging/rpc';
import type { Embedder } from './embedder';
import { packVectors } from './offscreen-wire';
import { createTransformersEmbedder } from './transformers-embedder';

/** WASM threads in the offscreen document: the machines this targets have two cores, and the worker needs little. */
export const OFFSCREEN_THREADS = Number((globalThis as { __threads?: number }).__threads ?? 2);

/**
 * The offscreen document's side: an embedding engine and nothing else. It loads the int8 model on two WASM threads
 * (the page is cross-origin isolated, so SharedArrayBuffer exists) from the extension's own files, and answers the
 * service worker's `offscreen:embed`. It holds no memory: the worker owns IndexedDB and decides what to embed.
 */
export function serveOffscreenEngine(): void {
  let engine: Promise<Embedder> | undefined;
  const url = (p: string) => (browser.runtime.getURL as (p: string) => string)(p);
  const load = () =>
    createTransformersEmbedder({
      modelRoot: url('/models/'),
      wasmUrl: url('/ort/ort-wasm-simd-threaded.asyncify.wasm'),
      // Without the glue's own URL the threaded runtime cannot start its Workers once bundled, and loading hangs.
      mjsUrl: url('/ort/ort-wasm-simd-threaded.asyncify.mjs'),
      threads: OFFSCREEN_THREADS,
      device: 'wasm',
      dtype: 'q8',
      sessionOptions: { extra: { session: { intra_op: { allow_spinning: (globalThis as { __spin?: string }).__spin ?? '0' } } } },
    });
  serveOffscreen({
    'offscreen:embed': async ({ texts }) => {
      if (!crossOriginIsolated) throw new Error('the offscreen document is not cross-origin isolated: no WASM threads');
      engine ??= load().catch((e) => {
        engine = undefined; // the next request tries again
        throw e;
      });
      const e = await engine;
      const t0 = performance.now();
      const vectors = await e.embed(texts);
      const ms = performance.now() - t0;
      return { vectors: packVectors(vectors, e.dim), count: vectors.length, dim: e.dim, backend: `offscreen/${e.backend}`, ms };
    },
  });
}
