import type * as ort from 'onnxruntime-web';
import { AutoTokenizer } from '@huggingface/transformers';
import { batchingFor, MAX_WORD_PIECES, MODEL_DIM, MODEL_ID, pieceCounter, windowText, type Batching, type Embedder } from './embedder';
import { modelTag } from './model-tag';

export type ModelDtype = 'q8' | 'q4';

/** Model file names inside `all-MiniLM-L6-v2/onnx/` per dtype (the names transformers.js uses). */
export const MODEL_FILES: Record<ModelDtype, { model: string; data?: string }> = {
  q8: { model: 'model_quantized.onnx' },
  q4: { model: 'model_q4.onnx', data: 'model_q4.onnx_data' },
};

/** The onnxruntime-web module: Node's build, or the browser bundle transformers.js also uses. */
export type OrtModule = Pick<typeof ort, 'InferenceSession' | 'Tensor'>;

/**
 * The model as one onnxruntime-web session, without transformers.js's pipeline: its tokenizer, then the session, then
 * mean pooling over the attention mask and normalisation (what the pipeline's `pooling: 'mean', normalize: true`
 * does). `ort` is the onnxruntime-web build of the caller (Node's, or the browser bundle transformers.js also uses):
 * the offscreen engines and the Node bench run this same code, so the bench's figure is the engines' own.
 */
export async function createOrtEmbedder(opts: {
  ort: OrtModule;
  model: Uint8Array;
  externalData?: { path: string; data: Uint8Array }[];
  /** Texts per run where the graph is run in batches (`batching` 'padded'). */
  batchSize?: number;
  /**
   * 'alone' (one text per run) for the int8 graph, whose activation scale spans the whole run (batchingFor); a float
   * graph (the WebGPU engine's) may pass 'padded'. Benches pass 'padded' only to measure what batching would cost.
   */
  batching?: Batching;
  backend: string;
  /** Which file `model` is: names the vectors (Embedder.modelId). */
  dtype: ModelDtype;
  /** Where the session runs: the WASM kernels (default) or the WebGPU ones (the WebGPU runtime build only). */
  executionProviders?: ('wasm' | 'webgpu')[];
}): Promise<Embedder & { close(): Promise<void> }> {
  const ort = opts.ort;
  const tokenizer = await AutoTokenizer.from_pretrained(MODEL_ID);
  const session = await ort.InferenceSession.create(opts.model, {
    executionProviders: opts.executionProviders ?? ['wasm'],
    graphOptimizationLevel: 'all',
    ...(opts.externalData ? { externalData: opts.externalData } : {}),
  });
  const wantsTypeIds = session.inputNames.includes('token_type_ids');
  const batching = opts.batching ?? batchingFor(opts.dtype);
  const batchSize = batching === 'alone' ? 1 : (opts.batchSize ?? 16);

  async function embedBatch(texts: string[]): Promise<Float32Array[]> {
    const enc = tokenizer(texts, { padding: true, truncation: true, max_length: MAX_WORD_PIECES }) as unknown as Record<string, { data: BigInt64Array; dims: number[] }>;
    const ids = enc.input_ids;
    const mask = enc.attention_mask;
    const [b, n] = ids.dims;
    const feeds: Record<string, ort.Tensor> = {
      input_ids: new ort.Tensor('int64', ids.data, [b, n]),
      attention_mask: new ort.Tensor('int64', mask.data, [b, n]),
    };
    if (wantsTypeIds) feeds.token_type_ids = new ort.Tensor('int64', new BigInt64Array(b * n), [b, n]);
    const out = await session.run(feeds);
    const hidden = out[session.outputNames[0]];
    const h = hidden.data as Float32Array;
    const dim = hidden.dims[2] as number;
    const vecs: Float32Array[] = [];
    for (let i = 0; i < b; i++) {
      const v = new Float32Array(dim);
      let count = 0;
      for (let t = 0; t < n; t++) {
        if (mask.data[i * n + t] === 0n) continue;
        count++;
        const off = (i * n + t) * dim;
        for (let d = 0; d < dim; d++) v[d] += h[off + d];
      }
      let norm = 0;
      for (let d = 0; d < dim; d++) norm += (v[d] /= count || 1) * v[d];
      norm = Math.sqrt(norm) || 1;
      for (let d = 0; d < dim; d++) v[d] /= norm;
      vecs.push(v);
    }
    hidden.dispose?.();
    return vecs;
  }

  return {
    countPieces: pieceCounter(tokenizer),
    modelId: modelTag(opts.dtype),
    dim: MODEL_DIM,
    backend: opts.backend,
    async embed(texts: string[]): Promise<Float32Array[]> {
      const out: Float32Array[] = [];
      for (let i = 0; i < texts.length; i += batchSize)
        out.push(...(await embedBatch(texts.slice(i, i + batchSize).map(windowText))));
      return out;
    },
    close: () => session.release(),
  };
}
