import { env, mean_pooling, pipeline, type FeatureExtractionPipeline, type Tensor } from '@huggingface/transformers';
import { batchingFor, MAX_WORD_PIECES, MODEL_DIM, MODEL_ID, pieceCounter, windowText, type Batching, type Embedder } from './embedder';
import { useLocalModels } from './local-models';
import { modelTag } from './model-tag';

export interface TransformersEmbedderOptions {
  /** Folder (path in Node, URL in the extension) holding `all-MiniLM-L6-v2/`. */
  modelRoot: string;
  /** URL of the bundled ort-wasm .wasm file (browser only); without it the runtime would reach for a CDN. */
  wasmUrl?: string;
  device?: 'wasm' | 'webgpu' | 'cpu';
  batchSize?: number;
  /** Loading progress of the model files, 0 to 1 (for the panel's first-run progress bar). */
  onProgress?: (fraction: number) => void;
  /**
   * 'q8' = onnx/model_quantized.onnx, the int8 rewrite made at install (scripts/quantize-int8.mjs), faster in
   * WASM; 'q4' = the model as shipped (default).
   */
  dtype?: 'q8' | 'q4';
  /** 'alone' for the int8 file (its activation scale spans the whole run: batchingFor); benches may measure 'padded'. */
  batching?: Batching;
}

/** all-MiniLM-L6-v2 (q4 or its int8 rewrite) through transformers.js, with every remote fetch switched off. */
export async function createTransformersEmbedder(opts: TransformersEmbedderOptions): Promise<Embedder> {
  useLocalModels(opts.modelRoot);
  const onnx = env.backends.onnx;
  if (opts.wasmUrl && onnx?.wasm) {
    // Service workers cannot start the threads' Workers: one thread (the offscreen engines run one each as well).
    onnx.wasm.numThreads = 1;
    onnx.wasm.proxy = false;
    onnx.wasm.wasmPaths = { wasm: opts.wasmUrl };
  }
  const extractor = (await pipeline('feature-extraction', MODEL_ID, {
    dtype: opts.dtype ?? 'q4',
    ...(opts.device ? { device: opts.device } : {}),
    ...(opts.onProgress
      ? {
          progress_callback: (p: { status: string; progress?: number }) => {
            if (p.status === 'progress_total' && typeof p.progress === 'number') opts.onProgress!(Math.min(1, p.progress / 100));
          },
        }
      : {}),
  })) as FeatureExtractionPipeline;
  const batching = opts.batching ?? batchingFor(opts.dtype ?? 'q4');
  const batchSize = batching === 'alone' ? 1 : (opts.batchSize ?? 16);
  const tokenizer = extractor.tokenizer;
  return {
    countPieces: pieceCounter(tokenizer),
    modelId: modelTag(opts.dtype ?? 'q4'),
    dim: MODEL_DIM,
    backend: `${opts.device ?? 'node'}/${opts.dtype ?? 'q4'}`,
    async embed(texts: string[]): Promise<Float32Array[]> {
      const out: Float32Array[] = [];
      for (let i = 0; i < texts.length; i += batchSize) {
        const batch = texts.slice(i, i + batchSize).map(windowText);
        // The pipeline's own call truncates at the tokenizer's 512: tokenized here with the window every engine uses
        // (createOrtEmbedder's), then the pipeline's model, mean pooling and normalisation.
        const inputs = extractor.tokenizer(batch, { padding: true, truncation: true, max_length: MAX_WORD_PIECES });
        const hidden = ((await extractor.model(inputs)) as { last_hidden_state: Tensor }).last_hidden_state;
        const tensor = mean_pooling(hidden, inputs.attention_mask as Tensor).normalize(2, -1);
        const data = tensor.data as Float32Array;
        for (let j = 0; j < batch.length; j++) out.push(data.slice(j * MODEL_DIM, (j + 1) * MODEL_DIM));
      }
      return out;
    },
  };
}
