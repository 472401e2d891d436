import type { MemoryItem } from '../types';
import type { MemoryView } from './memory-view';
import { LexicalIndex, RANK_LEXICAL } from './lexical-index';
import { hostOf } from '../../core/hosts';
import { personKey } from './situation-keys';
import { VectorIndex } from './vector-index';

/**
 * The memory held for ranking: items, vectors, context vectors, the BM25 index, the few items that may need a guarantee, and items keyed by person, site and URL, so the ranker finds what
 * it must guarantee without scanning all memory. The extension's store keeps one in step with IndexedDB; Node
 * (tests, bench) builds one from arrays.
 */
export class IndexedMemory implements MemoryView {
  private byId = new Map<string, MemoryItem>();
  /** int8 codes + a scale per vector in typed arrays (388 bytes per item instead of 1,536): lib/memory/index/vector-index.ts. */
  private vectors = new VectorIndex();
  /** Embeddings of `contextText(item, previous item of its thread)`: the item read with the turn before it. */
  private contextVectors = new VectorIndex();
  readonly lexicalIndex = new LexicalIndex(RANK_LEXICAL);
  private flaggedIds = new Set<string>();
  private flaggedList?: MemoryItem[];
  private byKey = new Map<string, Set<string>>();

  get size(): number {
    return this.byId.size;
  }
  items(): Iterable<MemoryItem> {
    return this.byId.values();
  }
  get(id: string): MemoryItem | undefined {
    return this.byId.get(id);
  }
  /** A copy of the item's vector, decoded from its int8 codes (allocates: use hasVector for a yes/no). */
  vector(id: string): Float32Array | undefined {
    return this.vectors.get(id);
  }
  hasVector(id: string): boolean {
    return this.vectors.has(id);
  }
  vectorEntries(): Iterable<[string, Float32Array]> {
    return this.vectors.entries();
  }
  /** Weighted mean cosine of every stored vector with the queries, best `limit` only, in one typed-array pass. */
  denseScores(queries: Float32Array[], weights: number[], limit?: number): Map<string, number> {
    return this.vectors.scores(queries, weights, limit);
  }
  /** How many items have a vector. */
  get vectorCount(): number {
    return this.vectors.size;
  }
  contextVector(id: string): Float32Array | undefined {
    return this.contextVectors.get(id);
  }
  /** Weighted mean cosine of the queries with the context vectors of these items (those that have one). */
  contextScores(ids: Iterable<string>, queries: Float32Array[], weights: number[]): Map<string, number> {
    return this.contextVectors.scoresFor(ids, queries, weights);
  }
  /** How many items have a context vector. */
  get contextCount(): number {
    return this.contextVectors.size;
  }
  hasContextVector(id: string): boolean {
    return this.contextVectors.has(id);
  }
  /** The flagged items in flagging order, kept as an array until the memory changes (read on every ranking). */
  flagged(): Iterable<MemoryItem> {
    return (this.flaggedList ??= [...this.flaggedIds].map((id) => this.byId.get(id)!));
  }
  situated(keys: string[]): Iterable<MemoryItem> {
    const ids = new Set<string>();
    for (const k of keys) for (const id of this.byKey.get(k) ?? []) ids.add(id);
    return [...ids].map((id) => this.byId.get(id)!);
  }

  /** The vectors' int8 codes and scales, for the store's persisted pack (lib/memory/store.ts). */
  packedVectors(): ReturnType<VectorIndex['packed']> {
    return this.vectors.packed();
  }
  /** Adds vectors already quantised (from the store's pack); see VectorIndex.addPacked. */
  addPackedVectors(ids: string[], slots: ArrayLike<number>, dim: number, codes: Int8Array, scales: Float32Array): void {
    this.vectors.addPacked(ids, slots, dim, codes, scales);
  }
  packedContextVectors(): ReturnType<VectorIndex['packed']> {
    return this.contextVectors.packed();
  }
  addPackedContextVectors(ids: string[], slots: ArrayLike<number>, dim: number, codes: Int8Array, scales: Float32Array): void {
    this.contextVectors.addPacked(ids, slots, dim, codes, scales);
  }
  /** Forgets every vector and context vector (they were made by another model); items and the BM25 index stay. */
  clearVectors(): void {
    this.vectors = new VectorIndex();
    this.contextVectors = new VectorIndex();
  }

  /**
   * Adds or replaces an item (and its vector, when given) in every index. `lexicalLoaded`: the item's BM25 entry is
   * already in `lexicalIndex` (loaded from the store's pack with LexicalIndex.loadPacked), so it is not tokenised.
   */
  put(item: MemoryItem, vector?: Float32Array, lexicalLoaded = false): void {
    this.flaggedList = undefined;
    const old = this.byId.get(item.id);
    if (old) this.unkey(old);
    this.byId.set(item.id, item);
    if (item.needsReview) {
      // Held back (e.g. it looks like a secret): kept, but in no index until the user confirms it.
      this.vectors.delete(item.id);
      this.contextVectors.delete(item.id);
      this.lexicalIndex.remove(item.id);
      return;
    }
    if (vector) this.vectors.set(item.id, vector);
    if (!lexicalLoaded) this.lexicalIndex.addItem(item);
    if (isFlagged(item)) this.flaggedIds.add(item.id);
    for (const k of situationKeys(item)) {
      const set = this.byKey.get(k) ?? new Set<string>();
      set.add(item.id);
      this.byKey.set(k, set);
    }
  }

  setVector(id: string, vector: Float32Array | undefined): void {
    if (vector) this.vectors.set(id, vector);
    else this.vectors.delete(id);
  }

  /**
   * The item's context vector: the embedding of `contextText(item, prev)` where `prev` is the item before it in its
   * thread. Optional; without it the item is matched by its own vector alone. Recompute it when the item or its
   * predecessor changes (an item's edit or deletion makes its successor's context vector stale).
   */
  setContextVector(id: string, vector: Float32Array | undefined): void {
    if (vector && !this.byId.get(id)?.needsReview) this.contextVectors.set(id, vector);
    else this.contextVectors.delete(id);
  }

  delete(id: string): void {
    const old = this.byId.get(id);
    if (!old) return;
    this.flaggedList = undefined;
    this.unkey(old);
    this.byId.delete(id);
    this.vectors.delete(id);
    this.contextVectors.delete(id);
    this.lexicalIndex.remove(id);
  }

  private unkey(item: MemoryItem): void {
    this.flaggedIds.delete(item.id);
    for (const k of situationKeys(item)) this.byKey.get(k)?.delete(item.id);
  }
}

/** A MemoryView over plain arrays (Node, tests, the bench), with the same indexes the extension's store holds. */
export function arrayMemoryView(
  items: MemoryItem[],
  vectors: Map<string, Float32Array>,
  contextVectors?: Map<string, Float32Array>,
): IndexedMemory {
  const mem = new IndexedMemory();
  for (const item of items) mem.put(item, vectors.get(item.id));
  if (contextVectors) for (const [id, v] of contextVectors) if (mem.get(id)) mem.setContextVector(id, v);
  return mem;
}

/** Pinned items and instructions: few, and always considered. */
export function isFlagged(item: MemoryItem): boolean {
  return item.pinned || item.kind === 'instruction' || item.sites.length > 0;
}

/** Keys under which an item is listed for `MemoryView.situated`: person, site, URL. */
export function situationKeys(item: MemoryItem): string[] {
  const keys: string[] = [];
  for (const p of item.people) keys.push('person:' + personKey(p));
  for (const s of item.sites) keys.push('site:' + s.toLowerCase());
  const url = item.source?.url;
  if (url) {
    keys.push('url:' + url);
    const h = hostOf(url);
    if (h) keys.push('site:' + h);
  }
  return keys;
}
