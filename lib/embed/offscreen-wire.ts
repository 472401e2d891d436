import type { EmbedBackendChoice } from './gpu-adapter';

/**
 * Messages from the service worker to its offscreen document (Chrome only), which runs the model in one Worker per core
 * for indexing (a service worker cannot start Workers). The service worker stays the owner of memory; the
 * document only turns texts into vectors. Vectors travel as base64 float32 (below).
 */
export interface OffscreenProtocol {
  /**
   * `backend`: the user's choice (settings `embed.backend`); `run`: texts in the indexing run this batch belongs to;
   * `reason` says why the engine that answered was used.
   */
  'offscreen:embed': { req: { texts: string[]; backend?: EmbedBackendChoice; run?: number }; res: { vectors: string; count: number; dim: number; backend: string; reason?: string } };
}

/**
 * Vectors cross the extension's message channel (JSON) as base64 of their float32 bytes: bit-identical to what the
 * engine computed, and about a fifth of the size of the same numbers written out as JSON.
 */
export function packVectors(vectors: Float32Array[], dim: number): string {
  const all = new Float32Array(vectors.length * dim);
  vectors.forEach((v, i) => {
    if (v.length !== dim) throw new Error(`vector ${i} has ${v.length} dimensions, expected ${dim}`);
    all.set(v, i * dim);
  });
  const bytes = new Uint8Array(all.buffer);
  let s = '';
  // In chunks: String.fromCharCode(...bytes) overflows the call stack on large batches.
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

export function unpackVectors(packed: string, count: number, dim: number): Float32Array[] {
  const s = atob(packed);
  if (s.length !== count * dim * 4) throw new Error(`expected ${count} vectors of ${dim} dimensions, got ${s.length} bytes`);
  const bytes = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) bytes[i] = s.charCodeAt(i);
  const all = new Float32Array(bytes.buffer);
  return Array.from({ length: count }, (_, i) => all.slice(i * dim, (i + 1) * dim));
}
