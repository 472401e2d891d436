// What this device last synced of each record (docs/sync.md, "This device's ledger"): a small database of its own,
// `backstory-sync`, beside the memory's, so the memory's schema does not change for sync.
import Dexie, { type EntityTable } from 'dexie';
import type { Stamp } from './types';

export interface LedgerRow {
  id: string;
  /** The heads of each field (`deleted` included) as last synced: the base of this device's next edit of it. */
  heads: Record<string, Stamp[]>;
  /** Fingerprint of each field's value as this device's memory held it when last synced (`valuePrint`). */
  prints: Record<string, number>;
  /** `contentPrint` of the item (title, text, captions) when last synced: its text is read only when this changed. */
  content: number;
  /** `headPrint` of the item when last synced: its head fields are compared one by one only when this changed. */
  head: number;
  /** The item is not in this device's memory (deleted here, or deleted by a merge). */
  gone?: true;
}

interface MetaRow {
  key: string;
  value: string;
}

type LedgerDB = Dexie & { records: EntityTable<LedgerRow, 'id'>; meta: EntityTable<MetaRow, 'key'> };

export const LEDGER_DB_NAME = 'backstory-sync';

/** The ledger of one device. Rows are read whole once (one per item: ids, stamps and numbers) and kept. */
export class SyncLedger {
  private readonly db: LedgerDB;
  private rows?: Promise<Map<string, LedgerRow>>;

  constructor(name = LEDGER_DB_NAME, deps?: { indexedDB: IDBFactory; IDBKeyRange: typeof IDBKeyRange }) {
    this.db = (deps ? new Dexie(name, deps) : new Dexie(name)) as LedgerDB;
    this.db.version(1).stores({ records: 'id', meta: 'key' });
  }

  /** Every row, by id. */
  all(): Promise<Map<string, LedgerRow>> {
    this.rows ??= this.db.records.toArray().then((rows) => new Map(rows.map((r) => [r.id, r])));
    return this.rows;
  }

  /** Writes rows (and the clock's state, when given) in one transaction, then keeps them. */
  async put(rows: LedgerRow[], clock?: Stamp): Promise<void> {
    const held = await this.all();
    await this.db.transaction('rw', this.db.records, this.db.meta, async () => {
      await this.db.records.bulkPut(rows);
      if (clock) await this.db.meta.put({ key: 'clock', value: clock });
    });
    for (const r of rows) held.set(r.id, r);
  }

  /** Drops rows of records merging no longer knows (collected tombstones). */
  async forget(ids: string[]): Promise<void> {
    const held = await this.all();
    await this.db.records.bulkDelete(ids);
    for (const id of ids) held.delete(id);
  }

  /**
   * Records merged while the user was changing them, not yet written into memory (`applyMerged` tries them again on
   * its next pass): kept here, as the worker may stop before that pass.
   */
  async pending(): Promise<string[]> {
    const row = await this.db.meta.get('pending');
    return row ? (JSON.parse(row.value) as string[]) : [];
  }

  async setPending(ids: string[]): Promise<void> {
    await this.db.meta.put({ key: 'pending', value: JSON.stringify(ids) });
  }

  /** The clock's last stamp, kept so that a restart never issues a stamp below one already given out. */
  async clock(): Promise<Stamp | undefined> {
    return (await this.db.meta.get('clock'))?.value;
  }

  close(): void {
    this.db.close();
  }
}
