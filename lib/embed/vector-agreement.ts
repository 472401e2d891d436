import { cosine } from './embedder';

/**
 * Texts both paths embed before WebGPU vectors are let into memory: sentences of the kinds people keep (decisions,
 * preferences, chat turns, notes), short and long.
 */
export const PROBE_TEXTS = [
  'The draft budget for Q3 is 1.2M; Dana approved the contractor cut.',
  'How I like code answers: short, with one runnable example and no preamble.',
  'The sync worker retries with exponential backoff, capped at 30 seconds.',
  'Meeting moved to Thursday at 3pm in room 4B; bring the signed contract.',
  'Please write emails to the board without exclamation marks.',
  'Caroline went to the support group yesterday and said it gave her courage.',
  'Tomato seedlings need hardening off for a week before planting out.',
  'Refactor the parser so it streams instead of loading the whole file into memory, and add tests for truncated input.',
];

/** Every probe at least this close, and on average this close (the WebGPU engine's float graph and the int8 file on WASM clear both with room to spare). */
export const AGREEMENT_MIN = 0.98;
export const AGREEMENT_MEAN = 0.99;

export interface Agreement {
  min: number;
  mean: number;
  ok: boolean;
}

/** How closely two paths' vectors of the same texts agree. */
export function agreement(a: Float32Array[], b: Float32Array[]): Agreement {
  // Both sides unit length (the model normalises), so the dot product is the cosine.
  if (!a.length || a.length !== b.length || !wellFormedVectors(a, a.length, a[0].length) || !wellFormedVectors(b, b.length, a[0].length)) return { min: 0, mean: 0, ok: false };
  const c = a.map((v, i) => cosine(v, b[i]));
  const min = Math.min(...c);
  const mean = c.reduce((s, x) => s + x, 0) / c.length;
  return { min, mean, ok: min >= AGREEMENT_MIN && mean >= AGREEMENT_MEAN };
}

/** Unit-length vectors of finite numbers, as the model's are: anything else means the device computed garbage. */
export function wellFormedVectors(vs: Float32Array[], count: number, dim: number): boolean {
  if (vs.length !== count) return false;
  return vs.every((v) => {
    if (v.length !== dim) return false;
    let n = 0;
    for (let i = 0; i < v.length; i++) {
      if (!Number.isFinite(v[i])) return false;
      n += v[i] * v[i];
    }
    return Math.abs(n - 1) < 1e-2;
  });
}
