import Dexie, { type EntityTable } from 'dexie';
import { titleFrom } from './normalize';
import { countTokens } from './tokens';
import type { MemoryItem } from './types';

export interface StoredVector {
  id: string;
  /** Model that produced the vector; a different model means re-embedding. */
  model: string;
  vector: Float32Array;
}

export interface MetaRow {
  key: string;
  value: unknown;
}

export type BackstoryDB = Dexie & {
  items: EntityTable<MemoryItem, 'id'>;
  vectors: EntityTable<StoredVector, 'id'>;
  meta: EntityTable<MetaRow, 'key'>;
};

export const DB_NAME = 'backstory';

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
  if (typeof item.tokens !== 'number') item.tokens = countTokens(item.text);
}
