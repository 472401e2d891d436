// The merge rules of docs/sync.md, "Merging": per record, per field, a register of operations. The state is a
// function of the set of operations applied: order, repeats and delays of delivery do not change it.
import { DELETED } from './fields';
import type { Stamp, SyncOp } from './types';

/** Which segment of which device's log carried an operation (`log/<device>/<seq>.bin`). */
export interface Carrier {
  device: string;
  seq: number;
}

/** An operation no other operation names in its base. */
export interface Head {
  stamp: Stamp;
  base: Stamp[];
  value: unknown;
  /** Undefined while the operation is this device's own and not yet written in a segment. */
  from?: Carrier;
}

/**
 * One field of one record. `replaced`: every stamp some operation named in its base, so an operation that arrives
 * after the one that replaced it is known as replaced; with the segment that carried it, once it was applied here
 * (tombstone collection needs it), else null.
 */
export interface Register {
  heads: Head[];
  replaced: Map<Stamp, Carrier | null>;
}

/** A record (an item, or `$settings`): its registers by field. */
export type RecordState = Map<string, Register>;

/** The merged state: records by id. */
export class MergeState {
  readonly records = new Map<string, RecordState>();
}

/** What a record merges to. */
export interface MergedRecord {
  id: string;
  /**
   * Each field's value: the head with the greatest stamp among those no delete saw, or among all when a delete saw
   * them all (fields no operation set are absent).
   */
  values: Record<string, unknown>;
  /**
   * Texts kept from concurrent edits that lost: `text` heads other than the value, holding another text, one entry
   * per text (with every head that holds it), oldest first.
   */
  revisions: { stamps: Stamp[]; text: string }[];
  /** Every head of every field was seen by some delete. */
  deleted: boolean;
}

const byStamp = (a: { stamp: Stamp }, b: { stamp: Stamp }) => (a.stamp < b.stamp ? -1 : a.stamp > b.stamp ? 1 : 0);

function registerOf(state: MergeState, id: string, field: string): Register {
  let record = state.records.get(id);
  if (!record) state.records.set(id, (record = new Map()));
  let reg = record.get(field);
  if (!reg) record.set(field, (reg = { heads: [], replaced: new Map() }));
  return reg;
}

/** Applies one operation; returns whether the register changed. */
export function applyOp(state: MergeState, op: SyncOp, from?: Carrier): boolean {
  const reg = registerOf(state, op.id, op.field);
  let changed = false;
  if (op.base.length) {
    const named = new Set(op.base);
    const kept: Head[] = [];
    for (const h of reg.heads) {
      if (named.has(h.stamp)) reg.replaced.set(h.stamp, h.from ?? null);
      else kept.push(h);
    }
    changed = kept.length !== reg.heads.length;
    reg.heads = kept;
    for (const b of op.base) {
      if (!reg.replaced.has(b)) {
        reg.replaced.set(b, null);
        changed = true;
      }
    }
  }
  if (reg.replaced.has(op.stamp)) {
    // Replaced before it arrived: only where it came from is noted (for tombstone collection).
    if (from && reg.replaced.get(op.stamp) === null) reg.replaced.set(op.stamp, from);
    return changed;
  }
  const same = reg.heads.find((h) => h.stamp === op.stamp);
  if (same) {
    same.from ??= from;
    return changed;
  }
  reg.heads.push({ stamp: op.stamp, base: [...op.base], value: op.value, ...(from ? { from } : {}) });
  reg.heads.sort(byStamp);
  return true;
}

/** Applies operations (one segment's, with the segment that carried them); returns the ids of records that changed. */
export function applyOps(state: MergeState, ops: readonly SyncOp[], from?: Carrier): Set<string> {
  const touched = new Set<string>();
  for (const op of ops) if (applyOp(state, op, from)) touched.add(op.id);
  return touched;
}

/** The stamps of a field's heads, ascending (the base of an edit made knowing them). */
export function headStamps(state: MergeState, id: string, field: string): Stamp[] {
  return state.records.get(id)?.get(field)?.heads.map((h) => h.stamp) ?? [];
}

/** Every head of every field of a record, the `deleted` register's included: what a delete names as its base. */
export function recordHeads(state: MergeState, id: string): Stamp[] {
  const out: Stamp[] = [];
  for (const reg of state.records.get(id)?.values() ?? []) for (const h of reg.heads) out.push(h.stamp);
  return out.sort();
}

/** The stamps some delete saw: the union of the bases of the `deleted` register's heads. */
function seenByDeletes(record: RecordState): Set<Stamp> {
  const out = new Set<Stamp>();
  for (const d of record.get(DELETED)?.heads ?? []) for (const s of d.base) out.add(s);
  return out;
}

/** Whether every head of every field but `deleted` was seen by some delete. */
function recordDeleted(record: RecordState, seen = seenByDeletes(record)): boolean {
  if (!record.get(DELETED)?.heads.length) return false;
  for (const [field, reg] of record) if (field !== DELETED) for (const h of reg.heads) if (!seen.has(h.stamp)) return false;
  return true;
}

export function isDeleted(state: MergeState, id: string): boolean {
  const record = state.records.get(id);
  return !!record && recordDeleted(record);
}

/**
 * The heads a field's value is chosen from: those no delete saw, when there are any (an item brought back by an edit
 * made without knowing the delete takes that edit's values, not those the delete removed); otherwise all of them.
 */
function liveHeads(reg: Register | undefined, seen: Set<Stamp>): Head[] {
  if (!reg) return [];
  const open = reg.heads.filter((h) => !seen.has(h.stamp));
  return open.length ? open : reg.heads;
}

/** The greatest-stamped of these heads (heads are kept in stamp order). */
const last = (heads: Head[]): Head | undefined => heads[heads.length - 1];

/** What record `id` merges to, or undefined when no operation on it is known. */
export function mergedRecord(state: MergeState, id: string): MergedRecord | undefined {
  const record = state.records.get(id);
  if (!record) return undefined;
  const seen = seenByDeletes(record);
  const values: Record<string, unknown> = {};
  for (const [field, reg] of record) {
    const head = last(liveHeads(reg, seen));
    if (head && field !== DELETED) values[field] = head.value;
  }
  const texts = liveHeads(record.get('text'), seen);
  const text = last(texts);
  const revisions: MergedRecord['revisions'] = [];
  for (const h of texts) {
    if (h.value === text?.value) continue;
    const same = revisions.find((r) => r.text === h.value);
    if (same) same.stamps.push(h.stamp);
    else revisions.push({ stamps: [h.stamp], text: h.value as string });
  }
  return { id, values, revisions, deleted: recordDeleted(record, seen) };
}

/** An edit of `field` that replaces every head this state holds of it. */
export function editOp(state: MergeState, id: string, field: string, value: unknown, stamp: Stamp): SyncOp {
  return { id, field, value, stamp, base: headStamps(state, id, field) };
}

/** A delete of record `id` as this state sees it: it names every head of every field. */
export function deleteOp(state: MergeState, id: string, stamp: Stamp): SyncOp {
  return { id, field: DELETED, value: true, stamp, base: recordHeads(state, id) };
}

/**
 * Dismissing a revision: a text edit naming it (every head holding its text, and the value it lost to) in its base
 * and keeping the value's text, so the revision is replaced knowingly. A text edited concurrently elsewhere is not
 * named and stays.
 */
export function dismissOp(state: MergeState, id: string, revision: MergedRecord['revisions'][number], stamp: Stamp): SyncOp {
  const record = state.records.get(id);
  const reg = record?.get('text');
  const value = record && last(liveHeads(reg, seenByDeletes(record)));
  const held = new Set(reg?.heads.map((h) => h.stamp));
  if (!value || !revision.stamps.length || !revision.stamps.every((s) => held.has(s)) || revision.stamps.includes(value.stamp)) {
    throw new Error('That revision is no longer kept.');
  }
  return { id, field: 'text', value: value.value, stamp, base: [...revision.stamps, value.stamp].sort() };
}

/** Whether every one of these `seen` vectors covers the segment `c`. */
const seenByAll = (c: Carrier | null | undefined, seen: readonly Record<string, number>[]) =>
  !!c && seen.every((s) => (s[c.device] ?? 0) >= c.seq);

/** Where each operation known on the record came from (a delete's base names other registers' heads). */
function carriersOf(record: RecordState): Map<Stamp, Carrier | null> {
  const carriers = new Map<Stamp, Carrier | null>();
  for (const reg of record.values()) {
    for (const [s, c] of reg.replaced) if (!carriers.get(s)) carriers.set(s, c);
    for (const h of reg.heads) carriers.set(h.stamp, h.from ?? null);
  }
  return carriers;
}

/**
 * Whether a state that applied each device's log as far as `covers` says knows every operation on this record known
 * here: a snapshot with such covers that lacks the record had collected it, deleted (docs/sync.md, "Collecting
 * tombstones"). An operation of this device's not yet written anywhere (no carrier) is known to no snapshot.
 */
export function knownTo(record: RecordState, covers: Readonly<Record<string, number>>): boolean {
  for (const c of carriersOf(record).values()) if (!seenByAll(c, [covers])) return false;
  return true;
}

/**
 * Tombstone collection, given the `seen` vector of every active device (this one's included). A deleted record is
 * dropped once every operation on it that is known here (its heads and the operations they replaced) was carried by a
 * segment every active device has applied: no active device can then still send an operation made before the delete
 * that is not already here. A stamp named as a base is forgotten on the same condition (the operation it names was
 * applied everywhere, and segments are applied once). Returns how many records were dropped.
 */
export function collectTombstones(state: MergeState, seen: readonly Record<string, number>[]): number {
  let dropped = 0;
  for (const [id, record] of state.records) {
    const carriers = carriersOf(record);
    if (recordDeleted(record) && [...carriers.values()].every((c) => seenByAll(c, seen))) {
      state.records.delete(id);
      dropped++;
      continue;
    }
    for (const reg of record.values()) for (const s of reg.replaced.keys()) if (seenByAll(carriers.get(s), seen)) reg.replaced.delete(s);
  }
  return dropped;
}

/** Notes the segment that carried this device's own operations, once it is written. */
export function noteCarrier(state: MergeState, ops: readonly Pick<SyncOp, 'id' | 'field' | 'stamp'>[], from: Carrier): void {
  for (const op of ops) {
    const reg = state.records.get(op.id)?.get(op.field);
    if (!reg) continue;
    const head = reg.heads.find((h) => h.stamp === op.stamp);
    if (head) head.from ??= from;
    else if (reg.replaced.get(op.stamp) === null) reg.replaced.set(op.stamp, from);
  }
}

/**
 * Merges another state (a snapshot's) into `into`: its heads as the operations they are, and the stamps it knows as
 * replaced. The result is the state of the union of both sets of operations. Returns the ids of records that changed.
 */
export function mergeState(into: MergeState, from: MergeState): Set<string> {
  const touched = new Set<string>();
  for (const [id, record] of from.records) {
    for (const [field, reg] of record) {
      for (const [stamp, carrier] of reg.replaced) {
        if (applyReplaced(into, id, field, stamp, carrier)) touched.add(id);
      }
      for (const h of reg.heads) {
        if (applyOp(into, { id, field, value: h.value, stamp: h.stamp, base: h.base }, h.from)) touched.add(id);
      }
    }
  }
  return touched;
}

/** Notes that some operation named `stamp` in its base: a head of that stamp is replaced. */
function applyReplaced(state: MergeState, id: string, field: string, stamp: Stamp, carrier: Carrier | null): boolean {
  const reg = registerOf(state, id, field);
  if (reg.replaced.has(stamp)) {
    if (carrier && reg.replaced.get(stamp) === null) reg.replaced.set(stamp, carrier);
    return false;
  }
  const head = reg.heads.find((h) => h.stamp === stamp);
  reg.replaced.set(stamp, head?.from ?? carrier);
  if (head) reg.heads = reg.heads.filter((h) => h !== head);
  return !!head;
}
