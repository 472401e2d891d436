import type { Embedder } from '../embed/embedder';
import { embedText, LexicalIndex, packedTerms } from '../rank/lexical-index';
import { IndexedMemory } from '../rank/memory-view';
import type { BackstoryDB, PackRow } from './db';
import { createItem, patchItem } from './normalize';
import type { MemoryInput, MemoryItem, MemoryPatch } from './types';

const MODEL_TAG = 'all-MiniLM-L6-v2/q4';
const PACK_KEY = 'index';
/**
 * Bump when the pack's layout changes; a pack of another version is ignored (and rewritten). v2: BM25 entries hold
 * the body's term sequence instead of phrase terms (lib/rank/lexical-index.ts PackedLexicon), tf as Uint16Array.
 */
const PACK_VERSION = 2;
/** Quiet time after the last change before the pack is rewritten, ms. */
const PACK_DELAY_MS = 5000;
/**
 * The pack is rewritten once this many items changed since it was written (at least PACK_MIN_STALE, else this share
 * of memory): rewriting costs about a second of the worker's time per 10k items, while a start with a few stale
 * entries only re-reads and re-tokenises those few.
 */
const PACK_MIN_STALE = 64;
const PACK_STALE_SHARE = 0.02;

/** FNV-1a of the fields an item's vector and BM25 entry are made from: a pack entry is used only if it matches. */
export function indexPrint(item: MemoryItem): number {
  const s = [
    item.id, item.title ?? '', item.text, item.aux ?? '', (item.tags ?? []).join('\u0001'), (item.people ?? []).join('\u0001'),
    item.thread ? `${item.thread.id}\u0001${item.thread.seq}` : '', String(item.createdAt ?? ''), item.needsReview ? '1' : '',
  ].join('\u0000');
  return textHash(s);
}

/** FNV-1a of a text (the sameTextIndex key; matches are confirmed by comparing the texts). */
function textHash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * The BM25 entry today's code makes for a fixed item (dates, a question, people, phrases, inflections): a pack whose
 * canary differs was tokenised by other code (a changed stemmer or stop list) and is not used.
 */
function lexicalCanary(): string {
  const idx = new LexicalIndex();
  idx.addItem({ id: 'c', title: 'Budget review', text: 'Did Alice approve the painted houses? Running costs rose 12% on 3 March 2025 at 10:30, see https://x.example/a.', tags: ['Finance'], people: ['Alice Smith <alice@x.example>'], aux: 'chart of costs', createdAt: Date.UTC(2025, 2, 3) });
  const p = idx.exportDocs(['c']);
  return `${p.terms}|${Array.from(p.term).join(',')}|${Array.from(p.tf).join(',')}|${Array.from(p.seq).join(',')}|${p.len[0]}|${p.asks[0]}`;
}

/** The arrays a v2 pack must hold, of the right kinds and lengths: a damaged row is ignored, never trusted. */
function wellFormed(p: PackRow): boolean {
  const l = p.lexical;
  const n = p.ids?.length ?? -1;
  return (
    !!l && p.prints instanceof Uint32Array && p.prints.length === n && p.slots instanceof Int32Array && p.slots.length === n &&
    p.codes instanceof Int8Array && p.scales instanceof Float32Array && p.codes.length === p.scales.length * p.dim &&
    l.start instanceof Uint32Array && l.start.length === n + 1 && l.term instanceof Uint32Array && l.tf instanceof Uint16Array &&
    l.term.length === l.start[n] && l.tf.length === l.term.length && l.len instanceof Uint32Array && l.asks instanceof Uint8Array &&
    l.seqStart instanceof Uint32Array && l.seqStart.length === n + 1 && l.seq instanceof Uint32Array && l.seq.length === l.seqStart[n] &&
    Array.isArray(l.threads) && typeof l.terms === 'string'
  );
}

export interface ImportCounts {
  added: number;
  updated: number;
  unchanged: number;
}

/** The user's decisions about `old`, carried onto its re-imported version unless the import sets them itself. */
function keepDecisions(fresh: MemoryItem, old: MemoryItem, input: MemoryInput): MemoryItem {
  const out: MemoryItem = { ...fresh };
  if (input.pinned === undefined) out.pinned = old.pinned;
  for (const k of ['excluded', 'archived', 'needsReview', 'lastUsedAt'] as const) {
    if (input[k] === undefined && old[k] !== undefined) (out as unknown as Record<string, unknown>)[k] = old[k];
  }
  return out;
}

/** Same item apart from when it was written and which import wrote it. */
function sameContent(a: MemoryItem, b: MemoryItem): boolean {
  const strip = (it: MemoryItem) => stableJson({ ...it, updatedAt: 0, source: { ...it.source, importId: undefined } });
  return strip(a) === strip(b);
}

/** JSON with object keys sorted, so field order does not make two equal items differ. */
function stableJson(v: unknown): string {
  return JSON.stringify(v, (_k, x) =>
    x && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.keys(x).sort().filter((k) => x[k] !== undefined).map((k) => [k, x[k]])) : x,
  );
}

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
  private async write(fn: () => Promise<void>, changed = 1): Promise<void> {
    this.writing++;
    try {
      await this.db.transaction('rw', this.db.items, this.db.vectors, fn);
    } catch (e) {
      throw isQuotaError(e) ? new StorageFullError() : e;
    } finally {
      // The caller updates memory right after this resolves (same task), before the pack timer can fire.
      this.writing--;
      this.noteChanges(changed);
    }
  }

  /**
   * Reads everything from IndexedDB once per worker life. Items always come from `items`; their vectors and BM25
   * entries come from the persisted pack where the item's fingerprint still matches (one read, no re-quantising or
   * tokenising), the rest from `vectors` and the tokeniser. If the vectors so gathered do not number the rows of
   * `vectors`, every vector is read again from the table. A pack that was missing or partly stale is rewritten.
   */
  load(): Promise<void> {
    this.loaded ??= (async () => {
      const [items, stored, vectorRows] = await Promise.all([
        this.db.items.toArray(),
        this.db.packs.get(PACK_KEY).catch(() => undefined),
        this.db.vectors.count(),
      ]);
      const pack = stored && stored.version === PACK_VERSION && stored.model === MODEL_TAG && stored.canary === lexicalCanary() && wellFormed(stored) ? stored : undefined;
      const at = new Map<string, number>();
      pack?.ids.forEach((id, i) => at.set(id, i));
      const terms = pack ? packedTerms(pack.lexical) : [];
      const packIds: string[] = [];
      const packSlots: number[] = [];
      const entries: number[] = [];
      const rest: string[] = [];
      const fromPack = items.map((item) => {
        const i = at.get(item.id);
        const ok = !!pack && i !== undefined && pack.prints[i] === indexPrint(item);
        if (ok && !item.needsReview) {
          entries.push(i!);
          packIds.push(item.id);
          if (pack!.slots[i!] >= 0) packSlots.push(pack!.slots[i!]);
          else packIds.pop();
        }
        if (!ok && !item.needsReview) rest.push(item.id);
        return ok;
      });
      // BM25 entries of unchanged items first, as loaded (postings are built per term on first use), then the rest.
      if (pack) this.mem.lexicalIndex.loadPacked(pack.lexical, terms, entries, entries.map((i) => pack.ids[i]));
      items.forEach((item, k) => this.mem.put(item, undefined, fromPack[k] && !item.needsReview));
      if (pack) this.mem.addPackedVectors(packIds, packSlots, pack.dim, pack.codes, pack.scales);
      if (rest.length) {
        const rows = rest.length > items.length / 2 ? await this.db.vectors.toArray() : await this.db.vectors.bulkGet(rest);
        for (const v of rows) if (v && v.model === MODEL_TAG && this.mem.get(v.id) && !this.mem.get(v.id)!.needsReview) this.mem.setVector(v.id, v.vector);
      }
      const fullRead = this.mem.vectorCount !== vectorRows;
      if (fullRead) {
        // The pack and the table disagree about which items have vectors (written by other code, or a vector
        // added or dropped since the pack): the table is the truth.
        const byId = new Map((await this.db.vectors.toArray()).filter((v) => v.model === MODEL_TAG).map((v) => [v.id, v.vector]));
        for (const item of items) if (!item.needsReview) this.mem.setVector(item.id, byId.get(item.id));
      }
      // Rewritten at once when missing or when it disagreed on vectors (each start would re-read them all), else when
      // enough of it is stale.
      this.noteChanges(rest.length, !pack || fullRead);
    })();
    return this.loaded;
  }

  private packTimer?: ReturnType<typeof setTimeout>;
  private writing = 0;
  /** Items changed since the pack was last written. */
  private stale = 0;
  /** A rewrite came due while indexing ran. */
  private packDue = false;

  private noteChanges(n: number, force = false): void {
    this.stale += n;
    if (force || this.stale >= Math.max(PACK_MIN_STALE, this.mem.size * PACK_STALE_SHARE)) this.schedulePack();
  }

  /** Rewrites the pack once changes have stopped for a moment. */
  private schedulePack(delay = PACK_DELAY_MS): void {
    clearTimeout(this.packTimer);
    this.packTimer = setTimeout(() => {
      this.packTimer = undefined;
      void this.savePack({ whenIdle: true }).catch(() => undefined);
    }, delay);
  }

  /**
   * A ranking is being served: a pack rewrite due now waits until rankings pause (the rewrite holds the worker's
   * thread for about a second per 10k items, which the user would feel while typing).
   */
  notePressure(): void {
    if (this.packTimer !== undefined) this.schedulePack();
  }

  /**
   * Writes the in-memory indexes as the pack (PackRow); the next start loads them in one read. With `whenIdle` (the
   * timer's rewrite) it waits while a background indexing run is still adding vectors (it would be stale at once).
   */
  async savePack(opts: { whenIdle?: boolean } = {}): Promise<void> {
    await this.load();
    if (this.writing) return this.schedulePack(); // a write is between IndexedDB and memory: try again later
    if (opts.whenIdle && this.pending) {
      this.packDue = true; // indexing in progress: rewritten when it ends
      return;
    }
    this.stale = 0;
    const all = [...this.mem.items()];
    const ids = all.map((it) => it.id);
    const pv = this.mem.packedVectors();
    const slotOf = new Map<string, number>();
    pv.ids.forEach((id, i) => slotOf.set(id, i));
    const row: PackRow = {
      key: PACK_KEY, version: PACK_VERSION, model: MODEL_TAG, canary: lexicalCanary(), dim: pv.dim, ids,
      prints: Uint32Array.from(all, indexPrint), slots: Int32Array.from(ids, (id) => slotOf.get(id) ?? -1),
      codes: pv.codes, scales: pv.scales, lexical: this.mem.lexicalIndex.exportDocs(ids),
    };
    await this.db.packs.put(row);
  }

  /** Ids of items still waiting for an embedding (model missing, or an import indexed in the background). */
  unembedded(): string[] {
    return [...this.mem.items()].filter((it) => !it.needsReview && !this.mem.hasVector(it.id)).map((it) => it.id);
  }

  /**
   * Adds items in one transaction: all of them or, on failure, none. Small additions are embedded before they are
   * written; with `deferEmbedding` (imports) the items are written at once and `embedPending` embeds them later,
   * so a large import is atomic and fast, and its indexing resumes if the worker is stopped.
   */
  async add(inputs: MemoryInput[], opts: { deferEmbedding?: boolean; now?: number } = {}): Promise<MemoryItem[]> {
    await this.load();
    const items = inputs.map((input) => createItem(input, opts.now ?? Date.now()));
    // An item replaced by one whose embedded text is the same (a re-import of the same notes) keeps its vector.
    const keeps = (it: MemoryItem) => {
      const old = this.mem.get(it.id);
      return !!old && !it.needsReview && this.mem.hasVector(it.id) && embedText(old) === embedText(it);
    };
    const kept = new Set(items.filter(keeps).map((it) => it.id));
    const vectors = opts.deferEmbedding || kept.size === items.length ? null : await this.tryEmbed(items);
    await this.write(async () => {
      await this.db.items.bulkPut(items);
      if (vectors) await this.db.vectors.bulkPut(vectors.map((vector, i) => ({ id: items[i].id, model: MODEL_TAG, vector })));
      // An item replaced without a new vector must not keep its old one, unless its text is unchanged.
      else await this.db.vectors.bulkDelete(items.filter((it) => !kept.has(it.id)).map((it) => it.id));
    }, items.length);
    items.forEach((item, i) => {
      this.mem.put(item, vectors?.[i]); // without a vector, put() leaves the one held (kept items)
      if (!vectors && !kept.has(item.id)) this.mem.setVector(item.id, undefined);
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

  /**
   * Commits an import's items in one transaction: all of them or, on failure, none. Items are keyed by id: a new id is
   * added; a known id with the same content is left as it is (vectors and all); a known id with changed content is
   * replaced and embedded again later by `embedPending` (its vector is kept when the text the model sees did not
   * change). What the user decided about an item (pinned, never include, archived, held, last used) stays unless the
   * import itself sets it. An added or updated item's `source.importId` is this import; an unchanged one keeps the
   * import that brought it, so removing the later import leaves it.
   */
  async commitImport(inputs: MemoryInput[], opts: { importId: string; now?: number }): Promise<ImportCounts> {
    await this.load();
    const now = opts.now ?? Date.now();
    const byId = new Map<string, { item: MemoryItem; input: MemoryInput }>();
    for (const input of inputs) {
      const item = createItem(input, now);
      item.source = { ...item.source, importId: opts.importId };
      byId.set(item.id, { item, input }); // a later copy of the same id in one import wins
    }
    const counts: ImportCounts = { added: 0, updated: 0, unchanged: 0 };
    const changed: MemoryItem[] = [];
    const reembed: string[] = [];
    for (const [id, { item: fresh, input }] of byId) {
      const old = this.mem.get(id);
      if (!old) {
        counts.added++;
        changed.push(fresh);
        continue;
      }
      const merged = keepDecisions(fresh, old, input);
      if (sameContent(merged, old)) {
        counts.unchanged++;
        continue;
      }
      counts.updated++;
      changed.push(merged);
      if (embedText(old) !== embedText(merged) || !!old.needsReview !== !!merged.needsReview) reembed.push(id);
    }
    await this.write(async () => {
      await this.db.items.bulkPut(changed);
      await this.db.vectors.bulkDelete(reembed);
    }, changed.length);
    for (const item of changed) this.mem.put(item);
    for (const id of reembed) this.mem.setVector(id, undefined);
    return counts;
  }

  /** Deletes every item the import brought (`source.importId`); returns them. */
  async removeImport(importId: string): Promise<MemoryItem[]> {
    await this.load();
    const ids = [...this.mem.items()].filter((it) => it.source.importId === importId).map((it) => it.id);
    return this.remove(ids);
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
    }, ids.length);
    for (const id of ids) this.mem.delete(id);
    return removed;
  }

  /** Deletes every memory. */
  async clear(): Promise<void> {
    await this.load();
    await this.write(async () => {
      await this.db.items.clear();
      await this.db.vectors.clear();
    }, Infinity);
    this.mem = new IndexedMemory();
  }

  /**
   * Embeds items that have no vector yet, in small batches so ranking requests get the thread in between; each
   * batch is stored in one transaction. Items are taken shortest first, so a batch holds texts of similar length
   * and the model pads little. One run at a time: a second call joins the running one. Returns how many were embedded.
   */
  embedPending(onProgress?: (done: number, total: number) => void, batch = 16): Promise<number> {
    this.pending ??= (async () => {
      try {
        await this.load();
        let embedder = await this.getIndexEmbedder();
        if (!embedder) return 0;
        const ids = this.byLength(this.unembedded());
        // Nothing waiting (every worker start checks): no same-text index, which reads every item.
        if (!ids.length) return 0;
        let done = 0;
        onProgress?.(0, ids.length); // panels show the count from the start
        const embedWithFallback = async (texts: string[]): Promise<Float32Array[]> => {
          const used = embedder!;
          try {
            return await used.embed(texts);
          } catch (e) {
            // The indexing engine failed (offscreen document refused or gone): go on with the worker's own model.
            const own = await this.getEmbedder();
            if (!own || own === used) throw e;
            embedder = own;
            return own.embed(texts);
          }
        };
        const sameText = this.sameTextIndex();
        // Items deleted or edited meanwhile are skipped; an edit embeds its own new text.
        const start = (from: number) => {
          const items = ids.slice(from, from + batch).map((id) => this.mem.get(id)).filter((it): it is MemoryItem => !!it && !it.needsReview && !this.mem.hasVector(it.id));
          const vectors = items.length ? this.embedOnce(items.map(embedText), sameText, embedWithFallback) : Promise.resolve([]);
          vectors.catch(() => undefined); // awaited in turn below; a batch started ahead must not fail unobserved
          return { items, vectors };
        };
        // Engines that queue work (`parallel`) get the next batch before the last one is stored.
        const ahead: ReturnType<typeof start>[] = [];
        for (let next = 0; next < ids.length || ahead.length; ) {
          while (ahead.length < Math.max(1, embedder.parallel ?? 1) && next < ids.length) {
            ahead.push(start(next));
            next += batch;
          }
          const { items, vectors: pending } = ahead.shift()!;
          const vectors = await pending;
          if (items.length) {
            this.indexBackend = embedder.backend;
            const live = items.filter((it) => this.mem.get(it.id) === it);
            await this.write(() => this.db.vectors.bulkPut(live.map((it) => ({ id: it.id, model: MODEL_TAG, vector: vectors[items.indexOf(it)] }))).then(() => undefined), live.length);
            for (const it of live) {
              this.mem.setVector(it.id, vectors[items.indexOf(it)]);
              sameText.add(embedText(it), it.id);
            }
          }
          done = Math.min(ids.length, next - ahead.length * batch);
          onProgress?.(done, ids.length);
        }
        return done;
      } finally {
        this.pending = undefined;
        // The rewrite held back while indexing ran (savePack whenIdle) happens now that it is over.
        if (this.packDue) {
          this.packDue = false;
          this.schedulePack();
        }
      }
    })();
    return this.pending;
  }

  /**
   * The items that have a vector, by a hash of the text the model sees: a note whose text another already has (a
   * duplicate capture, the same notes imported under other ids) takes that vector instead of the model's time.
   * Built once per indexing run (about 2 µs per item).
   */
  private sameTextIndex() {
    const byHash = new Map<number, string[]>();
    const add = (text: string, id: string) => {
      const h = textHash(text);
      const ids = byHash.get(h);
      if (ids) ids.push(id);
      else byHash.set(h, [id]);
    };
    for (const it of this.mem.items()) if (!it.needsReview && this.mem.hasVector(it.id)) add(embedText(it), it.id);
    return {
      add,
      /** An item that has a vector and exactly this text (the hash only narrows the search). */
      donor: (text: string) => byHash.get(textHash(text))?.find((id) => {
        const it = this.mem.get(id);
        return !!it && !it.needsReview && this.mem.hasVector(id) && embedText(it) === text;
      }),
    };
  }

  /**
   * Vectors for `texts`: read from IndexedDB where an item with the same text has one (exactly as the model made it),
   * the rest from the model, each distinct text once.
   */
  private async embedOnce(texts: string[], sameText: ReturnType<MemoryStore['sameTextIndex']>, embed: (texts: string[]) => Promise<Float32Array[]>): Promise<Float32Array[]> {
    const out: (Float32Array | undefined)[] = new Array(texts.length);
    const donors = texts.map((t) => sameText.donor(t));
    const rows = donors.some(Boolean) ? await this.db.vectors.bulkGet(donors.map((d) => d ?? '')) : [];
    rows.forEach((row, i) => {
      if (donors[i] && row?.model === MODEL_TAG) out[i] = row.vector;
    });
    const missing = [...new Set(texts.filter((_, i) => !out[i]))];
    if (missing.length) {
      const made = await embed(missing);
      const byText = new Map(missing.map((t, k) => [t, made[k]]));
      texts.forEach((t, i) => (out[i] ??= byText.get(t)));
    }
    return out as Float32Array[];
  }

  /** Ids ordered by the length of the text the model sees (a padded batch costs as much as its longest text). */
  private byLength(ids: string[]): string[] {
    const len = new Map(ids.map((id) => [id, embedText(this.mem.get(id)!).length]));
    return ids.sort((a, b) => len.get(a)! - len.get(b)!);
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
