// Rewrites the bundled all-MiniLM-L6-v2 q4 model (4-bit MatMulNBits, slow in onnxruntime-web's WASM kernels) into an
// int8 model of the same weights that WASM runs several times faster:
//   every MatMulNBits(A, W4, scales)  ->  DynamicQuantizeLinear(A) -> MatMulInteger(A_u8, W_i8) -> Cast -> Mul(scale)
// The 4-bit weights are dequantised exactly (value = (q - 8) * block scale; the model has no zero points) and
// requantised symmetrically per output column to int8. The word-embedding table (30522 x 384 floats, 47 MB: four
// fifths of the file) is stored as int8 per row: Gather(W_i8, ids) -> Cast -> Mul(Gather(row scales, ids)).
// Everything else (other embeddings, layer norms, attention) is copied unchanged. The result is one self-contained
// file at onnx/model_quantized.onnx, the name transformers.js loads for dtype 'q8'. Fidelity against q4 is checked
// in test/unit/embed-int8.test.ts.
//
// Usage: node scripts/quantize-int8.mjs [modelDir]   (default public/models/all-MiniLM-L6-v2)
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync, renameSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as P from './onnx-proto.mjs';

/**
 * The sha256 of the rewrite of the pinned q4 files (lib/embed/model-files.json): the rewrite is deterministic, so
 * any other checksum means the rewrite changed. Update it only together with a change to the rewrite.
 */
export const INT8_SHA256 = JSON.parse(readFileSync(join(dirname(fileURLToPath(import.meta.url)), '..', 'lib', 'embed', 'model-files.json'), 'utf8')).int8['onnx/model_quantized.onnx'];

/** Dequantises a MatMulNBits weight into a row-major float matrix W[k * N + n] (K x N). */
export function dequantizeNBits(packed, scales, zeroPoints, K, N, bits, blockSize) {
  if (bits !== 4) throw new Error(`MatMulNBits with ${bits} bits is not supported`);
  const blocks = Math.ceil(K / blockSize);
  const blob = (blockSize * bits) / 8;
  const W = new Float32Array(K * N);
  const zpBytesPerCol = Math.ceil((blocks * bits) / 8);
  for (let n = 0; n < N; n++) {
    for (let b = 0; b < blocks; b++) {
      const s = scales[n * blocks + b];
      let zp = 8;
      if (zeroPoints) {
        const idx = n * zpBytesPerCol + (b >> 1);
        zp = b & 1 ? zeroPoints[idx] >> 4 : zeroPoints[idx] & 0x0f;
      }
      const base = (n * blocks + b) * blob;
      for (let j = 0; j < blockSize; j++) {
        const k = b * blockSize + j;
        if (k >= K) break;
        const byte = packed[base + (j >> 1)];
        const q = j & 1 ? byte >> 4 : byte & 0x0f;
        W[k * N + n] = (q - zp) * s;
      }
    }
  }
  return W;
}

/** Symmetric per-column int8: W[k,n] ~ q[k,n] * scale[n], q in [-127, 127]. */
export function quantizePerColumn(W, K, N, qmax = 127) {
  const scale = new Float32Array(N);
  for (let n = 0; n < N; n++) {
    let m = 0;
    for (let k = 0; k < K; k++) m = Math.max(m, Math.abs(W[k * N + n]));
    scale[n] = m / qmax || 1;
  }
  const q = new Int8Array(K * N);
  for (let k = 0; k < K; k++)
    for (let n = 0; n < N; n++) q[k * N + n] = Math.max(-qmax, Math.min(qmax, Math.round(W[k * N + n] / scale[n])));
  return { q, scale };
}

/** Symmetric per-row int8 of a rows x cols table: T[r,c] ~ q[r,c] * scale[r]. */
export function quantizePerRow(T, rows, cols, qmax = 127) {
  const q = new Int8Array(rows * cols);
  const scale = new Float32Array(rows);
  for (let r = 0; r < rows; r++) {
    let m = 0;
    for (let c = 0; c < cols; c++) m = Math.max(m, Math.abs(T[r * cols + c]));
    const s = m / qmax || 1;
    scale[r] = s;
    for (let c = 0; c < cols; c++) q[r * cols + c] = Math.max(-qmax, Math.min(qmax, Math.round(T[r * cols + c] / s)));
  }
  return { q, scale };
}

/** The word-embedding lookup: the table a Gather on `input_ids` reads. */
const isWordEmbedding = (node, inits) => node.opType === 'Gather' && node.inputs[1] === 'input_ids' && inits.get(node.inputs[0])?.dims.length === 2;

/** The rewrite itself: bytes of model_q4.onnx and its external data in, bytes of the int8 model out. */
export function rewriteToInt8(modelBytes, externalBytes, opts = {}) {
  const qmax = opts.qmax ?? Number(process.env.INT8_QMAX ?? 127);
  const keepFloat = opts.keepFloat ?? (process.env.INT8_KEEP_FLOAT ? new RegExp(process.env.INT8_KEEP_FLOAT) : null);
  const model = P.decodeModel(modelBytes);
  const graph = model.graph;

  // Initializers by name, all brought inline (the output has no external data).
  const inits = new Map();
  for (const f of graph.initializer) {
    const t = P.readTensor(f, externalBytes);
    inits.set(t.name, t);
  }
  const used = new Set();
  const newInits = [];
  const newNodes = [];
  const quantizedInputs = new Map(); // A -> [A_u8, A_scale, A_zp], shared by q/k/v projections
  let rewritten = 0;

  for (const fields of graph.node) {
    const node = { opType: fields.opType, name: fields.name, inputs: fields.input, outputs: fields.output, attrs: P.attrs(fields) };
    if (isWordEmbedding(node, inits) && inits.get(node.inputs[0]).dataType === P.DType.FLOAT) {
      const table = inits.get(node.inputs[0]);
      const [rows, cols] = table.dims;
      const { q, scale } = quantizePerRow(new Float32Array(new Uint8Array(table.raw).buffer), rows, cols, 127);
      const base = node.name || table.name;
      newInits.push(P.makeTensor(`${table.name}_int8`, P.DType.INT8, [rows, cols], q));
      newInits.push(P.makeTensor(`${table.name}_row_scale`, P.DType.FLOAT, [rows, 1], scale));
      used.add('input_ids');
      newNodes.push(P.makeNode('Gather', [`${table.name}_int8`, 'input_ids'], [`${base}_i8`], `${base}_Int8`));
      newNodes.push(P.makeNode('Cast', [`${base}_i8`], [`${base}_f32`], `${base}_Cast`, [P.intAttr('to', P.DType.FLOAT)]));
      newNodes.push(P.makeNode('Gather', [`${table.name}_row_scale`, 'input_ids'], [`${base}_scale`], `${base}_Scale`));
      newNodes.push(P.makeNode('Mul', [`${base}_f32`, `${base}_scale`], node.outputs, `${base}_Mul`));
      continue;
    }
    if (node.opType !== 'MatMulNBits') {
      for (const i of node.inputs) used.add(i);
      newNodes.push(fields);
      continue;
    }
    const [A, Bname, Sname, ZPname, gIdx, bias] = node.inputs;
    if (gIdx || bias) throw new Error(`MatMulNBits ${node.name}: g_idx/bias inputs are not supported`);
    const K = node.attrs.get('K');
    const N = node.attrs.get('N');
    const B = inits.get(Bname);
    const S = inits.get(Sname);
    const ZP = ZPname ? inits.get(ZPname) : undefined;
    if (!B || !S) throw new Error(`MatMulNBits ${node.name}: weights are not initializers`);
    const scales = new Float32Array(new Uint8Array(S.raw).buffer); // a copy: Buffer.slice would be a view
    const W = dequantizeNBits(B.raw, scales, ZP?.raw, K, N, node.attrs.get('bits'), node.attrs.get('block_size'));
    const base = node.name || Bname;
    if (keepFloat?.test(base)) {
      const wName = `${base}.weight_f32`;
      newInits.push(P.makeTensor(wName, P.DType.FLOAT, [K, N], W));
      used.add(A);
      newNodes.push(P.makeNode('MatMul', [A, wName], node.outputs, `${base}_MatMul`));
      rewritten++;
      continue;
    }
    const { q, scale } = quantizePerColumn(W, K, N, qmax);
    const wName = `${base}.weight_int8`;
    const sName = `${base}.weight_scale`;
    newInits.push(P.makeTensor(wName, P.DType.INT8, [K, N], q));
    newInits.push(P.makeTensor(sName, P.DType.FLOAT, [N], scale));

    let qa = quantizedInputs.get(A);
    if (!qa) {
      qa = [`${A}_u8`, `${A}_scale`, `${A}_zp`];
      quantizedInputs.set(A, qa);
      used.add(A);
      newNodes.push(P.makeNode('DynamicQuantizeLinear', [A], qa, `${A}_DynamicQuantizeLinear`));
    }
    const Y = node.outputs[0];
    newNodes.push(P.makeNode('MatMulInteger', [qa[0], wName, qa[2]], [`${base}_i32`], `${base}_MatMulInteger`));
    newNodes.push(P.makeNode('Cast', [`${base}_i32`], [`${base}_f32`], `${base}_Cast`, [P.intAttr('to', P.DType.FLOAT)]));
    newNodes.push(P.makeNode('Mul', [qa[1], sName], [`${base}_scale`], `${base}_ScaleMul`));
    newNodes.push(P.makeNode('Mul', [`${base}_f32`, `${base}_scale`], [Y], `${base}_Mul`));
    rewritten++;
  }
  if (!rewritten) throw new Error('no MatMulNBits nodes found: not the expected q4 model');

  // The graph's other fields stay; nodes and initializers are replaced (the 4-bit weights and their scales go).
  graph.node = newNodes;
  graph.initializer = [
    ...[...inits.values()].filter((t) => used.has(t.name)).map((t) => P.makeTensor(t.name, t.dataType, t.dims, t.raw)),
    ...newInits,
  ];
  return { bytes: P.encodeModel(model), rewritten };
}

/**
 * Writes onnx/model_quantized.onnx from the q4 files in `modelDir`. With `sha256`, output of any other checksum is
 * refused and the file already there is left as it was.
 */
export function writeInt8Model(modelDir, opts = {}) {
  const onnxDir = join(modelDir, 'onnx');
  const { bytes, rewritten } = rewriteToInt8(
    readFileSync(join(onnxDir, 'model_q4.onnx')),
    readFileSync(join(onnxDir, 'model_q4.onnx_data')),
  );
  const target = join(onnxDir, 'model_quantized.onnx');
  const sum = createHash('sha256').update(bytes).digest('hex');
  if (opts.sha256 && sum !== opts.sha256) throw new Error(`int8 model: the rewrite gave sha256 ${sum}, expected ${opts.sha256}; nothing was written`);
  writeFileSync(target + '.tmp', bytes);
  renameSync(target + '.tmp', target); // never leave a half-written model where the loader looks
  return { target, rewritten, bytes: bytes.length, sha256: sum };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const dir = process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..', 'public', 'models', 'all-MiniLM-L6-v2');
  const t0 = performance.now();
  const r = writeInt8Model(dir);
  console.log(`int8 model: ${r.rewritten} MatMulNBits rewritten, ${(r.bytes / 1e6).toFixed(1)} MB at ${r.target}, sha256 ${r.sha256} (${Math.round(performance.now() - t0)} ms)`);
}
