import type { Embedder } from '../embed/embedder';
import type { ItemHead } from '../memory/types';

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

/** New subjects embedded at most per ranking (short phrases, one batch): a memory file of many rules is embedded over a few rankings, not in one. */
const NEW_PER_RANKING = 16;

/**
 * Embeddings of the subjects rules are conditioned on (a subject scope's values), by subject, for the current model:
 * the ranker holds a subject condition in meaning too (`RankRequest.conditionVectors`). Subjects are a few words, made
 * in one batch when new, and kept while rules name them.
 */
export class ConditionVectorCache {
  private model = '';
  private readonly vectors = new Map<string, Float32Array>();

  async for(embedder: Embedder, heads: Iterable<ItemHead>): Promise<ReadonlyMap<string, Float32Array>> {
    if (embedder.modelId !== this.model) {
      this.vectors.clear();
      this.model = embedder.modelId;
    }
    const want = new Set<string>();
    for (const h of heads) if (h.kind === 'instruction' && h.scope?.kind === 'subject') for (const v of h.scope.values) want.add(v);
    const missing = [...want].filter((v) => !this.vectors.has(v)).slice(0, NEW_PER_RANKING);
    if (missing.length) {
      const vs = await embedder.embed(missing);
      missing.forEach((v, i) => this.vectors.set(v, vs[i]));
    }
    if (this.vectors.size > 2 * want.size + NEW_PER_RANKING) for (const k of [...this.vectors.keys()]) if (!want.has(k)) this.vectors.delete(k);
    return this.vectors;
  }
}
