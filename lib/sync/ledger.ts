// What this device last synced of each record (docs/sync.md, "This device's ledger"), in the memory's database
// (tables `syncLedger` and `syncMeta`), so that what sync writes into memory and what it notes of it land together.
import type { BackstoryDB, SyncMetaRow } from '../memory/db';
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
  /**
   * The item is not in this device's memory (deleted here, or deleted by a merge). The row stays after the merged state
   * collects the record: an item of that id made again (the same mail imported again) then names the heads it replaces.
   */
  gone?: true;
}

const CLOCK = 'clock';
const PENDING = 'pending';

/** The ledger of one device. Rows are read whole once (one per item: ids, stamps and numbers) and kept. */
export class SyncLedger {
  private rows?: Promise<Map<string, LedgerRow>>;

  constructor(private readonly db: BackstoryDB) {}

  /** Every row, by id. */
  all(): Promise<Map<string, LedgerRow>> {
    this.rows ??= this.db.syncLedger.toArray().then((rows) => new Map((rows as LedgerRow[]).map((r) => [r.id, r])));
    return this.rows;
  }

  /** Writes rows (and the clock's state, when given) in one transaction, then keeps them. */
  async put(rows: LedgerRow[], clock?: Stamp): Promise<void> {
    const held = await this.all();
    await this.db.transaction('rw', this.db.syncLedger, this.db.syncMeta, async () => {
      await this.db.syncLedger.bulkPut(rows);
      if (clock) await this.db.syncMeta.put({ key: CLOCK, value: clock });
    });
    for (const r of rows) held.set(r.id, r);
  }

  /** Keeps rows written elsewhere (with memory, in MemoryStore.applySynced's transaction). */
  async written(rows: LedgerRow[]): Promise<void> {
    const held = await this.all();
    for (const r of rows) held.set(r.id, r);
  }

  /**
   * Records merged while the user was changing them, not yet written into memory (`applyMerged` tries them again on
   * its next pass): kept here, as the worker may stop before that pass.
   */
  async pending(): Promise<string[]> {
    const row = await this.db.syncMeta.get(PENDING);
    return row ? (JSON.parse(row.value) as string[]) : [];
  }

  /** The row that records `ids` as pending. */
  pendingRow(ids: string[]): SyncMetaRow {
    return { key: PENDING, value: JSON.stringify(ids) };
  }

  /** The clock's last stamp, kept so that a restart never issues a stamp below one already given out. */
  async clock(): Promise<Stamp | undefined> {
    return (await this.db.syncMeta.get(CLOCK))?.value;
  }
}
