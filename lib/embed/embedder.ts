/** Turns texts into unit-length vectors. The extension and Node share this interface. */
export interface Embedder {
  readonly modelId: string;
  readonly dim: number;
  /** Which runtime actually runs the model, e.g. 'wasm', 'webgpu', 'node'. */
  readonly backend: string;
  embed(texts: string[]): Promise<Float32Array[]>;
  /**
   * How many embed calls are worth keeping outstanding at once (engines that queue work on threads of their own);
   * absent means one: the next call waits for the last.
   */
  readonly parallel?: number;
  /** Told how many texts an indexing run holds before its first batch (engines that pick a backend by the work). */
  runSize?(texts: number): void;
}

export const MODEL_ID = 'all-MiniLM-L6-v2';
export const MODEL_DIM = 384;
/** Texts are cut to this many characters before embedding; the model sees at most 256 word pieces anyway. */
export const MAX_EMBED_CHARS = 2000;
/**
 * Extension path of onnxruntime's WASM-only .wasm (copied by scripts/install-assets.mjs). It must match the runtime
 * code bundled (wxt.config.ts aliases transformers.js's WebGPU build to this one).
 */
export const ORT_WASM_PATH = '/ort/ort-wasm-simd-threaded.wasm';
/** The WebGPU runtime's .wasm (JSPI build), loaded only by the offscreen document's WebGPU engine. */
export const ORT_WEBGPU_WASM_PATH = '/ort/ort-wasm-simd-threaded.jspi.wasm';

export function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i] * b[i];
  return dot; // both are normalised
}
