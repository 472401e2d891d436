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
  /**
   * Word pieces the model reads of each text ([CLS] and [SEP] included, its window at most), by its own tokenizer:
   * what indexing sorts by, so each batch pads little. Absent where no tokenizer is at hand (then an estimate).
   */
  readonly countPieces?: (texts: string[]) => number[];
}

export const MODEL_ID = 'all-MiniLM-L6-v2';
export const MODEL_DIM = 384;
/**
 * The model's window: every engine (the extension's and the Node embedder of tests and benches) tokenizes with
 * truncation at this many word pieces, [CLS] and [SEP] included, so one text gets the same vector everywhere. Longer
 * items are split into passages that fit it (lib/memory/index/passages.ts).
 */
export const MAX_WORD_PIECES = 256;
/**
 * Before tokenizing, a text is cut to this many characters so one huge paste cannot hold the worker: a word piece
 * spans at most 100 characters (a longer word is one unknown piece), so only a text mostly made of blank runs loses
 * any of its window to the cut. Both engines apply it (`windowText`), so they stay exactly alike.
 */
export const MAX_WINDOW_CHARS = MAX_WORD_PIECES * 100;

/** The text as the engines hand it to the tokenizer (an empty text becomes one space: the model needs a token). */
export function windowText(text: string): string {
  return text.slice(0, MAX_WINDOW_CHARS) || ' ';
}
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

/** `Embedder.countPieces` from the model's tokenizer: each text as the engines hand it over, cut to the window. */
export function pieceCounter(tokenizer: { encode(text: string): number[] }): (texts: string[]) => number[] {
  return (texts) => texts.map((t) => Math.min(MAX_WORD_PIECES, tokenizer.encode(windowText(t)).length));
}

/**
 * How the engines hand texts to the model. `alone`: one text per run, unpadded. `padded`: up to a batch size per run,
 * each padded to the longest.
 */
export type Batching = 'alone' | 'padded';

/**
 * The int8 graph quantises the activations entering each of its matrix products with one scale per run
 * (DynamicQuantizeLinear over the whole input tensor: every text of the batch, padding included), so a text batched
 * with others would get a vector that depends on them, and two runs, imports or devices would rank it differently.
 * It therefore runs each text alone: its vector is a function of the text. Graphs that never share a scale across
 * texts keep their batches: the q4 file (its 4-bit products quantise activations per token, in blocks of 32) and the
 * WebGPU engine's float graph (float activations; batching moves its vectors only by float rounding).
 */
export function batchingFor(dtype: 'q8' | 'q4', floatActivations = false): Batching {
  return dtype === 'q8' && !floatActivations ? 'alone' : 'padded';
}
