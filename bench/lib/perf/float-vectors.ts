import { cosine } from '../../../lib/embed/embedder';
import { VectorIndex } from '../../../lib/memory/index/vector-index';
import { IndexedMemory } from '../../../lib/memory/index/memory-index';

/**
 * The dense pass as it was before quantised vectors: Σ w_i cos(q_i, v) / Σ w_i for every float vector, all of them
 * returned (no `limit` cut).
 */
export function floatDenseScores(entries: Iterable<[string, Float32Array]>, queries: Float32Array[], weights: number[]): Map<string, number> {
  const out = new Map<string, number>();
  if (!queries.length) return out;
  const wsum = weights.reduce((a, b) => a + b, 0) || 1;
  for (const [id, v] of entries) {
    if (v.length !== queries[0].length) continue;
    let s = 0;
    for (let i = 0; i < queries.length; i++) s += weights[i] * cosine(queries[i], v);
    out.set(id, s / wsum);
  }
  return out;
}

/**
 * Puts the ranker back on the path as it was before quantised vectors (the baseline in bench:perf and the "before"
 * LoCoMo figure): vectors held as float32 in a Map, and the dense pass iterating every entry (`floatDenseScores`).
 * Returns a function that restores the shipping path. Bench-only; patches prototypes for the current process.
 */
export function useFloatVectors(): () => void {
  const vp = VectorIndex.prototype as unknown as Record<string, unknown>;
  const mp = IndexedMemory.prototype as unknown as Record<string, unknown>;
  const saved = { set: vp.set, get: vp.get, delete: vp.delete, entries: vp.entries, has: vp.has, size: Object.getOwnPropertyDescriptor(VectorIndex.prototype, 'size'), denseScores: mp.denseScores };
  const floats = new WeakMap<object, Map<string, Float32Array>>();
  const of = (self: object) => {
    let m = floats.get(self);
    if (!m) floats.set(self, (m = new Map()));
    return m;
  };
  vp.set = function (this: object, id: string, v: Float32Array) {
    of(this).set(id, v);
  };
  vp.get = function (this: object, id: string) {
    return of(this).get(id);
  };
  vp.has = function (this: object, id: string) {
    return of(this).has(id);
  };
  vp.delete = function (this: object, id: string) {
    of(this).delete(id);
  };
  vp.entries = function (this: object) {
    return of(this).entries();
  };
  Object.defineProperty(VectorIndex.prototype, 'size', { configurable: true, get(this: object) { return of(this).size; } });
  mp.denseScores = function (this: IndexedMemory, queries: Float32Array[], weights: number[]) {
    return floatDenseScores(this.vectorEntries(), queries, weights);
  };
  return () => {
    Object.assign(vp, { set: saved.set, get: saved.get, delete: saved.delete, entries: saved.entries, has: saved.has });
    Object.defineProperty(VectorIndex.prototype, 'size', saved.size!);
    mp.denseScores = saved.denseScores;
  };
}
