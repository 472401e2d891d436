/**
 * Whether a text's vector depends on the texts embedded beside it, and what running each text alone costs.
 * Usage: npm run bench:vector-stability -- [--texts N] [--speed-texts M] [--reps R] [--json OUT]
 *
 * Texts: N turns (default 200) taken evenly from ../shared/datasets (LoCoMo's short turns and LongMemEval's turns of
 * every length), or the two files given with --locomo / --lme. For each engine the product runs (the offscreen WASM
 * engines' session, createOrtEmbedder on onnxruntime-web; the Node embedder of tests and benches, transformers.js on
 * onnxruntime-node) each text is embedded alone, then all of them in batches of 16 in a shuffled order (neighbours
 * of any length) and, run padded as before, in batches sorted by length (how indexing batches them). The WebGPU
 * engine's float graph (here on WASM kernels: no GPU is at hand) and the q4 file, which keep their batches, are
 * checked the same way. Reported: the least cosine between a text alone and in a batch, how many vectors are
 * bit-identical, and how many give the same int8 codes (and scale) in the vector index.
 * Throughput: M texts (default 100, the same spread of lengths) in length-sorted batches of 16, `padded` (one run per
 * batch, as before) against `alone` (one run per text), alternated R times (default 3) in this one process; medians.
 * On a shared machine the figures are indicative only.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as ort from 'onnxruntime-web';
import type { Batching, Embedder } from '../lib/embed/embedder';
import { createOrtEmbedder } from '../lib/embed/ort-embedder';
import { createOrtWebEmbedder } from '../lib/embed/ort-web-embedder';
import { createTransformersEmbedder } from '../lib/embed/transformers-embedder';
import { FLOAT_WEIGHTS_PATH, int8ToFloatGraph } from '../lib/embed/int8-to-float';
import { NODE_MODEL_ROOT } from '../lib/embed/node-embedder';
import { VectorIndex } from '../lib/memory/index/vector-index';
import { optionValue } from './lib/args';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const BATCH = 16;

function args(argv: string[]) {
  const get = (name: string) => optionValue(argv, name);
  const shared = join(ROOT, '..', '..', 'shared', 'datasets');
  return {
    texts: Number(get('--texts') ?? 200),
    reps: Number(get('--reps') ?? 3),
    speedTexts: Number(get('--speed-texts') ?? 100),
    json: get('--json'),
    locomo: get('--locomo') ?? join(shared, 'locomo-dev.json'),
    lme: get('--lme') ?? join(shared, 'longmemeval-s-dev.json'),
  };
}

/** Every `step`-th of the turns, half from each file: short chat turns and long assistant answers alike. */
function sampleTexts(locomoFile: string, lmeFile: string, n: number): string[] {
  const locomo = (JSON.parse(readFileSync(locomoFile, 'utf8')) as { conversation: Record<string, unknown> }[]).flatMap((c) =>
    Object.entries(c.conversation)
      .filter(([k, v]) => /^session_\d+$/.test(k) && Array.isArray(v))
      .flatMap(([, v]) => (v as { speaker: string; text: string }[]).map((t) => `${t.speaker}: ${t.text}`)),
  );
  const lme = (JSON.parse(readFileSync(lmeFile, 'utf8')) as { haystack_sessions: { role: string; content: string }[][] }[])
    .slice(0, 2)
    .flatMap((q) => q.haystack_sessions.flat().filter((t) => t.content.trim()).map((t) => `${t.role}: ${t.content}`));
  const every = (list: string[], k: number) => Array.from({ length: k }, (_, i) => list[Math.floor((i * list.length) / k)]);
  return [...new Set([...every(locomo, Math.ceil(n / 2)), ...every(lme, Math.floor(n / 2))])];
}

/** A fixed shuffle (so every engine sees the same neighbours). */
function shuffled<T>(xs: T[]): T[] {
  const out = [...xs];
  let s = 12345;
  for (let i = out.length - 1; i > 0; i--) {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

async function inBatches(e: Embedder, texts: string[]): Promise<Map<string, Float32Array>> {
  const out = new Map<string, Float32Array>();
  for (let i = 0; i < texts.length; i += BATCH) {
    const batch = texts.slice(i, i + BATCH);
    (await e.embed(batch)).forEach((v, j) => out.set(batch[j], v));
  }
  return out;
}

/** The int8 codes the vector index stores for a vector (and its scale). */
function codes(v: Float32Array): string {
  const index = new VectorIndex(v.length);
  index.set('x', v);
  const p = index.packed();
  return `${Array.from(p.codes.slice(0, v.length)).join(',')}/${p.scales[0]}`;
}

/** The cosine itself, norms included (a unit vector's dot with itself is 1 only to float rounding). */
function trueCosine(a: Float32Array, b: Float32Array): number {
  let ab = 0, aa = 0, bb = 0;
  for (let i = 0; i < a.length; i++) {
    ab += a[i] * b[i];
    aa += a[i] * a[i];
    bb += b[i] * b[i];
  }
  return a.every((x, i) => x === b[i]) ? 1 : ab / Math.sqrt(aa * bb);
}

interface Stability {
  minCosine: number;
  bitIdentical: number;
  sameCodes: number;
  texts: number;
}

function compare(alone: Map<string, Float32Array>, batched: Map<string, Float32Array>): Stability {
  let minCosine = 1, bitIdentical = 0, sameCodes = 0;
  for (const [t, a] of alone) {
    const b = batched.get(t)!;
    minCosine = Math.min(minCosine, trueCosine(a, b));
    if (a.every((x, i) => x === b[i])) bitIdentical++;
    if (codes(a) === codes(b)) sameCodes++;
  }
  return { minCosine, bitIdentical, sameCodes, texts: alone.size };
}

/** Each text's vector alone (one run per text: the reference). */
async function aloneVectors(e: Embedder, texts: string[]): Promise<Map<string, Float32Array>> {
  const out = new Map<string, Float32Array>();
  for (const t of texts) out.set(t, (await e.embed([t]))[0]);
  return out;
}

function lengthSorted(e: Embedder, texts: string[]): string[] {
  const pieces = new Map(texts.map((t, i) => [t, e.countPieces!(texts)[i]]));
  return [...texts].sort((a, b) => pieces.get(a)! - pieces.get(b)! || a.length - b.length);
}

/** The length-sorted batches' vectors of the last `stability` call (what indexing made before). */
let lastSorted = new Map<string, Float32Array>();

/** Against `alone`: the texts in shuffled batches and, with `sorted`, in length-sorted ones. */
async function stability(e: Embedder, texts: string[], alone: Map<string, Float32Array>, sorted = true): Promise<{ shuffled: Stability; sorted?: Stability }> {
  const out: { shuffled: Stability; sorted?: Stability } = { shuffled: compare(alone, await inBatches(e, shuffled(texts))) };
  if (sorted) out.sorted = compare(alone, (lastSorted = await inBatches(e, lengthSorted(e, texts))));
  return out;
}

/** Mean cosine of each text's vector to another engine's (fidelity: how close int8 comes to the float model). */
function meanCosine(a: Map<string, Float32Array>, b: Map<string, Float32Array>): number {
  let sum = 0;
  for (const [t, v] of a) sum += trueCosine(v, b.get(t)!);
  return sum / a.size;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Texts a second, padded against alone, alternated `reps` times over the same length-sorted batches. */
async function throughput(engines: Record<Batching, Embedder>, texts: string[], reps: number) {
  const sorted = lengthSorted(engines.alone, texts);
  // Warm both first (the runtime's code is optimised as it runs), so neither pays for it in a timed pass.
  for (const how of ['padded', 'alone'] as Batching[]) await inBatches(engines[how], sorted.slice(0, BATCH));
  const runs: Record<Batching, number[]> = { padded: [], alone: [] };
  for (let r = 0; r < reps; r++)
    for (const how of (r % 2 ? ['alone', 'padded'] : ['padded', 'alone']) as Batching[]) {
      const t0 = performance.now();
      await inBatches(engines[how], sorted);
      runs[how].push(texts.length / ((performance.now() - t0) / 1000));
    }
  return { paddedPerS: median(runs.padded), alonePerS: median(runs.alone), runs };
}

async function main() {
  const a = args(process.argv.slice(2));
  const texts = sampleTexts(a.locomo, a.lme, a.texts);
  const pieces = (await createOrtWebEmbedder({ modelRoot: NODE_MODEL_ROOT, dtype: 'q8' })).countPieces!(texts);
  console.log(`${texts.length} texts, ${Math.min(...pieces)}-${Math.max(...pieces)} word pieces (median ${median(pieces)})`);
  const report: Record<string, unknown> = { texts: texts.length };
  const save = () => a.json && writeFileSync(a.json, JSON.stringify(report, null, 2) + '\n'); // after each figure: a long run stopped keeps what it measured
  // Throughput over every `speed`-th text (the same spread of lengths), to keep the run short on a shared machine.
  const speedTexts = texts.filter((_, i) => i % Math.max(1, Math.round(texts.length / a.speedTexts)) === 0);

  // The offscreen engines' session on onnxruntime-web's WASM kernels, one thread (what each engine of the pool runs).
  const wasm = {
    padded: await createOrtWebEmbedder({ modelRoot: NODE_MODEL_ROOT, dtype: 'q8', batching: 'padded', batchSize: BATCH }),
    alone: await createOrtWebEmbedder({ modelRoot: NODE_MODEL_ROOT, dtype: 'q8' }),
  };
  // The Node embedder of tests and benches (nodeEmbedder('q8')).
  const node = {
    padded: await createTransformersEmbedder({ modelRoot: NODE_MODEL_ROOT, dtype: 'q8', batching: 'padded', batchSize: BATCH }),
    alone: await createTransformersEmbedder({ modelRoot: NODE_MODEL_ROOT, dtype: 'q8' }),
  };
  // The WebGPU engine's graph (gpu-worker.ts): the int8 file as float products, batched; on the WASM kernels here.
  const { model, weights } = int8ToFloatGraph(new Uint8Array(readFileSync(join(NODE_MODEL_ROOT, 'all-MiniLM-L6-v2', 'onnx', 'model_quantized.onnx'))));
  const float = await createOrtEmbedder({ ort, model, externalData: [{ path: FLOAT_WEIGHTS_PATH, data: weights }], backend: 'wasm/float', dtype: 'q8', batching: 'padded', batchSize: BATCH });

  // The q4 file (4-bit weights; activations float, or int8 per token in blocks of 32: accuracy_level 4), batched as ever.
  const q4 = await createTransformersEmbedder({ modelRoot: NODE_MODEL_ROOT, dtype: 'q4', batchSize: BATCH });

  // Speed first, while the machine's load is what it was when the run started.
  for (const [name, engines] of [['wasm q8', wasm], ['node q8', node]] as const) {
    const t = await throughput(engines, speedTexts, a.reps);
    report[`${name} throughput`] = t;
    save();
    console.log(`${name} texts/s over ${speedTexts.length} texts (median of ${a.reps}): padded batches of ${BATCH} ${t.paddedPerS.toFixed(1)}, alone ${t.alonePerS.toFixed(1)} (${(t.alonePerS / t.paddedPerS).toFixed(2)}x)`);
  }
  const f = (x: Stability) => `min cosine ${x.minCosine.toFixed(7)}, bit-identical ${x.bitIdentical}/${x.texts}, same int8 codes ${x.sameCodes}/${x.texts}`;
  const show = (name: string, r: { shuffled: Stability; sorted?: Stability }) => {
    report[name] = r;
    save();
    console.log(`${name}: shuffled batches: ${f(r.shuffled)}${r.sorted ? `; length-sorted batches: ${f(r.sorted)}` : ''}`);
  };
  const made: Record<string, Map<string, Float32Array>> = {};
  for (const [family, engines] of [['wasm q8', wasm], ['node q8', node]] as const) {
    const alone = (made[`${family} alone`] = await aloneVectors(engines.alone, texts));
    show(`${family} padded (before)`, await stability(engines.padded, texts, alone));
    made[`${family} padded`] = lastSorted;
    // Run alone, the batch is only the order texts are handed over in: the shuffled one mixes every length.
    show(`${family} alone (after)`, await stability(engines.alone, texts, alone, false));
    if (family === 'wasm q8') {
      // Run to run: the same texts in a second session (another engine of the pool, another device).
      const other = await createOrtWebEmbedder({ modelRoot: NODE_MODEL_ROOT, dtype: 'q8' });
      const again = compare(alone, await aloneVectors(other, texts));
      report['wasm q8 alone, a second session'] = again;
      save();
      console.log(`wasm q8 alone, a second session: ${f(again)}`);
    }
  }
  for (const [name, e] of [['float graph padded (the WebGPU engine\'s graph, on WASM kernels)', float], ['node q4 padded', q4]] as const)
    show(name, await stability(e, texts, (made[name] = await aloneVectors(e, texts)), false));
  // Fidelity: the int8 vectors against the same weights with float activations (the WebGPU engine's graph).
  const floatAlone = made[Object.keys(made).find((k) => k.startsWith('float'))!];
  const fidelity = Object.fromEntries(['wasm q8 padded', 'wasm q8 alone'].map((k) => [k, meanCosine(made[k], floatAlone)]));
  report['mean cosine to the float graph'] = fidelity;
  save();
  console.log(`mean cosine to the float graph: ${Object.entries(fidelity).map(([k, v]) => `${k} ${v.toFixed(5)}`).join(', ')}`);

}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
