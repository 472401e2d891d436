/// <reference lib="webworker" />
// One embedding engine in a dedicated Worker of the offscreen document: the int8 model on one WASM thread, exactly
// as the service worker runs it. The document runs one per core and splits each batch between them.
import type { Embedder } from './embedder';
import { createTransformersEmbedder } from './transformers-embedder';

export type EngineRequest = {
  id: number;
  texts: string[];
  modelRoot: string;
  wasmUrl: string;
  /** The runtime's WebAssembly, compiled once by the document for all its engines (see offscreen-engine.ts). */
  runtime?: WebAssembly.Module;
};
export type EngineReply = { id: number; vectors: Float32Array[]; backend: string } | { id: number; error: string };

let engine: Promise<Embedder> | undefined;
let shared: WebAssembly.Module | undefined;
/** True once onnxruntime runs on the shared module (the engine's backend name says so). */
let usedShared = false;
// One request at a time: the document keeps the next batch queued here while the last one is being stored, and one
// model session must not run two batches at once.
let queue: Promise<void> = Promise.resolve();

/**
 * onnxruntime instantiates its WebAssembly from the URL it is given (instantiateStreaming); this hands it the
 * document's shared module for that URL instead of compiling a copy of its own.
 */
function useSharedRuntime(wasmUrl: string, runtime: WebAssembly.Module): void {
  const streaming = WebAssembly.instantiateStreaming.bind(WebAssembly);
  WebAssembly.instantiateStreaming = async (source, imports) => {
    const response = await source;
    if (response.url !== wasmUrl) return streaming(response, imports);
    void response.body?.cancel().catch(() => undefined);
    usedShared = true;
    return { module: runtime, instance: await WebAssembly.instantiate(runtime, imports) };
  };
}

async function handle({ id, texts, modelRoot, wasmUrl, runtime }: EngineRequest): Promise<void> {
  try {
    if (!engine) {
      if (runtime && !shared) useSharedRuntime(wasmUrl, (shared = runtime));
      engine = createTransformersEmbedder({ modelRoot, wasmUrl, device: 'wasm', dtype: 'q8' }).catch((err) => {
        engine = undefined; // the next request tries again
        throw err;
      });
    }
    const embedder = await engine;
    const vectors = await embedder.embed(texts);
    const reply: EngineReply = { id, vectors, backend: `${embedder.backend}${usedShared ? '/shared' : ''}` };
    (self as unknown as Worker).postMessage(reply, vectors.map((v) => v.buffer as ArrayBuffer));
  } catch (err) {
    (self as unknown as Worker).postMessage({ id, error: err instanceof Error ? err.message : String(err) } satisfies EngineReply);
  }
}

self.onmessage = (e: MessageEvent<EngineRequest>) => {
  queue = queue.then(() => handle(e.data));
};
