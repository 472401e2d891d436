import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { VectorIndex } from '../../lib/memory/index/vector-index';
import { ownerOf, passageKey } from '../../lib/memory/index/passages';

function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function unitVector(dim: number, r: () => number): Float32Array {
  const v = Float32Array.from({ length: dim }, () => r() * 2 - 1);
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
}

const cos = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i], 0);

describe('int8 vector index', () => {
  // 384 runs the WebAssembly SIMD loop, 20 the JavaScript one (not a multiple of 16).
  for (const dim of [384, 20]) {
    it(`scores every stored vector like the float cosine, through growth, deletions and a pack round trip (dim ${dim})`, () => {
      const r = rng(dim);
      const idx = new VectorIndex();
      const floats = new Map<string, Float32Array>();
      for (let i = 0; i < 3000; i++) {
        const v = unitVector(dim, r);
        idx.set(`v${i}`, v);
        floats.set(`v${i}`, v);
      }
      for (let i = 0; i < 3000; i += 3) {
        idx.delete(`v${i}`);
        floats.delete(`v${i}`);
      }
      const again = unitVector(dim, r);
      idx.set('v1', again); // re-set in place
      floats.set('v1', again);
      const q1 = unitVector(dim, r);
      const q2 = unitVector(dim, r);
      const all = idx.scores([q1, q2], [0.75, 0.25]);
      expect(all.size).toBe(floats.size);
      for (const [id, v] of floats) expect(Math.abs(all.get(id)! - (0.75 * cos(q1, v) + 0.25 * cos(q2, v)))).toBeLessThan(0.01);

      // The best 50 by the float cosine are (but for near-ties at the cut) the best 50 returned.
      const best = [...floats].map(([id, v]) => [id, cos(q1, v)] as const).sort((a, b) => b[1] - a[1]);
      const top = idx.scores([q1], [1], 50);
      expect(top.size).toBeGreaterThanOrEqual(50);
      const cut = best[49][1];
      for (const [id, c] of best) if (c > cut + 0.02) expect(top.has(id)).toBe(true);

      const p = idx.packed();
      const loaded = new VectorIndex();
      loaded.addPacked(p.ids, p.ids.map((_, i) => i), p.dim, p.codes, p.scales);
      expect([...loaded.scores([q1], [1])]).toEqual([...idx.scores([q1], [1])]);
    });
  }

  it('keeps exactly the best scores and every tie at the cut, for any cut, duplicates and unnormalised vectors', () => {
    const r = rng(7);
    const idx = new VectorIndex();
    const shared = unitVector(384, r);
    for (let i = 0; i < 3000; i++) {
      // Every fifth vector is the same one (many equal scores); some are far from unit length (scores beyond ±1).
      const v = i % 5 === 0 ? shared : unitVector(384, r).map((x) => (i % 7 === 0 ? x * 40 : x));
      idx.set(`v${i}`, v);
    }
    const q = unitVector(384, r);
    const all = [...idx.scores([q], [1])];
    const sorted = all.map(([, s]) => s).sort((a, b) => b - a);
    expect(Math.max(...sorted)).toBeGreaterThan(1);
    for (const limit of [1, 50, 599, 600, 601, 2000, 2999]) {
      const cut = sorted[limit - 1];
      expect([...idx.scores([q], [1], limit)]).toEqual(all.filter(([, s]) => s >= cut));
    }
    // The shared vector's 600 equal scores straddle a cut: all of them are kept.
    const sharedScore = idx.scores([q], [1]).get('v0')!;
    const rank = sorted.indexOf(sharedScore);
    const top = idx.scores([q], [1], rank + 1);
    expect([...top.values()].filter((s) => s === sharedScore)).toHaveLength(600);
  });

  it("gives each item its best passage's score, in one map, as grouping every passage's score does, after deletions too", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 40 }), fc.integer({ min: 1, max: 60 }), fc.nat(1000), (parts, limit, seed) => {
        const r = rng(seed + 1);
        const idx = new VectorIndex(undefined, undefined, ownerOf);
        parts.forEach((n, i) => {
          for (let k = 0; k < n; k++) idx.set(passageKey(`n${i}`, k), unitVector(16, r));
        });
        // Deleting moves the last slot into the hole: each slot's group must move with it.
        parts.forEach((n, i) => {
          if (r() < 0.3) for (let k = 0; k < n; k++) idx.delete(passageKey(`n${i}`, k));
        });
        const q = [unitVector(16, r)];
        const grouped = new Map<string, number>();
        for (const [key, v] of idx.scores(q, [1], limit)) {
          const id = ownerOf(key);
          if (!(grouped.get(id)! >= v)) grouped.set(id, v);
        }
        expect([...idx.scores(q, [1], limit, true)]).toEqual([...grouped]);
      }),
      { numRuns: 200 },
    );
  });
});
