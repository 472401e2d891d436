import type { Embedder } from '../embed/embedder';
import { IndexedMemory } from './index/memory-index';
import type { Table } from 'dexie';
import { READ_SLICE, readInSlices, type BackstoryDB } from './db';
import { writeSynced, type SyncApplied, type SyncedWriteOptions } from './synced-write';
import type { ImportCounts } from './import-plan';
import { intake, type Provenance } from './intake';
import { createItem } from './normalize';
import { ContextVectors, donatedVectors, sameTextIndex, type EmbedJob } from './context-vectors';
import { inBatches, indexingEngine, MemoryProgress, perJob, textCount } from './embed-batches';
import { buildPack, PackSchedule } from './pack';
import { loadStored } from './store-load';
import { addItems, importItems, removeItems, touchItems, updateItem, type StoreParts } from './store-writes';
import { pendingIds, pendingJobs, storeMadeVectors } from './store-indexing';
import { loadTokenCounter } from './tokens';
import { isQuotaError, StorageFullError } from './storage-full';
import type { ItemHead, MemoryInput, MemoryItem, MemoryPatch } from './types';

export type { ImportCounts } from './import-plan';
export type { SyncApplied, SyncedWriteOptions } from './synced-write';
export { StorageFullError } from './storage-full';

/**
 * Memories an indexing run reads and embeds at a time: their texts are held only while their vectors are made. A run
 * that read every waiting text first held a 100k-item memory's (a first sync, a large import) in the worker through
 * the whole run: past 500 MB.
 */
const INDEX_WINDOW = 1_000;

/**
 * The memory: IndexedDB is the truth; an IndexedMemory (item heads, vectors, context vectors, the BM25 index) is kept
 * in step with it so ranking searches without the database, and reads from it only the texts of the few items it
 * ranks (`IndexedMemory.hydrate`). Runs in the service worker and in Node (fake-indexeddb).
 * Every write goes to IndexedDB first, in one transaction, and only then to the in-memory indexes.
 */
export class MemoryStore {
  private mem: IndexedMemory;
  private loaded?: Promise<void>;
  private pending?: Promise<number>;
  /**
   * The model the vectors held were made with (`Embedder.modelId`): vectors are read and written under it only.
   * When an embedder of another model is used, every vector is dropped and embedded again (useModel).
   */
  private model?: string;
  /** Which context vectors are held, and whether they are stale. */
  private contexts = new ContextVectors(() => this.mem);
  /** Which engine embedded the last background batch (e.g. `offscreen/wasm/q8x2`), for status and the bench. */
  indexBackend?: string;

  constructor(
    private readonly db: BackstoryDB,
    /** Resolves to null when the model cannot load: items are then stored unembedded and ranked lexically. */
    private readonly getEmbedder: () => Promise<Embedder | null>,
    /**
     * The embedder for background indexing (embedPending): in Chrome, the offscreen document (one engine per core).
     * If it fails, indexing goes on with getEmbedder's.
     */
    private readonly getIndexEmbedder: () => Promise<Embedder | null> = getEmbedder,
  ) {
    this.mem = this.emptyMemory();
  }

  /** An index whose items' texts and titles stay in IndexedDB until a ranking or a page reads them. */
  private emptyMemory(): IndexedMemory {
    return new IndexedMemory((ids) => readInSlices(ids, (part) => this.db.items.bulkGet(part)));
  }

  /** The memory as the ranker reads it. */
  get view(): IndexedMemory {
    return this.mem;
  }
  get size(): number {
    return this.mem.size;
  }
  /** An item's head (all but its text and title), without reading IndexedDB. */
  head(id: string): ItemHead | undefined {
    return this.mem.head(id);
  }
  /** The whole item. */
  async read(id: string): Promise<MemoryItem | undefined> {
    await this.load();
    return (await this.mem.hydrate([id])).get(id);
  }
  /** Whole items, those that exist, in the order asked. */
  async readMany(ids: string[]): Promise<MemoryItem[]> {
    await this.load();
    return [...(await this.mem.hydrate(ids, false)).values()];
  }
  /** Every item's head. */
  items(): Iterable<ItemHead> {
    return this.mem.items();
  }
  /** Every item, whole (read from IndexedDB), in id order. */
  async all(): Promise<MemoryItem[]> {
    await this.load();
    return this.db.items.toArray();
  }
  /** The model of the vectors held, if any are. */
  get vectorModel(): string | undefined {
    return this.model;
  }

  /**
   * Vectors from now on are `model`'s. If the vectors held were made by another model (a changed model file, the
   * fallback model), they are all dropped here, in memory, so the two never mix in a ranking; embedPending then embeds
   * every item again, and IndexedDB's rows are replaced as it goes.
   */
  useModel(model: string): void {
    if (this.model === model) return;
    if (this.model !== undefined && (this.mem.vectorCount || this.mem.contextCount)) {
      this.mem.clearVectors();
      this.contexts.prints.clear();
      this.noteChanges(0, true);
    }
    this.model = model;
  }

  /** The last mutation queued (see inTurn). */
  private turns: Promise<unknown> = Promise.resolve();
  /** Writes of the pack begun (see savePack). */
  private packWrites = 0;

  /**
   * Runs a mutation of the stored items once every mutation queued before it is done, so each one reads and changes
   * what the ones before it left (nothing deleted comes back, the later of two edits stays). Slow work never runs in
   * a turn: embedding happens outside, and its vectors are stored in a later turn only if the item still has the text
   * they were made from (storeVectors).
   */
  private inTurn<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.turns.then(() => this.load()).then(fn);
    this.turns = run.catch(() => undefined);
    return run;
  }

  /** One read-write transaction over items, vectors and context vectors: all of it is written or none. */
  private async write(fn: () => Promise<void>, changed = 1, more: Table[] = []): Promise<void> {
    this.writing++;
    try {
      await this.db.transaction('rw', [this.db.items, this.db.vectors, this.db.contexts, ...more], fn);
    } catch (e) {
      throw isQuotaError(e) ? new StorageFullError() : e;
    } finally {
      // The caller updates memory right after this resolves (same task), before the pack timer can fire.
      this.writing--;
      this.noteChanges(changed);
    }
  }

  /** What a write inside a turn reaches (lib/memory/store-writes.ts, synced-write.ts). */
  private parts(): StoreParts {
    return { db: this.db, mem: this.mem, contexts: this.contexts, write: (fn, n, more) => this.write(fn, n, more) };
  }

  /**
   * Reads everything from IndexedDB once per worker life (lib/memory/store-load.ts), then rewrites the pack when it
   * was missing or partly stale. A load that fails (an IndexedDB error, the token table unreadable) is forgotten with
   * what it had read, so the next request reads again instead of failing until the worker restarts.
   */
  load(): Promise<void> {
    this.loaded ??= loadStored(this.db, this.mem, this.contexts, (found) => (this.model ??= found)).then(
      ({ stale, rewrite, unstamped }) => {
        this.noteChanges(stale, rewrite);
        if (unstamped.length) void this.stampRows(unstamped).catch(() => undefined);
      },
      (e: unknown) => {
        this.mem = this.emptyMemory();
        this.contexts.prints.clear();
        this.loaded = undefined;
        throw e;
      },
    );
    return this.loaded;
  }

  /**
   * Gives rows without a revision one (written before revisions, or by a page: lib/memory/item-revs.ts), a slice at
   * a time in turns of their own, so the next start takes their heads from the pack; the pack is rewritten after.
   */
  private async stampRows(ids: string[]): Promise<void> {
    for (let i = 0; i < ids.length; i += READ_SLICE) {
      const part = ids.slice(i, i + READ_SLICE);
      await this.inTurn(async () => {
        let rows: MemoryItem[] = [];
        await this.write(async () => {
          rows = (await this.db.items.bulkGet(part)).filter((row): row is MemoryItem => !!row && row.rev === undefined);
          await this.db.items.bulkPut(rows);
        }, 0);
        for (const row of rows) if (row.rev !== undefined) this.mem.restamped(row.id, row.rev);
      });
    }
    this.packs.changed(ids.length, true);
  }

  /** When the pack is rewritten (after enough changes, once changes pause, never while typing or indexing). */
  private packs = new PackSchedule(() => this.savePack({ whenIdle: true }), () => this.mem.size);
  /** Writes between IndexedDB and memory right now (a pack written then would miss them). */
  private writing = 0;

  private noteChanges(n: number, force = false): void {
    this.packs.changed(n, force);
    if (n > 0) for (const fn of this.watchers) fn();
  }

  private readonly watchers = new Set<() => void>();

  /** Calls `fn` after each write that changed items (sync follows memory this way); returns the unwatch. */
  watch(fn: () => void): () => void {
    this.watchers.add(fn);
    return () => this.watchers.delete(fn);
  }

  /**
   * A ranking is being served: a pack rewrite due now waits until rankings pause (the rewrite holds the worker's
   * thread for about a second per 10k items, which the user would feel while typing).
   */
  notePressure(): void {
    this.packs.pressure();
  }

  /**
   * Writes the in-memory indexes as the pack (PackRow); the next start loads them in one read. With `whenIdle` (the
   * timer's rewrite) it waits while a background indexing run is still adding vectors (it would be stale at once).
   */
  async savePack(opts: { whenIdle?: boolean } = {}): Promise<void> {
    await this.load();
    if (this.writing) return this.packs.schedule(); // a write is between IndexedDB and memory: try again later
    if (opts.whenIdle && this.pending) return this.packs.afterIndexing(); // it would be stale at once
    this.packs.written();
    // A later write of the pack, begun while this one's digest was taken, writes the newer indexes.
    const gen = ++this.packWrites;
    const row = await buildPack(this.mem, this.model ?? '', this.contexts.prints);
    if (gen !== this.packWrites) return;
    this.mem.trim(); // changes have paused (a load, an import): the indexes give back the room they grew into
    await this.db.transaction('rw', this.db.packs, this.db.packInfo, async () => {
      await this.db.packs.put(row);
      await this.db.packInfo.put({ key: row.key, version: row.version, rev: row.rev });
    });
  }

  /** Ids of items still waiting for an embedding (model missing, or an import indexed in the background). */
  unembedded(): string[] {
    return [...this.mem.items()].filter((it) => !it.needsReview && !this.mem.hasVector(it.id)).map((it) => it.id);
  }

  /**
   * Adds items in one transaction: all of them or, on failure, none. Small additions are then embedded (their context
   * vectors with them) before this resolves; with `deferEmbedding` (imports) `embedPending` embeds them later, so a
   * large import is atomic and fast, and its indexing resumes if the worker is stopped.
   */
  async add(inputs: MemoryInput[], provenance: Provenance, opts: { deferEmbedding?: boolean; now?: number } = {}): Promise<MemoryItem[]> {
    await loadTokenCounter(); // items are counted as they are made, before their turn
    const items = inputs.map((input) => createItem(intake(input, provenance), opts.now ?? Date.now()));
    const jobs = await this.inTurn(() => addItems(this.parts(), items, opts.deferEmbedding));
    await this.embedNow(jobs);
    return items;
  }

  /** Applies `patch` to the item as stored when its turn comes, then embeds it again if its text or title changed. */
  async update(id: string, patch: MemoryPatch, now = Date.now()): Promise<MemoryItem> {
    const { item, jobs } = await this.inTurn(() => updateItem(this.parts(), id, patch, now));
    await this.embedNow(jobs);
    return item;
  }

  /**
   * Commits an import's items in one transaction: all of them or, on failure, none. Items are keyed by id: a new id is
   * added; a known id with the same content is left as it is (vectors and all); a known id with changed content is
   * replaced and embedded again later by `embedPending` (its vector is kept when the text the model sees did not
   * change). What the user decided about an item (pinned, never include, archived, held, last used) stays unless the
   * import itself sets it. An added or updated item's `source.importId` is this import; an unchanged one keeps the
   * import that brought it, so removing the later import leaves it.
   */
  commitImport(inputs: MemoryInput[], opts: { importId: string; provenance: Provenance; now?: number }): Promise<ImportCounts> {
    return this.inTurn(() => importItems(this.parts(), inputs, opts));
  }

  /**
   * Writes what sync merged from the user's other devices, in one turn and one transaction with the rows sync notes of
   * it (lib/memory/synced-write.ts).
   */
  applySynced(puts: MemoryInput[], deletes: string[], opts: SyncedWriteOptions = {}): Promise<SyncApplied> {
    return this.inTurn(() => writeSynced(this.parts(), puts, deletes, opts));
  }

  /** Deletes every item the import brought (`source.importId`); returns them. */
  removeImport(importId: string): Promise<MemoryItem[]> {
    return this.inTurn(() => removeItems(this.parts(), [...this.mem.items()].filter((it) => it.source.importId === importId).map((it) => it.id)));
  }

  /** Marks items as used now (continuity and recency count it). */
  touch(ids: string[], now = Date.now()): Promise<void> {
    return this.inTurn(() => touchItems(this.parts(), ids, now));
  }

  remove(ids: string[]): Promise<MemoryItem[]> {
    return this.inTurn(() => removeItems(this.parts(), ids));
  }

  /** Deletes every memory. */
  clear(): Promise<void> {
    return this.inTurn(async () => {
      await this.write(async () => {
        await this.db.items.clear();
        await this.db.vectors.clear();
        await this.db.contexts.clear();
      }, Infinity);
      this.mem = this.emptyMemory();
      this.contexts.prints.clear();
    });
  }

  /** Makes these vectors now (small adds and edits); left to embedPending if the model fails. */
  private async embedNow(jobs: EmbedJob[]): Promise<void> {
    if (!jobs.length) return;
    const embedded = await this.tryEmbed(jobs.flatMap((j) => j.texts));
    if (embedded) await this.storeVectors(jobs, perJob(jobs, embedded.vectors), embedded.model);
  }

  /** Stores made vectors in a turn of their own (`storeMadeVectors`, lib/memory/store-indexing.ts). */
  private storeVectors(jobs: EmbedJob[], vectors: Float32Array[][], model: string): Promise<void> {
    return this.inTurn(() => storeMadeVectors(this.parts(), jobs, vectors, model, this.model));
  }

  /**
   * Embeds items that have no vectors yet (one per passage) and the context vectors threaded items lack, in small
   * batches so ranking requests get the thread in between; each batch is stored in one transaction, an item's vectors
   * all together, so an item whose run was stopped (a worker stop) is still waiting and is embedded by the next run.
   * One run at a time: a second call joins the running one. Returns how many vectors were made; progress counts
   * memories (one is done when its own vectors and its context vector are stored), as the panels say it.
   */
  embedPending(onProgress?: (done: number, total: number) => void, batch = 16): Promise<number> {
    this.pending ??= this.indexPending(onProgress, batch).finally(() => {
      this.pending = undefined;
      this.packs.indexingEnded();
    });
    return this.pending;
  }

  private async indexPending(onProgress: ((done: number, total: number) => void) | undefined, batch: number): Promise<number> {
    await this.load();
    const embedder = await this.getIndexEmbedder();
    if (!embedder) return 0;
    this.useModel(embedder.modelId);
    const { own, threaded } = pendingIds(() => this.mem, this.contexts, this.unembedded());
    const ids = [...new Set([...own, ...threaded])];
    // Nothing waiting (every worker start checks): no same-text index, which reads every item.
    if (!ids.length) return 0;
    // Memories, not texts (those of later windows are not read yet): at least as many texts as this.
    embedder.runSize?.(ids.length);
    const progress = new MemoryProgress(ids.length, onProgress);
    const engine = indexingEngine(embedder, this.getEmbedder);
    const model = embedder.modelId;
    let count: ((texts: string[]) => number[]) | undefined;
    let done = 0;
    const stored = async (part: EmbedJob[], vectors: Float32Array[][]) => {
      await this.storeVectors(part, vectors, model);
      done += textCount(part);
      progress.stored(part);
    };
    const ownSet = new Set(own);
    const threadedSet = new Set(threaded);
    for (let at = 0; at < ids.length; at += INDEX_WINDOW) {
      const window = ids.slice(at, at + INDEX_WINDOW);
      const jobs = await pendingJobs(() => this.mem, this.contexts, window.filter((id) => ownSet.has(id)), window.filter((id) => threadedSet.has(id)));
      progress.expect(window, jobs);
      // Items whose texts another item already has vectors for (an earlier window's included) take those; repeats
      // within the window are made once.
      const donated = await donatedVectors(
        jobs, sameTextIndex(this.mem), (ids) => this.mem.hydrate(ids, false), (ids) => this.db.vectors.bulkGet(ids), this.model,
      );
      const given = jobs.flatMap((job, i) => (donated[i] ? [{ job, vs: donated[i] }] : []));
      if (given.length) await stored(given.map((g) => g.job), given.map((g) => g.vs));
      const toMake = jobs.filter((_, i) => !donated[i]);
      if (toMake.length) count ??= await engine.countPieces();
      await inBatches(toMake, batch, engine.parallel, engine.embed, async (part, vectors) => {
        this.indexBackend = engine.backend();
        await stored(part, vectors);
      }, count);
    }
    return done;
  }

  /** Vectors of `texts` from the worker's model, or null (no model, or it failed). Held items are never asked for. */
  private async tryEmbed(texts: string[]): Promise<{ vectors: Float32Array[]; model: string } | null> {
    const embedder = await this.getEmbedder();
    if (!embedder) return null;
    this.useModel(embedder.modelId);
    try {
      return { vectors: await embedder.embed(texts), model: embedder.modelId };
    } catch {
      return null; // kept unembedded; embedPending() retries
    }
  }
}
