import { modelTag } from '../../../lib/embed/model-tag';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { createOrtWebEmbedder, type ModelDtype } from '../../../lib/embed/ort-web-embedder';
import type { Embedder } from '../../../lib/embed/embedder';
import { EnginePool } from '../../../lib/embed/engine-pool';
import { NodeWorkerEngine } from './node-engines';
import { NODE_MODEL_ROOT } from '../../../lib/embed/node-embedder';
import { useLocalModels } from '../../../lib/embed/local-models';
import { VectorIndex } from '../../../lib/memory/index/vector-index';
import { openMemoryDB } from '../../../lib/memory/db';
import { MemoryStore } from '../../../lib/memory/store';
import { IndexedMemory } from '../../../lib/memory/index/memory-index';
import { HYDRATED_CHARS } from '../../../lib/memory/index/hydrated-items';
import { passagesOf } from '../../../lib/memory/index/item-text';
import { createItem } from '../../../lib/memory/normalize';
import type { MemoryItem } from '../../../lib/memory/types';
import { SyntheticCorpus, englishNote, percentile, rng } from './synthetic';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const heap = () => {
  gc();
  gc();
  // external counts ArrayBuffers and WebAssembly memories (the vectors live in one) as well as other native memory.
  return process.memoryUsage().heapUsed + process.memoryUsage().external;
};

/** 16 word pieces with [CLS]/[SEP]. */
export const QUERY_16 = 'what did we decide about the hiring budget for the next quarter';

/** One query at a time, q8 (int8 rewrite) and q4 (as shipped) interleaved so machine noise hits both alike. */
export async function embedQuery(iterations: number, threads = 1) {
  const e8 = await createOrtWebEmbedder({ modelRoot: NODE_MODEL_ROOT, dtype: 'q8', threads });
  const e4 = await createOrtWebEmbedder({ modelRoot: NODE_MODEL_ROOT, dtype: 'q4', threads });
  const t: Record<ModelDtype, number[]> = { q8: [], q4: [] };
  for (let i = 0; i < 3; i++) {
    await e8.embed([QUERY_16]);
    await e4.embed([QUERY_16]);
  }
  for (let i = 0; i < iterations; i++)
    for (const e of i % 2 ? [e8, e4] : [e4, e8]) {
      const t0 = performance.now();
      await e.embed([QUERY_16]);
      t[e.dtype].push(performance.now() - t0);
    }
  await e8.close();
  await e4.close();
  return { q8: percentile(t.q8, 50), q4: percentile(t.q4, 50), q8min: Math.min(...t.q8), q4min: Math.min(...t.q4), n: iterations };
}

/**
 * Notes of ~60 tokens (54 plain English words: 58 word pieces with [CLS]/[SEP]) through the import path the
 * extension uses: written at once, then MemoryStore.embedPending (shortest first, batches of `batch`, one
 * transaction per batch) in fake-indexeddb. Timed from the import to the last vector stored.
 */
export async function indexRate(dtype: ModelDtype, n: number, how: { threads?: number; engines?: number }, batch = 16) {
  const r = rng(99 + (how.threads ?? 0) + 10 * (how.engines ?? 0));
  const inputs = Array.from({ length: n }, (_, i) => ({ id: `x${i}`, text: englishNote(54, r) }));
  const warm = Array.from({ length: 8 * batch }, () => englishNote(54, r));
  let embedder: Embedder;
  let close: () => Promise<unknown>;
  if (how.engines) {
    // The shipped pool over worker threads, one single-threaded engine each (the offscreen document's layout).
    const engines = Array.from({ length: how.engines }, (_, k) => new NodeWorkerEngine(NODE_MODEL_ROOT, dtype, k));
    embedder = new EnginePool(engines, `pool/${how.engines}`, modelTag(dtype));
    close = () => Promise.all(engines.map((e) => e.close()));
  } else {
    const one = await createOrtWebEmbedder({ modelRoot: NODE_MODEL_ROOT, dtype, threads: how.threads ?? 1, batchSize: batch });
    embedder = one;
    close = () => one.close();
  }
  // Warm: every engine has run the model long enough for V8 to optimise its runtime copy (in worker threads that
  // compile comes after the first ~60 notes and takes the other core for a while), as after a first import.
  await embedder.embed(warm);
  const tokens = await tokenCount(inputs.slice(0, 16).map((x) => x.text));
  const db = openMemoryDB(`perf-index-${dtype}-${how.threads ?? 0}-${how.engines ?? 0}`, { indexedDB: new IDBFactory(), IDBKeyRange });
  const store = new MemoryStore(db, async () => embedder);
  const t0 = performance.now();
  await store.add(inputs, { from: 'user' }, { deferEmbedding: true });
  const done = await store.embedPending(undefined, batch);
  const s = (performance.now() - t0) / 1000;
  if (done !== n) throw new Error(`indexed ${done} of ${n}`);
  await close();
  db.close();
  return { perS: n / s, tokens };
}

async function tokenCount(texts: string[]): Promise<number> {
  const { AutoTokenizer } = await import('@huggingface/transformers');
  useLocalModels(NODE_MODEL_ROOT); // the model's own tokenizer from the bundled files (the hub is never asked)
  const tok = await AutoTokenizer.from_pretrained('all-MiniLM-L6-v2');
  let sum = 0;
  for (const t of texts) sum += (tok(t) as unknown as { input_ids: { dims: number[] } }).input_ids.dims[1];
  return sum / texts.length;
}

/**
 * The memory for ranking: `n` synthetic notes with topic-derived vectors (see SyntheticCorpus.vector); `longShare` of
 * them long, with a vector per passage as the extension stores them. As in the extension, the index keeps item heads
 * and reads whole items when a ranking hydrates them (`IndexedMemory.hydrate`); here from `stored`, a map standing
 * for IndexedDB, made before the heap is first read (the database's copy is not the worker's heap). `add` puts an
 * item in both.
 */
export function buildMemory(n: number, corpus: SyntheticCorpus, longShare = 0) {
  const { inputs, topics } = corpus.inputs(n, 1234, 60, longShare);
  const r = rng(4321);
  const now = Date.UTC(2025, 6, 1);
  const stored = new Map<string, MemoryItem>();
  for (const input of inputs) {
    const item = createItem(input, now);
    stored.set(item.id, item);
  }
  const ids = [...stored.keys()];
  const h0 = heap();
  // A read gives copies, as IndexedDB's do: what the index keeps of them is counted, and their cost is in the rankings.
  const mem = new IndexedMemory(async (asked) => asked.map((id) => structuredClone(stored.get(id))));
  const add = (item: MemoryItem, vector?: Float32Array | Float32Array[]) => {
    stored.set(item.id, item);
    mem.put(item, vector);
  };
  const floats = new Map<string, Float32Array>();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const item = stored.get(ids[i])!;
    const v = corpus.vector(topics[i], r);
    const parts = passagesOf(item).length;
    mem.put(item, parts > 1 ? [v, ...Array.from({ length: parts - 1 }, () => corpus.vector(topics[i], r))] : v);
    floats.set(item.id, v);
  }
  // As the store does when it writes the pack after a load or an import (MemoryStore.savePack).
  mem.trim();
  const buildMs = performance.now() - t0;
  const hMem = heap() - h0; // includes the float map, measured below and subtracted
  return { mem, stored, add, floats, topics, buildMs, heapWithFloats: hMem, now, heapBefore: h0 };
}

/** Hydrates items until the texts the index keeps reach their bound (`HYDRATED_CHARS`), as after a while of rankings. */
export async function fillHydrated(mem: IndexedMemory): Promise<void> {
  const ids = [...mem.items()].map((it) => it.id);
  let chars = 0;
  let k = 0;
  while (chars <= 2 * HYDRATED_CHARS && k < ids.length) {
    const part = ids.slice(k, (k += 500));
    for (const it of (await mem.hydrate(part)).values()) chars += it.text.length + it.title.length;
  }
  await mem.hydrate(ids.slice(k, k + 1)); // trims to the bound
}

/** Heap growth of holding `n` vectors: the shipping VectorIndex vs the former Map<string, Float32Array>. */
export function vectorHeap(n: number, corpus: SyntheticCorpus) {
  const r = rng(5);
  const vs = Array.from({ length: 2000 }, (_, i) => corpus.vector(i % corpus.centroids.length, r));
  const ids = Array.from({ length: n }, (_, i) => `n${i}`);
  let h0 = heap();
  const idx = new VectorIndex();
  for (let i = 0; i < n; i++) idx.set(ids[i], vs[i % vs.length]);
  const quant = (heap() - h0) / n;
  h0 = heap();
  const map = new Map<string, Float32Array>();
  for (let i = 0; i < n; i++) map.set(ids[i], vs[i % vs.length].slice());
  const float = (heap() - h0) / n;
  if (idx.size + map.size < 0) console.log(); // keep both alive until measured
  return { quant, float };
}

export { heap };

/**
 * MemoryStore.load() for `n` items in fake-indexeddb: from the tables (every vector re-quantised, every item
 * tokenised: the former path and the baseline) and from the persisted pack. fake-indexeddb's structured clone is
 * slower than Chromium's, so the browser's cold_start_ms is the figure that counts; this isolates the CPU part.
 */
export async function storeLoad(n: number, corpus: SyntheticCorpus, reps = 3) {
  const { inputs, topics } = corpus.inputs(n, 2024);
  const r = rng(8);
  const now = Date.UTC(2025, 6, 1);
  const items = inputs.map((x) => createItem(x, now));
  const db = openMemoryDB(`perf-load-${n}`, { indexedDB: new IDBFactory(), IDBKeyRange });
  await db.items.bulkPut(items);
  await db.vectors.bulkPut(items.map((it, i) => ({ id: it.id, model: 'all-MiniLM-L6-v2/q4', vector: corpus.vector(topics[i], r) })));
  const rows: number[] = [];
  const packed: number[] = [];
  let saveMs = 0;
  for (let k = 0; k < reps; k++) {
    await db.packs.clear();
    let s = new MemoryStore(db, async () => null);
    let t0 = performance.now();
    await s.load();
    rows.push(performance.now() - t0);
    t0 = performance.now();
    await s.savePack();
    saveMs = performance.now() - t0;
    s = new MemoryStore(db, async () => null);
    t0 = performance.now();
    await s.load();
    packed.push(performance.now() - t0);
    if (s.size !== n || s.view.vectorCount !== n) throw new Error('pack load lost items');
  }
  db.close();
  return { rows: percentile(rows, 50), packed: percentile(packed, 50), saveMs };
}
