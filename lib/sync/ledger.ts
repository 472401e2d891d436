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

/** What a pass decides by for every item without reading its row: whether it changed since it was last synced. */
export interface LedgerBrief {
  content: number;
  head: number;
  gone: boolean;
}

/**
 * The ledger's prints of every row, in typed arrays by slot (about 30 bytes an item besides its id, where whole rows
 * held every field's heads as stamp strings: about 1 KB an item, 100 MB at 100k).
 */
class LedgerIndex {
  private readonly slots = new Map<string, number>();
  private content = new Float64Array(1024);
  private head = new Float64Array(1024);
  private gone = new Uint8Array(1024);

  set(row: LedgerRow): void {
    let at = this.slots.get(row.id);
    if (at === undefined) {
      at = this.slots.size;
      this.slots.set(row.id, at);
      if (at >= this.content.length) this.grow();
    }
    this.content[at] = row.content;
    this.head[at] = row.head;
    this.gone[at] = row.gone ? 1 : 0;
  }

  get(id: string): LedgerBrief | undefined {
    const at = this.slots.get(id);
    return at === undefined ? undefined : { content: this.content[at], head: this.head[at], gone: this.gone[at] === 1 };
  }

  get size(): number {
    return this.slots.size;
  }

  /** Ids whose item is in memory as last synced (not gone). */
  *live(): IterableIterator<string> {
    for (const [id, at] of this.slots) if (this.gone[at] === 0) yield id;
  }

  private grow(): void {
    const n = this.content.length * 2;
    const c = new Float64Array(n);
    c.set(this.content);
    const h = new Float64Array(n);
    h.set(this.head);
    const g = new Uint8Array(n);
    g.set(this.gone);
    [this.content, this.head, this.gone] = [c, h, g];
  }
}

/**
 * The ledger of one device. Every row's prints are read once (`brief`) and kept compact; whole rows (heads and field
 * prints) are read only for the records a pass changes or writes (`rows`).
 */
export class SyncLedger {
  private index?: Promise<LedgerIndex>;

  constructor(private readonly db: BackstoryDB) {}

  /** The prints of every row, read once (a cursor: never every row at once). */
  brief(): Promise<LedgerIndex> {
    this.index ??= (async () => {
      const index = new LedgerIndex();
      await this.db.syncLedger.each((row) => index.set(row as LedgerRow));
      return index;
    })();
    return this.index;
  }

  /** The whole rows of `ids` that exist, by id. */
  async rows(ids: Iterable<string>): Promise<Map<string, LedgerRow>> {
    const want = [...new Set(ids)];
    const out = new Map<string, LedgerRow>();
    for (let i = 0; i < want.length; i += 1000) {
      for (const row of (await this.db.syncLedger.bulkGet(want.slice(i, i + 1000))) as (LedgerRow | undefined)[]) if (row) out.set(row.id, row);
    }
    return out;
  }

  /** One whole row. */
  async row(id: string): Promise<LedgerRow | undefined> {
    return (await this.db.syncLedger.get(id)) as LedgerRow | undefined;
  }

  /** Writes rows (and the clock's state, when given) in one transaction, then notes their prints. */
  async put(rows: LedgerRow[], clock?: Stamp): Promise<void> {
    const index = await this.brief();
    await this.db.transaction('rw', this.db.syncLedger, this.db.syncMeta, async () => {
      await this.db.syncLedger.bulkPut(rows);
      if (clock) await this.db.syncMeta.put({ key: CLOCK, value: clock });
    });
    for (const r of rows) index.set(r);
  }

  /** Notes the prints of rows written elsewhere (with memory, in MemoryStore.applySynced's transaction). */
  async written(rows: LedgerRow[]): Promise<void> {
    const index = await this.brief();
    for (const r of rows) index.set(r);
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
