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
