import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join, dirname } from 'node:path';
import { createTransformersEmbedder } from './transformers-embedder';
import { batchingFor, MAX_WORD_PIECES, MODEL_ID, type Embedder } from './embedder';
import { MODEL_FILES, type ModelDtype } from './ort-embedder';

/** The bundled model as tests and benchmarks load it in Node (onnxruntime-node). */
export const NODE_MODEL_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'public', 'models');

const shared = new Map<ModelDtype, Promise<Embedder>>();
/** transformers.js's pipeline on onnxruntime-node; q4 unless asked (the extension ships and runs only q8, the int8 file). */
export function nodeEmbedder(dtype: ModelDtype = 'q4'): Promise<Embedder> {
  if (!shared.has(dtype)) shared.set(dtype, createTransformersEmbedder({ modelRoot: NODE_MODEL_ROOT, dtype }));
  return shared.get(dtype)!;
}

/**
 * Names the exact weights (model, variant, a hash of the file), the window the engines read and, for the int8 file,
 * that each text ran alone (batchingFor: vectors cached from batched runs depended on their batch), so cached
 * vectors never outlive a model change or a change of what the model is shown.
 */
export function nodeModelKey(dtype: ModelDtype): string {
  const file = join(NODE_MODEL_ROOT, MODEL_ID, 'onnx', MODEL_FILES[dtype].data ?? MODEL_FILES[dtype].model);
  const alone = batchingFor(dtype) === 'alone' ? '-alone' : '';
  return `${MODEL_ID}-${dtype}-${createHash('sha256').update(readFileSync(file)).digest('hex').slice(0, 12)}-w${MAX_WORD_PIECES}${alone}`;
}
