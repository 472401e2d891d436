// The merged state (lib/sync/merge.ts) kept in IndexedDB record by record, so a pass holds in memory only the records
// it touches: a memory of 100k items does not load every register (and every text head) to apply one segment.
import Dexie from 'dexie';
import type { BackstoryDB, SyncStateRow } from '../memory/db';
import { recordFromOwnJson, recordToJson, type RegisterJson } from './merge-json';
import { MergeState } from './merge';

interface StateRow extends SyncStateRow {
  fields: Record<string, RegisterJson>;
}

/** Rows read per request: a first sync loads tens of thousands of records. */
const SLICE = 1000;

export class StateStore {
  constructor(private readonly db: BackstoryDB) {}

  /** Loads into `state` the records of `ids` it does not hold yet (a record never seen stays absent). */
  async load(state: MergeState, ids: Iterable<string>): Promise<void> {
    const want = [...new Set(ids)].filter((id) => !state.records.has(id));
    for (let i = 0; i < want.length; i += SLICE) {
      const rows = (await this.db.syncState.bulkGet(want.slice(i, i + SLICE))) as (StateRow | undefined)[];
      for (const row of rows) if (row) state.records.set(row.id, recordFromOwnJson(row.fields));
    }
  }

  /** The records of `ids` as `state` holds them now; one it no longer holds (collected) is removed. */
  rows(state: MergeState, ids: Iterable<string>): { puts: StateRow[]; deletes: string[] } {
    const puts: StateRow[] = [];
    const deletes: string[] = [];
    for (const id of new Set(ids)) {
      const record = state.records.get(id);
      if (record) puts.push({ id, fields: recordToJson(record) });
      else deletes.push(id);
    }
    return { puts, deletes };
  }

  /**
   * Writes the records of `ids` as `state` holds them, a slice at a time (inside the caller's transaction when there
   * is one): a first sync's rows are never all made at once beside the state they are made from.
   */
  async save(state: MergeState, ids: Iterable<string>): Promise<void> {
    const all = [...new Set(ids)];
    for (let i = 0; i < all.length; i += SLICE) await this.write(this.rows(state, all.slice(i, i + SLICE)));
  }

  /** Writes `rows` (inside the caller's transaction when there is one). */
  async write(rows: { puts: StateRow[]; deletes: string[] }): Promise<void> {
    for (let i = 0; i < rows.puts.length; i += SLICE) await this.db.syncState.bulkPut(rows.puts.slice(i, i + SLICE));
    if (rows.deletes.length) await this.db.syncState.bulkDelete(rows.deletes);
  }

  /** The ids of the records held that come after `after` and not after `upTo` in id order (no bound when undefined). */
  async idsIn(after: string | undefined, upTo: string | undefined): Promise<string[]> {
    const range = this.db.syncState.where(':id').between(after ?? Dexie.minKey, upTo ?? Dexie.maxKey, after === undefined, true);
    return (await range.primaryKeys()) as string[];
  }

  /** Every record, `size` at a time in id order (a snapshot is written from these): never the whole state at once. */
  async *slices(size = SLICE): AsyncGenerator<MergeState> {
    let last: string | undefined;
    for (;;) {
      const from = last === undefined ? this.db.syncState.orderBy(':id') : this.db.syncState.where(':id').above(last);
      const rows = (await from.limit(size).toArray()) as StateRow[];
      if (!rows.length) return;
      last = rows[rows.length - 1].id;
      const state = new MergeState();
      for (const r of rows) state.records.set(r.id, recordFromOwnJson(r.fields));
      yield state;
    }
  }

  async clear(): Promise<void> {
    await this.db.syncState.clear();
  }
}
