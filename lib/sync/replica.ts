// This device's side of sync (docs/sync.md, "This device's ledger"): its memory's changes since the last sync as
// operations, and merged records written back into its memory.
import { contentPrint } from '../memory/index/item-text';
import type { MemoryStore } from '../memory/store';
import type { ItemHead, MemoryInput, MemoryItem } from '../memory/types';
import { badValue, DELETED, ITEM_FIELDS, SETTINGS_ID, type ItemField } from './fields';
import type { HybridClock } from './hlc';
import { fieldValue, HEAD_FIELDS, headPrint, inputFromRecord, valuePrint } from './item-record';
import type { LedgerRow, SyncLedger } from './ledger';
import { mergedRecord, type MergeState } from './merge';
import type { HeldValue, Stamp, SyncOp } from './types';

/**
 * `headPrint` of the heads the index holds, by object: the index replaces an item's head when it changes and never
 * changes one in place, so a pass over an unchanged memory looks fingerprints up instead of working them out again.
 */
const headPrints = new WeakMap<ItemHead, number>();
function printOf(head: ItemHead): number {
  let p = headPrints.get(head);
  if (p === undefined) headPrints.set(head, (p = headPrint(head)));
  return p;
}

/** Operations for this device's changes, and the ledger rows that record them once they are kept in a segment. */
export interface LocalChanges {
  ops: SyncOp[];
  rows: LedgerRow[];
  /** The clock's state after making them. */
  clock: Stamp;
  /** Fields changed here that are not sent: past what other devices accept. */
  held: HeldValue[];
}

/**
 * What changed in `store` since the ledger's last sync, as operations: each changed field an edit whose base is the
 * heads the ledger last synced of it, each item gone since a delete naming every head the ledger knew. Texts are read
 * only for items whose title, text or captions changed (their `contentPrint`, held in memory). An item never synced
 * here, or deleted and back, says every field (so that, where a delete of the same id was collected on some devices and
 * not yet on others, it reads the same on all): a first sync is a union. Nothing changed, no operation. The ledger is
 * not written here: `commitLocal` does, once the operations are kept in a segment.
 */
export async function localChanges(store: MemoryStore, ledger: SyncLedger, clock: HybridClock, now = Date.now()): Promise<LocalChanges> {
  await store.load();
  const brief = await ledger.brief();
  const changed: { head: ItemHead; content: number; print: number; read: boolean }[] = [];
  for (const head of store.items()) {
    const row = brief.get(head.id);
    const content = store.view.contentPrint(head.id);
    const print = printOf(head);
    const sameContent = !!row && !row.gone && content !== 0 && row.content === content;
    if (sameContent && row.head === print) continue;
    changed.push({ head, content, print, read: !sameContent });
  }
  // Whole rows only of what changed, and of what is gone since (the heads a delete names).
  const goneIds = goneSinceSync(brief, store);
  const rows = await ledger.rows([...changed.map((c) => c.head.id), ...goneIds]);
  const read = new Map((await store.readMany(changed.filter((c) => c.read).map((c) => c.head.id))).map((it) => [it.id, it]));
  const ops: SyncOp[] = [];
  const out: LedgerRow[] = [];
  const held: HeldValue[] = [];
  const edit = (id: string, field: string, value: unknown, base: Stamp[]): Stamp => {
    const stamp = clock.next(now);
    ops.push({ id, field, value, stamp, base });
    return stamp;
  };
  for (const { head, content, print, read: wasRead } of changed) {
    const item = read.get(head.id);
    if (wasRead && !item) continue; // deleted meanwhile: the next pass sees it gone
    const prev = rows.get(head.id);
    const known = prev && !prev.gone ? prev : undefined;
    const row: LedgerRow = { id: head.id, heads: { ...prev?.heads }, prints: { ...known?.prints }, content: known?.content ?? 0, head: print };
    const fields: readonly ItemField[] = item ? ITEM_FIELDS : HEAD_FIELDS;
    for (const field of fields) {
      const value = fieldValue(item ?? head, field);
      const p = valuePrint(value);
      if (known?.prints[field] === p) continue;
      // Its print stays as last sent, so the next change of the item tries it again.
      const why = badValue(field, value);
      if (why) {
        held.push({ id: head.id, field, why, print: p });
        continue;
      }
      row.prints[field] = p;
      row.heads[field] = [edit(head.id, field, value, prev?.heads[field] ?? [])];
    }
    if (item) row.content = content || contentPrint(item);
    out.push(row);
  }
  for (const id of goneIds) {
    const row = rows.get(id);
    if (!row || row.gone || store.head(id)) continue;
    const base = [...new Set(Object.values(row.heads).flat())].sort();
    out.push({ ...row, heads: { ...row.heads, [DELETED]: [edit(id, DELETED, true, base)] }, gone: true });
  }
  return { ops, rows: out, clock: clock.last, held };
}

/** Items the ledger last synced as live that memory no longer holds: deleted here since. */
export function goneSinceSync(brief: Awaited<ReturnType<SyncLedger['brief']>>, store: MemoryStore): string[] {
  return [...brief.live()].filter((id) => id !== SETTINGS_ID && !store.head(id));
}

/** Records local changes in the ledger once their operations are kept (a sealed segment in the outbox). */
export function commitLocal(ledger: SyncLedger, changes: LocalChanges): Promise<void> {
  return ledger.put(changes.rows, changes.clock);
}

/** Every field's heads of a record, as the ledger keeps them. */
function headsOf(state: MergeState, id: string): Record<string, Stamp[]> {
  const out: Record<string, Stamp[]> = {};
  for (const [field, reg] of state.records.get(id) ?? []) out[field] = reg.heads.map((h) => h.stamp);
  return out;
}

/** The ledger row of an item as this device now holds it, after a merge. */
export function syncedRow(state: MergeState, item: MemoryItem): LedgerRow {
  const prints: Record<string, number> = {};
  for (const f of ITEM_FIELDS) prints[f] = valuePrint(fieldValue(item, f));
  return { id: item.id, heads: headsOf(state, item.id), prints, content: contentPrint(item), head: headPrint(item) };
}

/**
 * Whether an item is as the ledger last synced it (`current`: as stored now; absent: the ledger says it is gone too).
 * An item the user changed or deleted since is not, and sync leaves it for the next pass to send.
 */
function unchangedSince(rows: Awaited<ReturnType<SyncLedger['brief']>>): (id: string, current: MemoryItem | undefined) => boolean {
  return (id, current) => {
    const row = rows.get(id);
    if (!current) return !row || !!row.gone;
    return !!row && !row.gone && row.head === headPrint(current) && row.content === contentPrint(current);
  };
}

/** The ledger row of an item this device no longer holds, deleted by sync (`heads`: what its delete replaced). */
function goneRow(id: string, heads: Record<string, Stamp[]>): LedgerRow {
  return { id, heads, prints: {}, content: 0, head: 0, gone: true };
}

/**
 * Writes merged records `ids` (those remote operations changed) into the memory in one turn, and the ledger after it,
 * so applied changes do not come back as local ones. A record deleted, or without a text yet, is removed. An item the
 * user changed since the last `localChanges` (or deleted) is left as it is: the next pass makes its change an
 * operation, concurrent with what arrived, and both merge. Vectors of an item whose text changed are dropped, and
 * `store.embedPending` embeds it in the background. Memory and the ledger are written in one transaction. Returns the
 * ids left for the next pass (the ledger keeps them, and the next call tries them again).
 */
export async function applyMerged(store: MemoryStore, ledger: SyncLedger, state: MergeState, ids: Iterable<string>, now = Date.now()): Promise<string[]> {
  await store.load();
  const rows = await ledger.brief();
  const puts: MemoryInput[] = [];
  const removes: string[] = [];
  for (const id of new Set([...(await ledger.pending()), ...ids])) {
    const record = id.startsWith('$') ? undefined : mergedRecord(state, id);
    if (!record) continue;
    const input = record.deleted ? undefined : inputFromRecord(record);
    if (input) puts.push(input);
    else removes.push(id);
  }
  const unchanged = unchangedSince(rows);
  // Records to remove that this memory does not hold need no write, only their ledger row (unless deleted locally).
  const absent = removes.filter((id) => !store.head(id) && unchanged(id, undefined));
  const gone = (id: string) => goneRow(id, headsOf(state, id));
  let written: LedgerRow[] = [];
  const { skipped } = await store.applySynced(puts, removes.filter((id) => store.head(id)), {
    unchanged,
    now,
    // The ledger is written with memory, in one transaction: a stop between the two would leave memory holding
    // merged values the ledger does not know of, which the next pass would take for the user's edits.
    ledger: ({ put, deleted, skipped }) => {
      written = [...put.map((it) => syncedRow(state, it)), ...[...deleted, ...absent].map(gone)];
      return { rows: written, meta: [ledger.pendingRow(skipped)] };
    },
  });
  await ledger.written(written);
  return skipped;
}

/**
 * Items whose records a snapshot shows were deleted and collected while this device was away (docs/sync.md,
 * "Collecting tombstones"): each removed from memory unless the user changed it here since the last sync. Either way
 * its ledger row says gone, so no delete is made for it again, and an item changed here is sent whole on the next pass
 * (an edit outlives a delete, as anywhere else). Memory and the ledger are written in one transaction.
 */
export async function applyCollected(store: MemoryStore, ledger: SyncLedger, ids: string[], now = Date.now()): Promise<void> {
  if (!ids.length) return;
  await store.load();
  const rows = await ledger.brief();
  const written = ids.map((id) => goneRow(id, {}));
  await store.applySynced([], ids.filter((id) => store.head(id)), { unchanged: unchangedSince(rows), now, ledger: () => ({ rows: written, meta: [] }) });
  await ledger.written(written);
}
