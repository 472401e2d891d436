// Texts kept from concurrent edits (docs/sync.md, "Merging": revisions): which memories have one, what they say, and
// dismissing one. Choosing a revision is an ordinary edit of the text: the next pass sends it as a knowing edit that
// replaces every text head, the revisions included.
import type { BackstoryDB } from '../memory/db';
import type { DeviceState } from './device';
import { SyncLedger } from './ledger';
import { mergedRecord, MergeState } from './merge';
import { StateStore } from './state-store';

/** The other texts a memory was given at the same time on another device, oldest first. */
export async function revisionsOf(db: BackstoryDB, id: string): Promise<string[]> {
  const state = new MergeState();
  await new StateStore(db).load(state, [id]);
  return mergedRecord(state, id)?.revisions.map((r) => r.text) ?? [];
}

/** Notes which of `ids` have revisions now, on the device's row (the status counts them). */
export function noteRevisions(dev: DeviceState, state: MergeState, ids: Iterable<string>): void {
  const now = new Set(dev.revisions ?? []);
  for (const id of ids) {
    if (mergedRecord(state, id)?.revisions.length) now.add(id);
    else now.delete(id);
  }
  dev.revisions = [...now];
}

/**
 * Dismisses a memory's revisions: the next pass sends its current text as an edit that names every text head it
 * knows (so the revisions are replaced knowingly everywhere). A text edited meanwhile on another device is not named
 * and stays.
 */
export async function dismissRevisions(db: BackstoryDB, id: string): Promise<void> {
  const state = new MergeState();
  await new StateStore(db).load(state, [id]);
  const heads = state.records.get(id)?.get('text')?.heads.map((h) => h.stamp) ?? [];
  const ledger = new SyncLedger(db);
  const row = await ledger.row(id);
  if (!row || !heads.length) return;
  // The ledger no longer knows the text's fingerprint: the next pass reads it and says it, based on every head.
  const prints = { ...row.prints };
  delete prints.text;
  await ledger.put([{ ...row, content: 0, prints, heads: { ...row.heads, text: heads } }]);
}
