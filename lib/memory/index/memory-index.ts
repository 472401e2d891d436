import type { ItemHead, MemoryItem } from '../types';
import type { MemoryView } from './memory-view';
import { LexicalIndex, RANK_LEXICAL } from './lexical-index';
import { situationKeys } from './situation-keys';
import { VectorIndex } from './vector-index';
import { contentPrint, passagesOf } from './item-text';
import { ownerOf, PASSAGE_PIECES, passageKey, passageKeys, type Passage } from './passages';
import { ResidentItems } from './resident-item';
import { textReadsAsDecision } from './decision-words';
import { HydratedItems, type ItemReader } from './hydrated-items';

export { passageKey };

/**
 * The memory held for ranking: items, vectors, context vectors, the BM25 index, the few items that may need a
 * guarantee, and items keyed by person, site and URL, so the ranker finds what it must guarantee without scanning all
 * memory.
 *
 * With an `ItemReader` (the extension's store) it keeps each item's head (`ItemHead`: every field but the text and
 * the title, which are most of an item's bytes) and reads whole items only when asked (`hydrate`): the texts of
 * 100k items stay in IndexedDB, not in the worker's heap. Without one (Node: tests, bench, `arrayMemoryView`) it
 * keeps the items whole and `hydrate` reads nothing. The same code ranks both.
 */
export class IndexedMemory implements MemoryView {
  /** Heads (whole items without a reader). */
  private readonly byId = new Map<string, ItemHead>();
  /** What `put` keeps: each item's copy with the parts items repeat shared (lib/memory/index/resident-item.ts). */
  private resident = new ResidentItems();
  /** `contentPrint` of each item, made while its text was at hand. */
  private prints = new Map<string, number>();
  /**
   * int8 codes + a scale per vector in typed arrays (388 bytes per item instead of 1,536): lib/memory/index/vector-index.ts.
   * Passages' vectors are grouped under their item.
   */
  private vectors = passageVectors();
  /** Embeddings of `contextText(item, previous item of its thread)`: the item read with the turn before it. */
  private contextVectors = new VectorIndex();
  readonly lexicalIndex = new LexicalIndex(RANK_LEXICAL);
  private flaggedIds = new Set<string>();
  /** Items held back (`needsReview`): in no index, searched by their own text where memory is browsed. */
  private heldIds = new Set<string>();
  private flaggedList?: ItemHead[];
  /**
   * Items whose text reads as a decision (`textReadsAsDecision`), whatever their kind (a kind can change without the
   * text), noted while the text is at hand.
   */
  private decisionTexts = new Set<string>();
  private byKey = new Map<string, Set<string>>();
  /** How many passage vectors an item of several passages has (items of one passage are not listed). */
  private parts = new Map<string, number>();
  /** Passages of items split into several, made on first use (dropped when the item changes). */
  private passageCache = new Map<string, Passage[]>();
  /**
   * Items long enough to need counting that were found to fit one passage (dropped when the item changes): the
   * ranker asks of every candidate, and counting a medium item's word pieces at each ranking cost more than keeping
   * its id.
   */
  private fitsWhole = new Set<string>();

  /** The whole items `get` answers with, and `hydrate` reads (lib/memory/index/hydrated-items.ts). */
  private readonly hydrated: HydratedItems;

  constructor(private readonly reader?: ItemReader) {
    this.hydrated = new HydratedItems(reader, this.byId);
  }

  get size(): number {
    return this.byId.size;
  }
  /** Every item's head. */
  items(): Iterable<ItemHead> {
    return this.byId.values();
  }
  head(id: string): ItemHead | undefined {
    return this.byId.get(id);
  }
  /** Whether `get(id)` answers now, without a `hydrate` (an item held whole, or read since its last change). */
  hasText(id: string): boolean {
    return this.hydrated.hasText(id);
  }
  /** Whether the item records a decision: evidence whose text reads as one, known without its text. */
  isDecision(id: string): boolean {
    return this.decisionTexts.has(id) && this.byId.get(id)?.kind === 'evidence';
  }
  /** Whether the item's text reads as a decision, whatever its kind (what the pack keeps). */
  textDecides(id: string): boolean {
    return this.decisionTexts.has(id);
  }
  /** The whole item: held, or brought by a `hydrate` since its last change. Throws `NotHydratedError` otherwise. */
  get(id: string): MemoryItem | undefined {
    return this.hydrated.get(id);
  }
  /** Reads the whole items of these ids and keeps them for `get` a while (`HydratedItems.hydrate`). */
  hydrate(ids: Iterable<string>, keep = true): Promise<Map<string, MemoryItem>> {
    return this.hydrated.hydrate(ids, keep);
  }
  /** `contentPrint` of the item's title, text and captions (0: not held). */
  contentPrint(id: string): number {
    return this.prints.get(id) ?? 0;
  }
  /** A copy of the item's vector (its first passage's), decoded from its int8 codes (allocates: use hasVector for a yes/no). */
  vector(id: string): Float32Array | undefined {
    return this.vectors.get(id);
  }
  /** Whether the item's vectors (every passage's) are held. */
  hasVector(id: string): boolean {
    return this.vectors.has(id);
  }
  vectorEntries(): Iterable<[string, Float32Array]> {
    return this.vectors.entries();
  }
  /**
   * Weighted mean cosine of the queries with every stored vector, passages included, best `limit` only, in one
   * typed-array pass; an item of several passages scores its best passage's.
   */
  denseScores(queries: Float32Array[], weights: number[], limit?: number): Map<string, number> {
    return this.vectors.scores(queries, weights, limit, this.parts.size > 0);
  }
  /** The passages of an item: its whole text as one unless it is longer than the model's window. */
  passages(id: string): readonly Passage[] {
    const item = this.get(id);
    if (!item) return [];
    if (this.fitsWhole.has(id)) return [{ start: 0, end: item.text.length }];
    let ps = this.passageCache.get(id);
    if (!ps) {
      ps = passagesOf(item);
      if (ps.length > 1) this.passageCache.set(id, ps);
      else if (item.text.length > PASSAGE_PIECES) this.fitsWhole.add(id);
    }
    return ps;
  }
  /** Weighted mean cosine of the queries with each passage vector of an item, in passage order (none held: empty). */
  passageScores(id: string, queries: Float32Array[], weights: number[]): number[] {
    return this.vectors.scoresOf(passageKeys(id, this.parts.get(id) ?? (this.vectors.has(id) ? 1 : 0)), queries, weights);
  }
  /** How many items have their vectors. */
  get vectorCount(): number {
    let extra = 0;
    for (const n of this.parts.values()) extra += n - 1;
    return this.vectors.size - extra;
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
  flagged(): Iterable<ItemHead> {
    return (this.flaggedList ??= [...this.flaggedIds].map((id) => this.byId.get(id)!));
  }
  /** The items held back for review (few: what looked like a secret). */
  held(): Iterable<ItemHead> {
    return [...this.heldIds].map((id) => this.byId.get(id)!);
  }
  situated(keys: string[]): Iterable<ItemHead> {
    const ids = new Set<string>();
    for (const k of keys) for (const id of this.byKey.get(k) ?? []) ids.add(id);
    return [...ids].map((id) => this.byId.get(id)!);
  }

  /** The vectors' int8 codes and scales (passages' under `passageKey`s), for the store's persisted pack (lib/memory/pack.ts). */
  packedVectors(): ReturnType<VectorIndex['packed']> {
    return this.vectors.packed();
  }
  /** Adds vectors already quantised (from the store's pack); see VectorIndex.addPacked. */
  addPackedVectors(ids: string[], slots: ArrayLike<number>, dim: number, codes: Int8Array, scales: Float32Array): void {
    this.vectors.addPacked(ids, slots, dim, codes, scales);
    for (const key of ids) {
      const id = ownerOf(key);
      if (id !== key) this.parts.set(id, Math.max(this.parts.get(id) ?? 1, Number(key.slice(id.length + 1)) + 1));
    }
  }
  packedContextVectors(): ReturnType<VectorIndex['packed']> {
    return this.contextVectors.packed();
  }
  addPackedContextVectors(ids: string[], slots: ArrayLike<number>, dim: number, codes: Int8Array, scales: Float32Array): void {
    this.contextVectors.addPacked(ids, slots, dim, codes, scales);
  }
  /** Gives back the room the indexes grew into but do not use (once a load or an import is done). */
  trim(): void {
    this.vectors.trim();
    this.contextVectors.trim();
    this.lexicalIndex.trim();
  }

  /** Forgets every vector and context vector (they were made by another model); items and the BM25 index stay. */
  clearVectors(): void {
    this.vectors = passageVectors();
    this.parts.clear();
    this.contextVectors = new VectorIndex();
  }

  /**
   * Adds or replaces an item (and its vector, when given) in every index. `known`: what the caller already has of
   * the item's entries (the store's pack, at load), so it is not worked out from the text again.
   * What is kept is a copy equal to `item` whose repeated parts are shared and frozen (`get` returns it).
   */
  put(given: MemoryItem, vector?: Float32Array | Float32Array[], known: KnownEntries = {}): void {
    const content = known.content ?? contentPrint(given);
    const item = this.resident.of(given);
    this.keep(item, this.reader ? headOf(item) : item, content, vector, known, item);
  }

  /**
   * Adds an item by its head alone (a start's rows not written since the pack, lib/memory/store-load.ts): what `put`
   * would work out from the text is known. Only where heads are kept (with a reader), since the text is not. The head
   * becomes the one kept (its repeated parts shared in place): the caller gives it up.
   */
  putHead(head: ItemHead, known: Required<Pick<KnownEntries, 'content' | 'textDecides'>> & KnownEntries): void {
    if (!this.reader) throw new Error('putHead needs an index that reads texts from the store.');
    // Without its text, an item's words can only come with it.
    if (!known.lexicalLoaded && !head.needsReview) throw new Error('putHead needs the item\'s BM25 entry loaded.');
    const kept = this.resident.adopt(head);
    this.keep(kept, kept, known.content, undefined, known);
  }

  /** `put`'s and `putHead`'s indexing of `item`, whose head is kept as `head` (`whole`: the item, when its text is at hand). */
  private keep(item: ItemHead, head: ItemHead, content: number, vector: Float32Array | Float32Array[] | undefined, known: KnownEntries, whole?: MemoryItem): void {
    this.flaggedList = undefined;
    const old = this.byId.get(item.id);
    if (old) this.unkey(old);
    this.passageCache.delete(item.id);
    this.fitsWhole.delete(item.id);
    this.hydrated.dropHydrated(item.id);
    this.prints.set(item.id, content);
    this.byId.set(item.id, head);
    if (item.needsReview || item.id.includes('\u0000')) {
      // Held back (e.g. it looks like a secret): kept, but in no index until the user confirms it.
      if (item.needsReview) this.heldIds.add(item.id);
      this.setVectors(item.id, undefined);
      this.contextVectors.delete(item.id);
      this.lexicalIndex.remove(item.id);
      return;
    }
    if (vector) this.setVectors(item.id, Array.isArray(vector) ? vector : [vector]);
    if (!known.lexicalLoaded && whole) this.lexicalIndex.addItem(whole);
    if (isFlagged(item)) this.flaggedIds.add(item.id);
    if (known.textDecides ?? (!!whole && textReadsAsDecision(whole.text))) this.decisionTexts.add(item.id);
    for (const k of situationKeys(item)) {
      const set = this.byKey.get(k) ?? new Set<string>();
      set.add(item.id);
      this.byKey.set(k, set);
    }
  }

  /** The row of an item held was stamped again (lib/memory/item-revs.ts): its head carries the new revision. */
  restamped(id: string, rev: number): void {
    const head = this.byId.get(id);
    if (head) head.rev = rev;
  }

  setVector(id: string, vector: Float32Array | undefined): void {
    this.setVectors(id, vector ? [vector] : undefined);
  }

  /** An item's vectors, one per passage in passage order (undefined: none), replacing what it had. */
  setVectors(id: string, vectors: Float32Array[] | undefined): void {
    const had = this.parts.get(id) ?? 1;
    for (let k = 0; k < had; k++) this.vectors.delete(passageKey(id, k));
    this.parts.delete(id);
    if (!vectors?.length) return;
    vectors.forEach((v, k) => this.vectors.set(passageKey(id, k), v));
    if (vectors.length > 1) this.parts.set(id, vectors.length);
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
    this.passageCache.delete(id);
    this.fitsWhole.delete(id);
    this.hydrated.dropHydrated(id);
    this.prints.delete(id);
    this.setVectors(id, undefined);
    this.contextVectors.delete(id);
    this.lexicalIndex.remove(id);
  }

  private unkey(item: ItemHead): void {
    this.flaggedIds.delete(item.id);
    this.decisionTexts.delete(item.id);
    this.heldIds.delete(item.id);
    for (const k of situationKeys(item)) this.byKey.get(k)?.delete(item.id);
  }
}

/** What a caller of `IndexedMemory.put` already has of an item's entries. */
export interface KnownEntries {
  /** The item's BM25 entry is already in `lexicalIndex` (loaded with `LexicalIndex.loadPacked`): not tokenised. */
  lexicalLoaded?: boolean;
  /** Its `contentPrint`. */
  content?: number;
  /** Whether its text reads as a decision (`textReadsAsDecision`). */
  textDecides?: boolean;
}

/** A MemoryView over plain arrays (Node, tests, the bench), with the same indexes the extension's store holds. */
export function arrayMemoryView(
  items: MemoryItem[],
  /** An item's vector, or one per passage (`passageEmbedTexts`). */
  vectors: Map<string, Float32Array | Float32Array[]>,
  contextVectors?: Map<string, Float32Array>,
): IndexedMemory {
  const mem = new IndexedMemory();
  for (const item of items) mem.put(item, vectors.get(item.id));
  if (contextVectors) for (const [id, v] of contextVectors) if (mem.get(id)) mem.setContextVector(id, v);
  return mem;
}

/** An empty vector index whose passages' vectors are grouped under their item (`ownerOf`). */
function passageVectors(): VectorIndex {
  return new VectorIndex(undefined, undefined, ownerOf);
}

/** The item without its text and title (what a store-backed index keeps, and its pack): a copy. */
export function headOf(item: MemoryItem | ItemHead): ItemHead {
  const { text: _text, title: _title, ...head } = item as MemoryItem;
  return head;
}

/** Pinned items and instructions: few, and always considered. */
export function isFlagged(item: ItemHead): boolean {
  return item.pinned || item.kind === 'instruction' || item.sites.length > 0;
}
