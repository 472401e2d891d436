/// <reference lib="webworker" />
// One embedding engine in a dedicated Worker of the offscreen document: the int8 model on one WASM thread, exactly
// as the service worker runs it. The document runs one per core and splits each batch between them.
import type { Embedder } from './embedder';
import { createTransformersEmbedder } from './transformers-embedder';

export type EngineRequest = { id: number; texts: string[]; modelRoot: string; wasmUrl: string };
export type EngineReply = { id: number; vectors: Float32Array[]; backend: string } | { id: number; error: string };

let engine: Promise<Embedder> | undefined;

self.onmessage = async (e: MessageEvent<EngineRequest>) => {
  const { id, texts, modelRoot, wasmUrl } = e.data;
  try {
    engine ??= createTransformersEmbedder({ modelRoot, wasmUrl, device: 'wasm', dtype: 'q8' }).catch((err) => {
      engine = undefined; // the next request tries again
      throw err;
    });
    const embedder = await engine;
    const vectors = await embedder.embed(texts);
    const reply: EngineReply = { id, vectors, backend: embedder.backend };
    (self as unknown as Worker).postMessage(reply, vectors.map((v) => v.buffer as ArrayBuffer));
  } catch (err) {
    (self as unknown as Worker).postMessage({ id, error: err instanceof Error ? err.message : String(err) } satisfies EngineReply);
  }
};
