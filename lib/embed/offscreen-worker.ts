/// <reference lib="webworker" />
// One embedding engine in a dedicated Worker of the offscreen document: the int8 model on one WASM thread. The
// document runs one per core and splits each batch between them.
import * as ort from 'onnxruntime-web/wasm';
import { MODEL_ID, type Embedder } from './embedder';
import { createOrtEmbedder, MODEL_FILES } from './ort-embedder';
import { engineRuntimeBytes } from './engine-pool';
import { useLocalModels } from './local-models';

export type EngineRequest = {
  id: number;
  texts: string[];
  modelRoot: string;
  wasmUrl: string;
  /** Which engine this is: its runtime copy's bytes are made distinct with it (see engineRuntimeBytes). */
  engine: number;
};
export type EngineReply = { id: number; vectors: Float32Array[]; backend: string } | { id: number; error: string };

let engine: Promise<Embedder> | undefined;
let patched = false;
// One request at a time: the document hands an engine its next share once it answered the last (engine-pool.ts), and one
// model session must not run two batches at once.
let queue: Promise<void> = Promise.resolve();

/**
 * onnxruntime instantiates its WebAssembly from the URL it is given (instantiateStreaming); for that URL this compiles
 * the same bytes plus a section naming the engine, so V8 compiles a module for this engine alone.
 */
function useOwnRuntime(wasmUrl: string, engine: number): void {
  const streaming = WebAssembly.instantiateStreaming.bind(WebAssembly);
  WebAssembly.instantiateStreaming = async (source, imports) => {
    const response = await source;
    if (response.url !== wasmUrl) return streaming(response, imports);
    return WebAssembly.instantiate(engineRuntimeBytes(new Uint8Array(await response.arrayBuffer()), engine), imports);
  };
}

/** The int8 model in one onnxruntime-web session with transformers.js's tokenizer, files from the extension. */
async function createEngine(modelRoot: string, wasmUrl: string): Promise<Embedder> {
  useLocalModels(modelRoot);
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.proxy = false;
  ort.env.wasm.wasmPaths = { wasm: wasmUrl };
  const res = await fetch(`${modelRoot}${MODEL_ID}/onnx/${MODEL_FILES.q8.model}`);
  if (!res.ok) throw new Error(`model file: HTTP ${res.status}`);
  return createOrtEmbedder({ ort, model: new Uint8Array(await res.arrayBuffer()), backend: 'wasm/q8', dtype: 'q8' });
}

async function handle({ id, texts, modelRoot, wasmUrl, engine: index }: EngineRequest): Promise<void> {
  try {
    if (!engine) {
      if (!patched) {
        useOwnRuntime(wasmUrl, index);
        patched = true;
      }
      engine = createEngine(modelRoot, wasmUrl).catch((err) => {
        engine = undefined; // the next request tries again
        throw err;
      });
    }
    const embedder = await engine;
    const vectors = await embedder.embed(texts);
    const reply: EngineReply = { id, vectors, backend: embedder.backend };
    (self as unknown as Worker).postMessage(reply, vectors.map((v) => v.buffer as ArrayBuffer));
  } catch (err) {
    (self as unknown as Worker).postMessage({ id, error: err instanceof Error ? err.message : String(err) } satisfies EngineReply);
  }
}

self.onmessage = (e: MessageEvent<EngineRequest>) => {
  queue = queue.then(() => handle(e.data));
};
