import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-web';
import onnxProto from 'onnx-proto';
import { cosine } from '../../lib/embed/embedder';
import { NODE_MODEL_ROOT } from '../../lib/embed/node-embedder';
import { createOrtEmbedder } from '../../lib/embed/ort-embedder';
import { createOrtWebEmbedder } from '../../lib/embed/ort-web-embedder';
import { useLocalModels } from '../../lib/embed/local-models';
import { FLOAT_WEIGHTS_PATH, int8ToFloatGraph } from '../../lib/embed/int8-to-float';

const ONNX_DIR = join(NODE_MODEL_ROOT, 'all-MiniLM-L6-v2', 'onnx');
const SENTENCES = [
  'Remember to send the quarterly report to Alice before Friday.',
  'Kubernetes restarts the pod whenever it exceeds its 512Mi memory limit.',
  'Le rendez-vous avec le client est reporté à mardi prochain.',
  'function debounce(fn, ms) { let t; return (...a) => { clearTimeout(t); t = setTimeout(() => fn(...a), ms); }; }',
  'My daughter is allergic to peanuts, so the birthday party menu must be nut-free.',
  'ok',
];

describe('the WebGPU engine\'s float graph, built from the shipped int8 file', () => {
  const int8 = new Uint8Array(readFileSync(join(ONNX_DIR, 'model_quantized.onnx')));

  it('has no integer kernels left: every quantised product is a float MatMul over the same weights', () => {
    const { model, weights, rewritten } = int8ToFloatGraph(int8);
    const { graph } = onnxProto.onnx.ModelProto.decode(model);
    const ops = graph!.node!.map((n) => n.opType);
    expect(rewritten).toBe(36);
    for (const op of ['MatMulInteger', 'DynamicQuantizeLinear']) expect(ops).not.toContain(op);
    expect(ops.filter((o) => o === 'MatMul')).toHaveLength(36);
    // No int8 weight is left for a kernel the WebGPU runtime lacks.
    expect(graph!.initializer!.filter((t) => t.dataType === onnxProto.onnx.TensorProto.DataType.INT8)).toEqual([]);
    // The word-embedding table (30522 x 384) and the 36 matrices, as float32.
    expect(weights.byteLength).toBeGreaterThan(30522 * 384 * 4);
  });

  it('refuses a model that is not the int8 rewrite', () => {
    expect(() => int8ToFloatGraph(new Uint8Array(readFileSync(join(ONNX_DIR, 'model_q4.onnx'))))).toThrow(/not the int8 model/);
  });

  it('gives the vectors of the 4-bit model it was made from, and agrees with the int8 file on WASM (what the rest of memory is embedded with)', { timeout: 120_000 }, async () => {
    const { model, weights } = int8ToFloatGraph(int8);
    useLocalModels(NODE_MODEL_ROOT);
    const float = await createOrtEmbedder({ ort, model, externalData: [{ path: FLOAT_WEIGHTS_PATH, data: weights }], backend: 'wasm/f32', dtype: 'q8' });
    const q8 = await createOrtWebEmbedder({ modelRoot: NODE_MODEL_ROOT, dtype: 'q8' });
    const q4 = await createOrtWebEmbedder({ modelRoot: NODE_MODEL_ROOT, dtype: 'q4' });
    try {
      const [f, a, b] = [await float.embed(SENTENCES), await q8.embed(SENTENCES), await q4.embed(SENTENCES)];
      const vsInt8 = f.map((v, i) => cosine(v, a[i]));
      const vsQ4 = f.map((v, i) => cosine(v, b[i]));
      // Measured: 0.9989-0.9998 against the q4 file (the float graph is the 4-bit weights requantised to 8 bits, no
      // activation quantisation), 0.972-0.995 against the int8 file on WASM (whose dynamic activation quantisation
      // weighs most on a text as short as 'ok'; test/unit/embed-int8.test.ts measures the same against q4).
      expect(Math.min(...vsQ4)).toBeGreaterThan(0.998);
      expect(Math.min(...vsInt8)).toBeGreaterThan(0.97);
      expect(vsInt8.reduce((s, x) => s + x, 0) / vsInt8.length).toBeGreaterThan(0.985);
    } finally {
      await Promise.all([float.close(), q8.close(), q4.close()]);
    }
  });
});
