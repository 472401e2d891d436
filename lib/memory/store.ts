import type { Embedder } from '../embed/embedder';
import { embedText } from '../rank/lexical-index';
import { IndexedMemory } from '../rank/memory-view';
import type { BackstoryDB } from './db';
import { createItem, patchItem } from './normalize';
import type { MemoryInput, MemoryItem, MemoryPatch } from './types';

const MODEL_TAG = 'all-MiniLM-L6-v2/q4';

/** IndexedDB refused a write because the browser's storage quota is used up. */
export class StorageFullError extends Error {
  constructor() {
    super("Backstory's storage is full, so nothing was saved. Delete or export old memories, or free disk space, and try again.");
  }
}

function isQuotaError(e: unknown): boolean {
  const err = e as { name?: string; inner?: { name?: string } } | undefined;
  return err?.name === 'QuotaExceededError' || err?.inner?.name === 'QuotaExceededError';
}

/**
 * The memory: IndexedDB is the truth; an IndexedMemory (items, vectors, BM25 and prefix indexes) is kept in step
 * with it so ranking never waits on the database. Runs in the service worker and in Node (fake-indexeddb).
 * Every write goes to IndexedDB first, in one transaction, and only then to the in-memory indexes.
 */
export class MemoryStore {
  private mem = new IndexedMemory();
  private loaded?: Promise<void>;
  private pending?: Promise<number>;

  constructor(
    private readonly db: BackstoryDB,
    /** Resolves to null when the model cannot load: items are then stored unembedded and ranked lexically. */
    private readonly getEmbedder: () => Promise<Embedder | null>,
  ) {}

  /** The memory as the ranker reads it. */
  get view(): IndexedMemory {
    return this.mem;
  }
  get size(): number {
    return this.mem.size;
  }
  get(id: string): MemoryItem | undefined {
    return this.mem.get(id);
  }
  items(): Iterable<MemoryItem> {
    return this.mem.items();
  }

  /** One read-write transaction over items and vectors: all of it is written or none. */
  private async write(fn: () => Promise<void>): Promise<void> {
    try {
      await this.db.transaction('rw', this.db.items, this.db.vectors, fn);
    } catch (e) {
      throw isQuotaError(e) ? new StorageFullError() : e;
    }
  }

  /** Reads everything from IndexedDB once per worker life. */
  load(): Promise<void> {
    this.loaded ??= (async () => {
      const [items, vectors] = await Promise.all([this.db.items.toArray(), this.db.vectors.toArray()]);
      const byId = new Map(vectors.filter((v) => v.model === MODEL_TAG).map((v) => [v.id, v.vector]));
      for (const item of items) this.mem.put(item, byId.get(item.id));
    })();
    return this.loaded;
  }

  /** Ids of items still waiting for an embedding (model missing, or an import indexed in the background). */
  unembedded(): string[] {
    return [...this.mem.items()].filter((it) => !it.needsReview && !this.mem.vector(it.id)).map((it) => it.id);
  }

  /**
   * Adds items in one transaction: all of them or, on failure, none. Small additions are embedded before they are
   * written; with `deferEmbedding` (imports) the items are written at once and `embedPending` embeds them later,
   * so a large import is atomic and fast, and its indexing resumes if the worker is stopped.
   */
  async add(inputs: MemoryInput[], opts: { deferEmbedding?: boolean; now?: number } = {}): Promise<MemoryItem[]> {
    await this.load();
    const items = inputs.map((input) => createItem(input, opts.now ?? Date.now()));
    const vectors = opts.deferEmbedding ? null : await this.tryEmbed(items);
    await this.write(async () => {
      await this.db.items.bulkPut(items);
      if (vectors) await this.db.vectors.bulkPut(vectors.map((vector, i) => ({ id: items[i].id, model: MODEL_TAG, vector })));
      // An item replaced without a new vector must not keep its old one.
      else await this.db.vectors.bulkDelete(items.map((it) => it.id));
    });
    items.forEach((item, i) => {
      this.mem.put(item, vectors?.[i]);
      if (!vectors) this.mem.setVector(item.id, undefined);
    });
    return items;
  }

  async update(id: string, patch: MemoryPatch, now = Date.now()): Promise<MemoryItem> {
    await this.load();
    const current = this.mem.get(id);
    if (!current) throw new Error(`No memory with id ${id}.`);
    const { item, textChanged } = patchItem(current, patch, now);
    const reembed = textChanged || item.title !== current.title;
    const vector = reembed ? (await this.tryEmbed([item]))?.[0] : undefined;
    await this.write(async () => {
      await this.db.items.put(item);
      if (vector) await this.db.vectors.put({ id, model: MODEL_TAG, vector });
      else if (reembed) await this.db.vectors.delete(id);
    });
    this.mem.put(item);
    if (reembed) this.mem.setVector(id, vector);
    return item;
  }

  /** Marks items as used now (continuity and recency count it). */
  async touch(ids: string[], now = Date.now()): Promise<void> {
    await this.load();
    const items = ids.map((id) => this.mem.get(id)).filter((x): x is MemoryItem => !!x).map((it) => ({ ...it, lastUsedAt: now }));
    await this.db.items.bulkPut(items);
    for (const it of items) this.mem.put(it);
  }

  async remove(ids: string[]): Promise<MemoryItem[]> {
    await this.load();
    const removed = ids.map((id) => this.mem.get(id)).filter((x): x is MemoryItem => !!x);
    await this.write(async () => {
      await this.db.items.bulkDelete(ids);
      await this.db.vectors.bulkDelete(ids);
    });
    for (const id of ids) this.mem.delete(id);
    return removed;
  }

  /** Deletes every memory. */
  async clear(): Promise<void> {
    await this.load();
    await this.write(async () => {
      await this.db.items.clear();
      await this.db.vectors.clear();
    });
    this.mem = new IndexedMemory();
  }

  /**
   * Embeds items that have no vector yet, in small batches so ranking requests get the thread in between.
   * One run at a time: a second call joins the running one. Returns how many were embedded.
   */
  embedPending(onProgress?: (done: number, total: number) => void, batch = 16): Promise<number> {
    this.pending ??= (async () => {
      try {
        await this.load();
        const embedder = await this.getEmbedder();
        if (!embedder) return 0;
        const ids = this.unembedded();
        let done = 0;
        for (let i = 0; i < ids.length; i += batch) {
          // Items deleted or edited meanwhile are skipped; an edit embeds its own new text.
          const items = ids.slice(i, i + batch).map((id) => this.mem.get(id)).filter((it): it is MemoryItem => !!it && !it.needsReview && !this.mem.vector(it.id));
          if (items.length) {
            const vectors = await embedder.embed(items.map(embedText));
            const live = items.filter((it) => this.mem.get(it.id) === it);
            await this.db.vectors.bulkPut(live.map((it) => ({ id: it.id, model: MODEL_TAG, vector: vectors[items.indexOf(it)] })));
            for (const it of live) this.mem.setVector(it.id, vectors[items.indexOf(it)]);
          }
          done = Math.min(ids.length, i + batch);
          onProgress?.(done, ids.length);
        }
        return done;
      } finally {
        this.pending = undefined;
      }
    })();
    return this.pending;
  }

  private async tryEmbed(items: MemoryItem[]): Promise<Float32Array[] | null> {
    // Held-back items are not embedded until confirmed; embedPending() picks them up then.
    if (items.some((it) => it.needsReview)) return null;
    const embedder = await this.getEmbedder();
    if (!embedder) return null;
    try {
      return await embedder.embed(items.map(embedText));
    } catch {
      return null; // kept unembedded; embedPending() retries
    }
  }
}
