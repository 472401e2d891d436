// The synced settings as the record `$settings` (docs/sync.md, "What syncs"): this device's changes as operations, and
// the merged values back. The settings layer sits above sync, so the values are plain JSON here and the service reads
// and writes them (lib/service/sync-service.ts).
import { badValue, SETTINGS_FIELDS, SETTINGS_ID } from './fields';
import type { HybridClock } from './hlc';
import { valuePrint } from './item-record';
import type { LedgerRow } from './ledger';
import { mergedRecord, type MergeState } from './merge';
import type { HeldValue, SyncOp } from './types';

export type SettingsField = (typeof SETTINGS_FIELDS)[number];
/** The settings that sync, each a plain JSON value; a field this device does not sync is absent. */
export type SyncedSettings = Partial<Record<SettingsField, unknown>>;

/**
 * Edits of the settings fields whose value changed since the ledger's row, and the row once they are kept. A value
 * past what other devices accept (`FIELD_VALUE`) is `held`: no edit, the row unchanged, so it goes once it fits.
 */
export function settingsChanges(current: SyncedSettings, row: LedgerRow | undefined, clock: HybridClock, now: number): { ops: SyncOp[]; row: LedgerRow; held: HeldValue[] } {
  const out: LedgerRow = { id: SETTINGS_ID, heads: { ...row?.heads }, prints: { ...row?.prints }, content: 0, head: 0 };
  const ops: SyncOp[] = [];
  const held: HeldValue[] = [];
  for (const field of SETTINGS_FIELDS) {
    if (!(field in current)) continue;
    const p = valuePrint(current[field]);
    if (row?.prints[field] === p) continue;
    const why = badValue(field, current[field]);
    if (why) {
      held.push({ id: SETTINGS_ID, field, why, print: p });
      continue;
    }
    out.prints[field] = p;
    const stamp = clock.next(now);
    ops.push({ id: SETTINGS_ID, field, value: current[field], stamp, base: row?.heads[field] ?? [] });
    out.heads[field] = [stamp];
  }
  return { ops, row: out, held };
}

/** Every concurrent head's value of each field, oldest stamp first (the last is the field's merged value). */
export type SettingsHeads = Partial<Record<SettingsField, unknown[]>>;

/**
 * The merged settings, and the ledger row that says this device now holds them. `heads` carries every concurrent
 * value of each field, for fields whose values are unions (feedback, suggested sites): the service unions them, and
 * the next edit here names every head as its base, which merges them away.
 */
export function mergedSettings(state: MergeState, row: LedgerRow | undefined): { values: SyncedSettings; heads: SettingsHeads; row: LedgerRow } | undefined {
  const record = mergedRecord(state, SETTINGS_ID);
  if (!record) return undefined;
  const out: LedgerRow = { id: SETTINGS_ID, heads: { ...row?.heads }, prints: { ...row?.prints }, content: 0, head: 0 };
  const values: SyncedSettings = {};
  const heads: SettingsHeads = {};
  for (const field of SETTINGS_FIELDS) {
    if (!(field in record.values)) continue;
    const reg = state.records.get(SETTINGS_ID)!.get(field)!;
    values[field] = record.values[field];
    heads[field] = reg.heads.map((h) => h.value);
    out.prints[field] = valuePrint(record.values[field]);
    out.heads[field] = reg.heads.map((h) => h.stamp);
  }
  return { values, heads, row: out };
}
