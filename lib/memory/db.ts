import Dexie, { type EntityTable, type Table } from 'dexie';
import { ItemRevisions } from './item-revs';
import { titleFrom } from './title';
import type { MemoryInput, MemoryItem } from './types';

export interface StoredVector {
  id: string;
  /** Model that produced the vector; a different model means re-embedding. */
  model: string;
  /** The item's vector: its first passage's (its only one for an item that fits the model's window). */
  vector: Float32Array;
  /** An item of several passages: the vectors of its other passages, in order (lib/memory/index/passages.ts). */
  passages?: Float32Array[];
}

/**
 * A derived index persisted for fast starts (schema v3): one row holds, for every item, a fingerprint of the fields
 * its indexes depend on, its int8 vector (codes + scale, as the in-memory VectorIndex holds them), its BM25 entry
 * already tokenised, and the context vectors (lib/memory/pack.ts). Never the truth: the store uses an entry only when the item read from `items` still has the
 * same fingerprint, and rewrites the pack after changes. Deleting it loses nothing but start time.
 */
export interface PackRow {
  key: string;
  version: number;
  model: string;
  /** What today's tokeniser makes of a fixed item; a pack made by other tokenising code is not used. */
  canary: string;
  dim: number;
  ids: string[];
  prints: Uint32Array;
  /** Packed vector slot of ids[i], or -1 when the item had no vector. */
  slots: Int32Array;
  /**
   * The other passages' vectors of items of several passages (pack v4): passage `part[j]` of item `ids[owner[j]]`
   * is in packed slot `slot[j]`.
   */
  passages: { owner: Uint32Array; part: Uint32Array; slot: Int32Array };
  /**
   * The indexes into `ids` of the items whose text reads as a decision, ascending (`textReadsAsDecision`: a start
   * need not run it over every text).
   */
  decisions: Uint32Array;
  /**
   * Each item's head (every field but the text and the title), for ids[i] (pack v7): a start takes the heads of rows
   * not written since (`rev` at most the pack's) from here, and reads only the others whole.
   */
  heads: import('./types').ItemHead[];
  /** `contentPrint` of ids[i]'s text, title and captions, made when its text was at hand. */
  contents: Uint32Array;
  /** The highest `rev` among the heads (0: none): every row written since has a higher one. */
  rev: number;
  codes: Int8Array;
  scales: Float32Array;
  lexical: import('./index/lexical-pack').PackedLexicon;
  /** Threaded items' context vectors (int8), each with the print of the text it was made from. */
  contexts: { ids: string[]; prints: Uint32Array; dim: number; codes: Int8Array; scales: Float32Array };
}

/**
 * What a start needs to know of the pack before the pack itself has been read (written with it, in one
 * transaction): whether it is of this version, and the revision rows written since have above it.
 */
export interface PackInfoRow {
  key: string;
  version: number;
  rev: number;
}

/**
 * A threaded item's context vector: the embedding of `contextText(item, previous item of its thread)` (schema v4).
 * `print` is a hash of that text: when the item or its predecessor changes, the print no longer matches and the
 * vector is made again.
 */
export interface StoredContext extends StoredVector {
  print: number;
}

/**
 * A row of the import jobs table. Its fields are declared where import jobs are kept (`ImportJob` in
 * lib/import/import-jobs.ts merges into this interface), so the database sits below the importers it serves.
 */
export interface ImportJobRow {
  id: string;
}

/** An import's files (Blobs, read by the background side) and its staged items: lib/import/import-jobs.ts. */
export interface ImportFileRow {
  job: string;
  n: number;
  name: string;
  path?: string;
  blob: Blob;
}

export interface ImportStagedRow {
  job: string;
  batch: number;
  inputs: MemoryInput[];
}

/** What Undo of "Delete this import" brings back (lib/memory-browse/import-removal.ts): the items as they were. */
export interface RemovedImportRow {
  importId: string;
  items: MemoryItem[];
  /** When the import was deleted; Undo is offered for UNDO_IMPORT_MS after. */
  at: number;
}

/**
 * A picked file handed over by a page: written with the job's files in one transaction, so it exists only once they
 * are all stored (lib/memory/import-jobs.ts). The worker turns it into a queued job.
 */
export interface HandoverRow {
  job: string;
  createdAt: number;
  fileNames: string[];
  bytes: number;
}

/** What sync last synced of a record; its fields are declared where the ledger is kept (`LedgerRow`, lib/sync/ledger.ts). */
export interface SyncLedgerRow {
  id: string;
}

/** A small value sync keeps beside its ledger (the clock's last stamp, records still to write into memory). */
export interface SyncMetaRow {
  key: string;
  value: string;
}

/** One record of sync's merged state (lib/sync/state-store.ts declares its fields). */
export interface SyncStateRow {
  id: string;
}

/** This device's part in a synced memory (lib/sync/device.ts declares its fields): one row, or none while sync is off. */
export interface SyncDeviceRow {
  key: string;
}

export type BackstoryDB = Dexie & {
  items: EntityTable<MemoryItem, 'id'>;
  vectors: EntityTable<StoredVector, 'id'>;
  contexts: EntityTable<StoredContext, 'id'>;
  packs: EntityTable<PackRow, 'key'>;
  packInfo: EntityTable<PackInfoRow, 'key'>;
  importJobs: EntityTable<ImportJobRow, 'id'>;
  importFiles: Table<ImportFileRow, [string, number]>;
  importStaged: Table<ImportStagedRow, [string, number]>;
  removedImports: EntityTable<RemovedImportRow, 'importId'>;
  handovers: EntityTable<HandoverRow, 'job'>;
  syncLedger: EntityTable<SyncLedgerRow, 'id'>;
  syncMeta: EntityTable<SyncMetaRow, 'key'>;
  syncState: EntityTable<SyncStateRow, 'id'>;
  syncDevice: EntityTable<SyncDeviceRow, 'key'>;
  /** Stamps each item row this connection writes (lib/memory/item-revs.ts). */
  revs: ItemRevisions;
};

export const DB_NAME = 'backstory';

/**
 * Rows read per IndexedDB request at most. An indexing run reads the texts of tens of thousands of items, and a
 * ranking's read made meanwhile waits for the request in flight: 2.6 s behind one of 20,000 rows in Chromium, about a
 * tenth of a second behind one of 500.
 */
export const READ_SLICE = 500;

/** `read` over `ids` one slice of `READ_SLICE` at a time, so that other reads get in between; results in order. */
export async function readInSlices<T>(ids: string[], read: (ids: string[]) => Promise<T[]>): Promise<T[]> {
  if (ids.length <= READ_SLICE) return read(ids);
  const out: T[] = [];
  for (let i = 0; i < ids.length; i += READ_SLICE) for (const row of await read(ids.slice(i, i + READ_SLICE))) out.push(row);
  return out;
}

/** Opens the memory database. In Node, pass fake-indexeddb's indexedDB/IDBKeyRange. */
export function openMemoryDB(name = DB_NAME, deps?: { indexedDB: IDBFactory; IDBKeyRange: typeof IDBKeyRange }): BackstoryDB {
  const db = (deps ? new Dexie(name, deps) : new Dexie(name)) as BackstoryDB;
  db.version(1).stores({
    items: 'id, kind, updatedAt, *people, *sites, *tags',
    vectors: 'id',
    meta: 'key',
  });
  // v2: last-used time is indexed (recency counts use as well as creation), and items written by v1 get the fields
  // v2 code relies on. Upgrades run inside IndexedDB's versionchange transaction: all of it or none of it.
  db.version(2)
    .stores({ items: 'id, kind, updatedAt, lastUsedAt, *people, *sites, *tags' })
    .upgrade((tx) =>
      tx
        .table('items')
        .toCollection()
        .modify((item: Partial<MemoryItem> & { text: string }) => migrateItemV1(item)),
    );
  // v3: a table for the persisted index pack (PackRow). Items, vectors and meta are untouched; a database without a
  // pack simply starts the slow way once and writes one.
  db.version(3).stores({ packs: 'key' });
  // v4: threaded items' context vectors; import jobs with their files (Blobs) and staged items, so an import does
  // not depend on the page that started it; the unused `meta` table dropped. Items and vectors are untouched.
  db.version(4).stores({
    meta: null,
    contexts: 'id',
    importJobs: 'id, createdAt',
    importFiles: '[job+n], job',
    importStaged: '[job+batch], job',
  });
  // v5: a deleted import's items, kept while Undo is offered, so Undo works after the browser stops an idle worker;
  // the mark a page leaves once a picked file is wholly stored, in a table of its own so the page's write never waits
  // on the worker's reads of the job table. Nothing else changes.
  db.version(5).stores({ removedImports: 'importId, at', handovers: 'job' });
  // v6: items lose their secondary indexes. Nothing queried them (memory is read whole when the worker starts, then
  // item by item by id), and every write kept them: an import's commit wrote each item under five more keys.
  db.version(6).stores({ items: 'id' });
  // v7: sync's ledger (lib/sync/ledger.ts), merged state (state-store.ts) and this device's part (device.ts), in this
  // database so that what sync writes into memory and what it notes of it land in one transaction. Nothing else
  // changes.
  db.version(7).stores({ syncLedger: 'id', syncMeta: 'key', syncState: 'id', syncDevice: 'key' });
  // v8: items indexed by their revision (lib/memory/item-revs.ts), so a start reads whole only the rows written since
  // the index pack, and the pack's version and revision in a row of their own, read before the pack. Rows written
  // before have no revision and are not in the index: the worker stamps them after its start.
  db.version(8).stores({ items: 'id, rev', packInfo: 'key' });
  db.revs = new ItemRevisions();
  db.use(db.revs.middleware());
  return db;
}

/** Brings an item written by schema v1 up to what v2 code expects; leaves complete items as they are. */
export function migrateItemV1(item: Partial<MemoryItem> & { text: string }): void {
  item.tags ??= [];
  item.people ??= [];
  item.sites = (item.sites ?? []).map((s) => s.toLowerCase());
  item.source ??= {};
  item.pinned ??= false;
  item.kind ??= 'evidence';
  item.title ||= titleFrom(item.text);
  item.createdAt ??= Date.now();
  item.updatedAt ??= item.createdAt;
  // Token counts are made where memory is loaded (store-load.ts): every page that opens this database would
  // otherwise load the token counter.
}
