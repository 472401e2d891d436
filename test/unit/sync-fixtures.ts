import { SyncPlaceError } from '../../lib/sync/types';
import type { Embedder } from '../../lib/embed/embedder';

/** Sync tests' embedder: the vector is a hash of the text, enough to see what was embedded and when. */
export const textHashEmbedder: Embedder = {
  modelId: 'test',
  dim: 4,
  backend: 'test',
  async embed(texts) {
    return texts.map((t) => {
      const v = new Float32Array(4);
      for (let i = 0; i < t.length; i++) v[i % 4] += t.charCodeAt(i);
      const n = Math.hypot(...v) || 1;
      return v.map((x) => x / n);
    });
  },
};

/** The `SyncPlaceError` problem a place's call ends in ('none' when it succeeds); any other error is thrown on. */
export async function placeProblem(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (e instanceof SyncPlaceError) return e.problem;
    throw e;
  }
  return 'none';
}
