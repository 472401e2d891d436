import Dexie, { type EntityTable } from 'dexie';
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
  return db;
}
