import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { cosine } from '../../lib/embed/embedder';
import { NODE_MODEL_ROOT } from '../../lib/embed/node-embedder';
import { createOrtWebEmbedder } from '../../lib/embed/ort-web-embedder';
// @ts-expect-error plain ESM script without types
import * as P from '../../scripts/onnx-proto.mjs';
// @ts-expect-error plain ESM script without types
import { dequantizeNBits, INT8_SHA256, quantizePerColumn, quantizePerRow, rewriteToInt8 } from '../../scripts/quantize-int8.mjs';

const ONNX_DIR = join(NODE_MODEL_ROOT, 'all-MiniLM-L6-v2', 'onnx');

/** Varied on purpose: short and long, names, code, numbers, non-English, questions, instructions. */
const SENTENCES = [
  'Remember to send the quarterly report to Alice before Friday.',
  'What did we decide about the hiring budget for next quarter?',
  'Kubernetes restarts the pod whenever it exceeds its 512Mi memory limit.',
  'I prefer short answers without bullet points, please.',
  'Meeting notes: budget approved, hiring freeze lifted in Q3, Bob owns the roadmap.',
  'function debounce(fn, ms) { let t; return (...a) => { clearTimeout(t); t = setTimeout(() => fn(...a), ms); }; }',
  'Le rendez-vous avec le client est reporté à mardi prochain.',
  'Invoice #4471 for 2,350.00 EUR is due on 2024-03-31; pay by bank transfer to the usual account.',
  'My daughter is allergic to peanuts, so the birthday party menu must be nut-free.',
  'The flaky test fails only on CI because the timezone there is UTC rather than Europe/Berlin.',
  'Always write commit messages in the imperative mood and keep the first line under 72 characters. '.repeat(3),
];

/** One or two words: little context, so activation quantisation weighs more; measured 0.97-0.99 here. */
const SHORT = ['ok', 'Tuesday', 'Call mom', 'hello world'];

describe('ONNX protobuf codec', () => {
  it('decodes the q4 graph and encodes it back to the same model', () => {
    const bytes = readFileSync(join(ONNX_DIR, 'model_q4.onnx'));
    const model = P.decodeModel(bytes);
    expect(model.graph.node.filter((n: { opType: string }) => n.opType === 'MatMulNBits')).toHaveLength(36);
    expect(P.onnx.ModelProto.toObject(P.decodeModel(P.encodeModel(model)))).toEqual(P.onnx.ModelProto.toObject(model));
  });

  it('rewrites the pinned q4 model to exactly the pinned int8 file', () => {
    const { bytes, rewritten } = rewriteToInt8(readFileSync(join(ONNX_DIR, 'model_q4.onnx')), readFileSync(join(ONNX_DIR, 'model_q4.onnx_data')));
    expect(rewritten).toBe(36);
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(INT8_SHA256);
  });
});

describe('int8 requantisation', () => {
  it('dequantises 4-bit blocks and requantises per column within half a step', () => {
    const K = 64, N = 3, block = 32;
    const packed = new Uint8Array(N * 2 * 16);
    for (let i = 0; i < packed.length; i++) packed[i] = (i * 37 + 11) & 0xff;
    const scales = Float32Array.from({ length: N * 2 }, (_, i) => 0.01 * (i + 1));
    const W = dequantizeNBits(packed, scales, undefined, K, N, 4, block);
    // First element: low nibble of byte 0 is 11, zero point 8, scale 0.01.
    expect(W[0]).toBeCloseTo((11 - 8) * 0.01, 6);
    const { q, scale } = quantizePerColumn(W, K, N);
    for (let k = 0; k < K; k++)
      for (let n = 0; n < N; n++) expect(Math.abs(q[k * N + n] * scale[n] - W[k * N + n])).toBeLessThanOrEqual(scale[n] / 2 + 1e-7);
  });

  it('stores a table per row within half a step, each row at its own scale', () => {
    const rows = 3, cols = 5;
    const T = Float32Array.from({ length: rows * cols }, (_, i) => Math.sin(i) * 10 ** (Math.floor(i / cols) - 1));
    const { q, scale } = quantizePerRow(T, rows, cols);
    expect(scale[2] / scale[0]).toBeGreaterThan(50); // rows a hundred times apart in size keep their own precision
    for (let r = 0; r < rows; r++)
      for (let c = 0; c < cols; c++) expect(Math.abs(q[r * cols + c] * scale[r] - T[r * cols + c])).toBeLessThanOrEqual(scale[r] / 2 + 1e-7);
  });

  it.skipIf(!existsSync(join(ONNX_DIR, 'model_quantized.onnx')))('ships the word-embedding table as int8: the model is under 25 MB, not 59', () => {
    const bytes = readFileSync(join(ONNX_DIR, 'model_quantized.onnx'));
    expect(bytes.length).toBeLessThan(25e6);
    const { graph } = P.decodeModel(bytes);
    const types = new Map(graph.initializer.map((t: { name: string; dataType: number }) => [t.name, t.dataType]));
    const lookups = graph.node.filter((n: { opType: string; input: string[] }) => n.opType === 'Gather' && n.input[1] === 'input_ids');
    expect(lookups.map((n: { input: string[] }) => types.get(n.input[0]))).toContain(P.DType.INT8);
  });
});

describe.skipIf(!existsSync(join(ONNX_DIR, 'model_quantized.onnx')))('int8 model fidelity (onnxruntime-web WASM, as the extension runs it)', () => {
  it('matches the q4 model: cosine >= 0.98 on every sentence', async () => {
    const q8 = await createOrtWebEmbedder({ modelRoot: NODE_MODEL_ROOT, dtype: 'q8' });
    const q4 = await createOrtWebEmbedder({ modelRoot: NODE_MODEL_ROOT, dtype: 'q4' });
    try {
      const a = await q8.embed(SENTENCES);
      const b = await q4.embed(SENTENCES);
      const cos = a.map((v, i) => cosine(v, b[i]));
      expect(a[0].length).toBe(384);
      expect(Math.min(...cos)).toBeGreaterThanOrEqual(0.98);
      expect(cos.reduce((x, y) => x + y, 0) / cos.length).toBeGreaterThanOrEqual(0.99);
      const sa = await q8.embed(SHORT);
      const sb = await q4.embed(SHORT);
      for (let i = 0; i < SHORT.length; i++) expect(cosine(sa[i], sb[i])).toBeGreaterThanOrEqual(0.95);
      // Ranking is what matters: the order of similarities to a query must hold too.
      const qa = await q8.embed(['hiring budget decision']);
      const qb = await q4.embed(['hiring budget decision']);
      const order = (q: Float32Array, vs: Float32Array[]) => vs.map((v, i) => [cosine(q, v), i] as const).sort((x, y) => y[0] - x[0]).map(([, i]) => i);
      expect(order(qa[0], a).slice(0, 3)).toEqual(order(qb[0], b).slice(0, 3));
    } finally {
      await q8.close();
      await q4.close();
    }
  });
});

describe('the offscreen engines\' own session (createOrtEmbedder) against transformers.js\'s pipeline', () => {
  it('gives the pipeline\'s vectors: same tokenizer, mean pooling over the mask, unit length, in mixed-length batches', async () => {
    const { nodeEmbedder } = await import('../../lib/embed/node-embedder');
    const pipeline = await nodeEmbedder(); // transformers.js pipeline, q4, onnxruntime-node
    const own = await createOrtWebEmbedder({ modelRoot: NODE_MODEL_ROOT, dtype: 'q4', batchSize: 4 });
    try {
      const texts = [...SENTENCES, ...SHORT];
      const a = await own.embed(texts);
      const b = await pipeline.embed(texts);
      for (let i = 0; i < texts.length; i++) {
        expect(Math.hypot(...a[i])).toBeCloseTo(1, 5);
        // Two runtimes (WASM here, native there) round differently: 0.998-1.0 measured. Pooling padding in, or
        // skipping the normalisation, puts short texts batched with long ones far below this.
        expect(cosine(a[i], b[i])).toBeGreaterThanOrEqual(0.995);
      }
    } finally {
      await own.close();
    }
  });

  it('counts the word pieces each engine reads of a text, as both tokenize it, up to the window', async () => {
    const { nodeEmbedder } = await import('../../lib/embed/node-embedder');
    const pipeline = await nodeEmbedder();
    const own = await createOrtWebEmbedder({ modelRoot: NODE_MODEL_ROOT, dtype: 'q4' });
    try {
      const long = 'Rocket engines burn fuel fast! '.repeat(80);
      // [CLS] hello world [SEP]; a word the vocabulary lacks is several pieces; the long text stops at the window; an
      // empty text is [CLS] [SEP].
      const texts = ['hello world', 'Backstory remembers antidisestablishmentarianism', long, ''];
      const want = [4, pipeline.countPieces!([texts[1]])[0], 256, 2];
      expect(own.countPieces!(texts)).toEqual(want);
      expect(pipeline.countPieces!(texts)).toEqual(want);
      expect(want[1]).toBeGreaterThan(6);
    } finally {
      await own.close();
    }
  });

  it('reads a long text through the same window of 256 word pieces as the pipeline path of tests and benches', async () => {
    const { nodeEmbedder } = await import('../../lib/embed/node-embedder');
    const pipeline = await nodeEmbedder();
    const own = await createOrtWebEmbedder({ modelRoot: NODE_MODEL_ROOT, dtype: 'q4' });
    try {
      // About 370 word pieces in under 2,000 characters: past the window, so what lies beyond it must not count.
      const text = 'The garden needs water. '.repeat(25) + 'Rocket engines burn fuel fast! '.repeat(40);
      const [a] = await own.embed([text]);
      const [b] = await pipeline.embed([text]);
      expect(cosine(a, b)).toBeGreaterThanOrEqual(0.995);
    } finally {
      await own.close();
    }
  });
});
