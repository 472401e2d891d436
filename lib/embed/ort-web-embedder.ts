import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as ort from 'onnxruntime-web';
import { AutoTokenizer, env } from '@huggingface/transformers';
import { MAX_EMBED_CHARS, MODEL_DIM, MODEL_ID, type Embedder } from './embedder';

export type ModelDtype = 'q8' | 'q4';

export interface OrtWebEmbedderOptions {
  /** Folder holding `all-MiniLM-L6-v2/` (a path: this embedder runs in Node). */
  modelRoot: string;
  /** 'q8' = onnx/model_quantized.onnx (the int8 rewrite), 'q4' = onnx/model_q4.onnx + .onnx_data (as shipped). */
  dtype: ModelDtype;
  /** WASM threads; 1 is what the extension's service worker gets. */
  threads?: number;
  batchSize?: number;
}

/** Model file names inside `all-MiniLM-L6-v2/onnx/` per dtype (the names transformers.js uses). */
export const MODEL_FILES: Record<ModelDtype, { model: string; data?: string }> = {
  q8: { model: 'model_quantized.onnx' },
  q4: { model: 'model_q4.onnx', data: 'model_q4.onnx_data' },
};

/**
 * all-MiniLM-L6-v2 on onnxruntime-web's WASM backend in Node, with transformers.js's tokenizer and the same mean
 * pooling + normalisation as the pipeline. The extension's service worker runs this same WASM runtime; this path
 * lets the bench and the fidelity test measure it without a browser (onnxruntime-node would be 5-10x faster than
 * what users get, so it is the wrong yardstick).
 */
export async function createOrtWebEmbedder(opts: OrtWebEmbedderOptions): Promise<Embedder & { dtype: ModelDtype; close(): Promise<void> }> {
  ort.env.wasm.numThreads = opts.threads ?? 1;
  ort.env.wasm.proxy = false;
  ort.env.logLevel = 'error';
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  env.localModelPath = opts.modelRoot.endsWith('/') ? opts.modelRoot : opts.modelRoot + '/';
  const tokenizer = await AutoTokenizer.from_pretrained(MODEL_ID);
  const dir = join(opts.modelRoot, MODEL_ID, 'onnx');
  const files = MODEL_FILES[opts.dtype];
  const model = new Uint8Array(await readFile(join(dir, files.model)));
  const externalData = files.data ? [{ path: files.data, data: new Uint8Array(await readFile(join(dir, files.data))) }] : undefined;
  const session = await ort.InferenceSession.create(model, {
    executionProviders: ['wasm'],
    graphOptimizationLevel: 'all',
    ...(externalData ? { externalData } : {}),
  });
  const wantsTypeIds = session.inputNames.includes('token_type_ids');
  const batchSize = opts.batchSize ?? 16;

  async function embedBatch(texts: string[]): Promise<Float32Array[]> {
    const enc = tokenizer(texts, { padding: true, truncation: true, max_length: 256 }) as unknown as Record<string, { data: BigInt64Array; dims: number[] }>;
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
    modelId: MODEL_ID,
    dim: MODEL_DIM,
    backend: `wasm-${opts.threads ?? 1}t`,
    dtype: opts.dtype,
    async embed(texts: string[]): Promise<Float32Array[]> {
      const out: Float32Array[] = [];
      for (let i = 0; i < texts.length; i += batchSize)
        out.push(...(await embedBatch(texts.slice(i, i + batchSize).map((t) => t.slice(0, MAX_EMBED_CHARS) || ' '))));
      return out;
    },
    close: () => session.release(),
  };
}
