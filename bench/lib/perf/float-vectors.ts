import { VectorIndex } from '../../../lib/memory/index/vector-index';
import { IndexedMemory } from '../../../lib/memory/index/memory-index';

/**
 * Puts the ranker back on the path as it was before quantised vectors (the baseline in bench:perf and the "before"
 * LoCoMo figure): vectors held as float32 in a Map, and no `denseScores`, so the dense pass iterates every entry.
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
  delete mp.denseScores;
  return () => {
    Object.assign(vp, { set: saved.set, get: saved.get, delete: saved.delete, entries: saved.entries, has: saved.has });
    Object.defineProperty(VectorIndex.prototype, 'size', saved.size!);
    mp.denseScores = saved.denseScores;
  };
}
