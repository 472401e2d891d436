import type { Embedder } from '../embed/embedder';

/** Query embeddings by text, so re-ranking the same task (panel reopened, settings moved) costs nothing. */
export class QueryVectorCache {
  private cache = new Map<string, Float32Array>();
  constructor(private readonly limit = 64) {}

  async get(embedder: Embedder, text: string): Promise<Float32Array> {
    const hit = this.cache.get(text);
    if (hit) {
      this.cache.delete(text);
      this.cache.set(text, hit);
      return hit;
    }
    const [v] = await embedder.embed([text]);
    this.cache.set(text, v);
    if (this.cache.size > this.limit) this.cache.delete(this.cache.keys().next().value!);
    return v;
  }
}
