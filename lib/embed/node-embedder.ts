import { fileURLToPath } from 'node:url';
import { join, dirname } from 'node:path';
import { createTransformersEmbedder } from './transformers-embedder';
import type { Embedder } from './embedder';

/** The bundled model as tests and benchmarks load it in Node (onnxruntime-node). */
export const NODE_MODEL_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'public', 'models');

let shared: Promise<Embedder> | undefined;
export function nodeEmbedder(): Promise<Embedder> {
  shared ??= createTransformersEmbedder({ modelRoot: NODE_MODEL_ROOT });
  return shared;
}
