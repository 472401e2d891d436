// The merged state as a snapshot holds it (docs/sync.md, "Snapshots"), its checking on the way in, and its hash.
import * as v from 'valibot';
import { badValue, canonicalJson, isFieldOf, MAX_BASE, MAX_REF_CHARS, SyncFormatError } from './fields';
import { isDeviceId, isStamp } from './hlc';
import { mergedRecord, MergeState, type Carrier, type Head, type RecordState } from './merge';

export const STATE_FORMAT = 'backstory-merge';
export const STATE_VERSION = 1;

/**
 * What a snapshot may hold at most. A memory of a million items is ten times the largest the store is measured with;
 * a register has one head per concurrent edit not yet resolved (a handful per device); the stamps a register
 * remembers as replaced are collected once every active device has seen them.
 */
export const STATE_LIMITS = { records: 1_000_000, heads: 256, replaced: 100_000 } as const;

type CarrierJson = [string, number];
interface HeadJson {
  stamp: string;
  base: string[];
  value: unknown;
  from?: CarrierJson;
}
export interface RegisterJson {
  heads: HeadJson[];
  /** `[stamp]`, or `[stamp, device, seq]` once the operation was applied here. */
  replaced: ([string] | [string, string, number])[];
}
export interface StateJson {
  format: typeof STATE_FORMAT;
  version: typeof STATE_VERSION;
  records: { id: string; fields: Record<string, RegisterJson> }[];
}

const stamp = v.pipe(v.string(), v.check((s: string) => isStamp(s), 'is not a stamp'));
const device = v.pipe(v.string(), v.check((s: string) => isDeviceId(s), 'is not a device id'));
const seq = v.pipe(v.number(), v.integer(), v.minValue(1));
const HeadSchema = v.strictObject({
  stamp,
  base: v.pipe(v.array(stamp), v.maxLength(MAX_BASE)),
  value: v.unknown(),
  from: v.optional(v.strictTuple([device, seq])),
});
const RegisterSchema = v.strictObject({
  heads: v.pipe(v.array(HeadSchema), v.nonEmpty(), v.maxLength(STATE_LIMITS.heads)),
  replaced: v.pipe(v.array(v.union([v.strictTuple([stamp, device, seq]), v.strictTuple([stamp])])), v.maxLength(STATE_LIMITS.replaced)),
});
/**
 * The state's frame; its records are checked one at a time (`RecordSchema`), so checking a snapshot does not build a
 * second copy of the whole memory beside the one it is read into (461 MB at 10k items when it did).
 */
const StateSchema = v.strictObject({
  format: v.literal(STATE_FORMAT),
  version: v.literal(STATE_VERSION),
  records: v.pipe(v.array(v.unknown()), v.maxLength(STATE_LIMITS.records)),
});
const RecordSchema = v.strictObject({
  id: v.pipe(v.string(), v.nonEmpty(), v.maxLength(MAX_REF_CHARS)),
  fields: v.record(v.string(), RegisterSchema),
});

function unreadable(issue: v.BaseIssue<unknown>, prefix: string): SyncFormatError {
  const path = [prefix, ...(issue.path ?? []).map((p) => String(p.key))].filter(Boolean).join('.');
  return new SyncFormatError(`The synced snapshot is not readable (${path || 'its start'}: ${issue.message}).`);
}

const carrierJson = (c: Carrier): CarrierJson => [c.device, c.seq];

/** One record's registers as JSON: fields by name, heads by stamp (a snapshot's records, and this device's own store). */
export function recordToJson(record: RecordState): Record<string, RegisterJson> {
  const fields: Record<string, RegisterJson> = {};
  for (const field of [...record.keys()].sort()) {
    const reg = record.get(field)!;
    if (!reg.heads.length) continue;
    fields[field] = {
      heads: reg.heads.map((h) => ({ stamp: h.stamp, base: h.base, value: h.value, ...(h.from ? { from: carrierJson(h.from) } : {}) })),
      replaced: [...reg.replaced].sort(([a], [b]) => (a < b ? -1 : 1)).map(([s, c]) => (c ? [s, c.device, c.seq] : [s])),
    };
  }
  return fields;
}

/** A record this device wrote itself (`recordToJson`), read back without the checks a snapshot from the folder gets. */
export function recordFromOwnJson(fields: Record<string, RegisterJson>): RecordState {
  const record: RecordState = new Map();
  for (const [field, reg] of Object.entries(fields)) {
    record.set(field, {
      heads: reg.heads.map((h) => ({ stamp: h.stamp, base: h.base, value: h.value, ...(h.from ? { from: { device: h.from[0], seq: h.from[1] } } : {}) })),
      replaced: new Map(reg.replaced.map((e) => [e[0], e.length === 3 ? { device: e[1], seq: e[2] } : null] as const)),
    });
  }
  return record;
}

/** The state as JSON (a snapshot's `state`): records by id, fields by name, heads by stamp. */
export function stateToJson(state: MergeState): StateJson {
  const records = [...state.records.keys()].sort().map((id) => ({ id, fields: recordToJson(state.records.get(id)!) }));
  return { format: STATE_FORMAT, version: STATE_VERSION, records };
}

/**
 * A state from a snapshot's JSON, checked like operations are (fields of a closed list, values of their type and
 * size) and within STATE_LIMITS. Throws SyncFormatError; a snapshot that fails is not used at all.
 */
export function stateFromJson(raw: unknown): MergeState {
  const r = v.safeParse(StateSchema, raw);
  if (!r.success) throw unreadable(r.issues[0], '');
  const state = new MergeState();
  for (const [i, rawRecord] of r.output.records.entries()) {
    const { id, record } = recordFromJson(rawRecord, `records.${i}`);
    if (state.records.has(id)) throw new SyncFormatError(`The synced snapshot holds the record "${id.slice(0, 40)}" twice.`);
    state.records.set(id, record);
  }
  return state;
}

/**
 * The records of a snapshot's part, checked as `stateFromJson` checks a whole state, and in strictly increasing id
 * order after `after` (the last id of the part before): no record is in two parts. Throws SyncFormatError.
 */
export function recordsFromJson(raw: readonly unknown[], after: string | undefined, where: string): MergeState {
  const state = new MergeState();
  let last = after;
  for (const [i, rawRecord] of raw.entries()) {
    const { id, record } = recordFromJson(rawRecord, `${where}.records.${i}`);
    if (last !== undefined && !(last < id)) {
      throw new SyncFormatError(`The synced snapshot is not readable (${where}: the record "${id.slice(0, 40)}" is out of order or twice).`);
    }
    last = id;
    state.records.set(id, record);
  }
  return state;
}

/** One record of a snapshot, checked (fields of the closed list, values of their type and size, no change twice). */
function recordFromJson(rawRecord: unknown, where: string): { id: string; record: RecordState } {
  const rec = v.safeParse(RecordSchema, rawRecord);
  if (!rec.success) throw unreadable(rec.issues[0], where);
  const { id, fields } = rec.output;
  const record: RecordState = new Map();
  for (const [field, reg] of Object.entries(fields)) {
    if (!isFieldOf(id, field)) throw new SyncFormatError(`The synced snapshot has an unknown field "${field.slice(0, 40)}".`);
    const heads: Head[] = reg.heads.map((h) => {
      const bad = badValue(field, h.value);
      if (bad) throw new SyncFormatError(`The synced snapshot is not readable: ${bad}.`);
      return { stamp: h.stamp, base: h.base, value: h.value, ...(h.from ? { from: { device: h.from[0], seq: h.from[1] } } : {}) };
    });
    heads.sort((a, b) => (a.stamp < b.stamp ? -1 : 1));
    const replaced = new Map(reg.replaced.map((e) => [e[0], e.length === 3 ? { device: e[1], seq: e[2] } : null] as const));
    if (heads.some((h, i) => replaced.has(h.stamp) || heads[i - 1]?.stamp === h.stamp)) {
      throw new SyncFormatError('The synced snapshot is not readable: a field names one change twice.');
    }
    record.set(field, { heads, replaced });
  }
  return { id, record };
}

/**
 * SHA-256 (hex) over what the live records merge to (each field's value as canonical JSON, and the revisions with
 * their stamps), in id and field order: the same on every device that applied the same operations, whatever the order
 * they came in. What only sync keeps (deleted records, heads a value is not chosen from, replaced stamps, carriers) is
 * left out, so a device that has collected tombstones has the hash of one that has not yet.
 */
export async function stateHash(state: MergeState): Promise<string> {
  const lines: string[] = [];
  for (const id of [...state.records.keys()].sort()) {
    const merged = mergedRecord(state, id)!;
    if (merged.deleted) continue;
    const fields = Object.keys(merged.values).sort().map((f) => [f, canonicalJson(merged.values[f])]);
    const revisions = merged.revisions.map((r) => [r.text, [...r.stamps].sort()]).sort((a, b) => (a[0] < b[0] ? -1 : 1));
    lines.push(JSON.stringify([id, fields, revisions]));
  }
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(lines.join('\n')));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}
