import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as ort from 'onnxruntime-web';
import { MODEL_ID, type Batching, type Embedder } from './embedder';
import { useLocalModels } from './local-models';
import { createOrtEmbedder, MODEL_FILES, type ModelDtype } from './ort-embedder';

export { MODEL_FILES, type ModelDtype };

export interface OrtWebEmbedderOptions {
  /** Folder holding `all-MiniLM-L6-v2/` (a path: this embedder runs in Node). */
  modelRoot: string;
  /** 'q8' = onnx/model_quantized.onnx (the int8 rewrite), 'q4' = onnx/model_q4.onnx + .onnx_data (as shipped). */
  dtype: ModelDtype;
  /** WASM threads; 1 is what the extension's service worker gets. */
  threads?: number;
  batchSize?: number;
  /** Default: batchingFor(dtype), as the extension runs it; 'padded' only to measure what batching the int8 file costs. */
  batching?: Batching;
  /** The runtime's WebAssembly bytes, for engines that each need a module of their own (engineRuntimeBytes). */
  wasmBinary?: Uint8Array;
}

/**
 * all-MiniLM-L6-v2 on onnxruntime-web's WASM backend in Node, with transformers.js's tokenizer and the same mean
 * pooling + normalisation as the pipeline. The extension's offscreen engines run this same code (createOrtEmbedder)
 * on the same WASM runtime; this path lets the bench and the fidelity test measure it without a browser
 * (onnxruntime-node is much faster than what users get, so it is the wrong yardstick).
 */
export async function createOrtWebEmbedder(opts: OrtWebEmbedderOptions): Promise<Embedder & { dtype: ModelDtype; close(): Promise<void> }> {
  ort.env.wasm.numThreads = opts.threads ?? 1;
  ort.env.wasm.proxy = false;
  ort.env.logLevel = 'error';
  if (opts.wasmBinary) ort.env.wasm.wasmBinary = opts.wasmBinary;
  useLocalModels(opts.modelRoot);
  const dir = join(opts.modelRoot, MODEL_ID, 'onnx');
  const files = MODEL_FILES[opts.dtype];
  const model = new Uint8Array(await readFile(join(dir, files.model)));
  const externalData = files.data ? [{ path: files.data, data: new Uint8Array(await readFile(join(dir, files.data))) }] : undefined;
  const e = await createOrtEmbedder({ ort, model, externalData, batchSize: opts.batchSize, batching: opts.batching, backend: `wasm-${opts.threads ?? 1}t`, dtype: opts.dtype });
  return { ...e, dtype: opts.dtype };
}
