import files from './model-files.json';
import { batchingFor, MODEL_ID } from './embedder';
import type { ModelDtype } from './ort-embedder';

const q4 = `${files.sha256['onnx/model_q4.onnx'].slice(0, 8)}${files.sha256['onnx/model_q4.onnx_data'].slice(0, 8)}`;
const q8 = files.int8['onnx/model_quantized.onnx'].slice(0, 16);

/**
 * Names the exact weights a vector was made with: model, variant and a fingerprint of the file (the q4 files'
 * checksums, or the int8 rewrite's pinned checksum), and, for the int8 file, that each text ran alone
 * (`/alone`, batchingFor): its vectors from before were made in batches and depended on their neighbours, so they are
 * embedded again once, and from then on a text has the same vector in every run, import and device. Stored
 * vectors carry it (`Embedder.modelId`); vectors under another tag are never mixed in, and are embedded again.
 */
export function modelTag(dtype: ModelDtype): string {
  return dtype === 'q4' ? `${MODEL_ID}/q4/${q4}` : `${MODEL_ID}/q8/${q8}${batchingFor(dtype) === 'alone' ? '/alone' : ''}`;
}
