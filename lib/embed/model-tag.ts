import files from './model-files.json';
import { MODEL_ID } from './embedder';
import type { ModelDtype } from './ort-embedder';

const q4 = `${files.sha256['onnx/model_q4.onnx'].slice(0, 8)}${files.sha256['onnx/model_q4.onnx_data'].slice(0, 8)}`;

/**
 * Names the exact weights a vector was made with: model, variant and a fingerprint of the file (the q4 files'
 * checksums; for the int8 file, which is rewritten from them at install, the rewrite's version as well). Stored
 * vectors carry it (`Embedder.modelId`); vectors under another tag are never mixed in, and are embedded again.
 */
export function modelTag(dtype: ModelDtype): string {
  return dtype === 'q4' ? `${MODEL_ID}/q4/${q4}` : `${MODEL_ID}/q8/${q4}/${files.int8Rewrite}`;
}
