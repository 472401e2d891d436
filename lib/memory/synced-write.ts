// What sync merged from the user's other devices, written into memory (MemoryStore.applySynced, inside its turn).
import { ownJob, sameTexts } from './context-vectors';
import type { SyncLedgerRow, SyncMetaRow } from './db';
import { intake } from './intake';
import { createItem } from './normalize';
import type { StoreParts } from './store-writes';
import type { MemoryInput, MemoryItem } from './types';

/** What `applySynced` wrote: items put, ids deleted, ids left as the user changed them, inputs createItem refused. */
export interface SyncApplied {
  put: MemoryItem[];
  deleted: string[];
  skipped: string[];
  refused: string[];
}

export interface SyncedWriteOptions {
  /** False when the user changed the item since sync last looked (`current`: as stored now): it is left as it is. */
  unchanged?: (id: string, current: MemoryItem | undefined) => boolean;
  /** What sync notes of the outcome, written in the same transaction. */
  ledger?: (applied: SyncApplied) => { rows: SyncLedgerRow[]; meta: SyncMetaRow[] };
  now?: number;
}

/**
 * `puts` are stored whole (through intake's `sync` provenance: kind, scope, source and hold as merged), `deletes`
 * removed, in one transaction with what `opts.ledger` gives (a stop between the two would make sync take what it
 * merged for the user's own edits). An item whose text the model reads changed loses its vectors, and `embedPending`
 * embeds it later, as after an import. An id for which `unchanged` is false is left as it is, so a local edit is never
 * overwritten; sync sees it on its next pass. An input createItem refuses is left out. Only inside the store's turn.
 */
export async function writeSynced(s: StoreParts, puts: MemoryInput[], deletes: string[], opts: SyncedWriteOptions): Promise<SyncApplied> {
  const refused: string[] = [];
  const items = puts.flatMap((input) => {
    try {
      return [createItem(intake(input, { from: 'sync' }), opts.now ?? Date.now())];
    } catch {
      if (input.id) refused.push(input.id); // e.g. a text that is nothing but control characters
      return [];
    }
  });
  const olds = await s.mem.hydrate([...items.map((it) => it.id), ...deletes], false);
  const still = (id: string) => !opts.unchanged || opts.unchanged(id, olds.get(id));
  const put = items.filter((it) => still(it.id));
  const deleted = deletes.filter((id) => olds.has(id) && still(id));
  const skipped = [...items.filter((it) => !still(it.id)).map((it) => it.id), ...deletes.filter((id) => olds.has(id) && !still(id))];
  const reembed = put.filter((it) => {
    const old = olds.get(it.id);
    return !old || it.needsReview || !s.mem.hasVector(it.id) || !sameTexts(ownJob(old).texts, ownJob(it).texts);
  });
  const gone = new Set(deleted);
  const next = s.contexts.withSuccessors(deleted).filter((id) => !gone.has(id));
  const before = s.contexts.withSuccessors(put.map((it) => it.id));
  const noted = opts.ledger?.({ put, deleted, skipped, refused });
  await s.write(async () => {
    await s.db.items.bulkPut(put);
    await s.db.vectors.bulkDelete([...reembed.map((it) => it.id), ...deleted]);
    await s.db.items.bulkDelete(deleted);
    await s.db.contexts.bulkDelete([...deleted, ...next]);
    if (noted) {
      await s.db.syncLedger.bulkPut(noted.rows);
      await s.db.syncMeta.bulkPut(noted.meta);
    }
  }, put.length + deleted.length, [s.db.syncLedger, s.db.syncMeta]);
  for (const item of put) s.mem.put(item);
  for (const item of reembed) s.mem.setVector(item.id, undefined);
  for (const id of deleted) {
    s.mem.delete(id);
    s.contexts.prints.delete(id);
  }
  await s.contexts.dropStale([...s.contexts.withSuccessors(put.map((it) => it.id), before), ...next]); // embedPending makes them
  return { put, deleted, skipped, refused };
}
