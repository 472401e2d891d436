// The bodies of sealed files (docs/sync.md, "Segments", "The folder") and their checks. What a file says of itself
// (device, seq, prev) is what a reader trusts, so its shape is checked strictly; op values stay unknown here, as the
// merge engine (lib/sync/merge.ts) checks fields.
import * as v from 'valibot';
import { MAX_REF_CHARS } from './fields';
import { MAX_SNAPSHOT_PARTS } from './folder-layout';
import { STATE_LIMITS } from './merge-json';
import { ID_PATTERN } from './vault-header';
import type { SegmentBody, SnapshotBody } from './types';

const Id = v.pipe(v.string(), v.regex(ID_PATTERN));
const Seq = v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(99_999_999));
const Hash = v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/));
const Seen = v.pipe(v.record(Id, Seq), v.check((r) => Object.keys(r).length <= 1000, 'too many devices'));

const Op = v.strictObject({
  // As long as any record id (parseOps checks each op fully): a mail's id can pass 256 characters.
  id: v.pipe(v.string(), v.minLength(1), v.maxLength(MAX_REF_CHARS)),
  field: v.pipe(v.string(), v.minLength(1), v.maxLength(64)),
  value: v.unknown(),
  stamp: v.pipe(v.string(), v.minLength(1), v.maxLength(128)),
  base: v.pipe(v.array(v.pipe(v.string(), v.maxLength(128))), v.maxLength(1000)),
});

const SegmentSchema = v.pipe(
  v.strictObject({
    device: Id,
    seq: v.pipe(Seq, v.minValue(1)),
    prev: v.union([v.literal(''), Hash]),
    seen: Seen,
    ops: v.pipe(v.array(Op), v.maxLength(500_000)),
  }),
  v.check((s) => (s.seq === 1) === (s.prev === ''), 'only the first segment has no previous one'),
);

const SnapshotSchema = v.pipe(
  v.strictObject({
    device: Id,
    seq: Seq,
    covers: Seen,
    /** The hash of the last segment of each device the state covers, so the chains go on from the snapshot. */
    heads: v.record(Id, v.union([v.literal(''), Hash])),
    state: v.unknown(),
  }),
  v.check(
    (s) => Object.keys(s.covers).length === Object.keys(s.heads).length
      && Object.entries(s.covers).every(([d, seq]) => d in s.heads && (seq === 0) === (s.heads[d] === '')),
    'every device a snapshot covers has its chain head',
  ),
);

/** The snapshot format written: a manifest naming its parts by hash (version 1 was one file holding the whole state). */
export const SNAPSHOT_VERSION = 2;

const ManifestSchema = v.pipe(
  v.strictObject({
    version: v.literal(SNAPSHOT_VERSION),
    device: Id,
    seq: Seq,
    covers: Seen,
    heads: v.record(Id, v.union([v.literal(''), Hash])),
    /** Records in all parts together. */
    records: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(STATE_LIMITS.records)),
    /** The SHA-256 of each part's sealed bytes, in order. */
    parts: v.pipe(v.array(Hash), v.maxLength(MAX_SNAPSHOT_PARTS)),
  }),
  v.check(
    (s) => Object.keys(s.covers).length === Object.keys(s.heads).length
      && Object.entries(s.covers).every(([d, seq]) => d in s.heads && (seq === 0) === (s.heads[d] === '')),
    'every device a snapshot covers has its chain head',
  ),
  v.check((s) => (s.records === 0) === (s.parts.length === 0) && s.parts.length <= s.records, 'its parts do not hold its records'),
);

const PartSchema = v.strictObject({
  device: Id,
  seq: Seq,
  part: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(MAX_SNAPSHOT_PARTS - 1)),
  records: v.pipe(v.array(v.unknown()), v.nonEmpty(), v.maxLength(STATE_LIMITS.records)),
});

const DeviceSchema = v.strictObject({
  device: Id,
  name: v.pipe(v.string(), v.maxLength(100)),
  joinedAt: v.pipe(v.number(), v.integer(), v.minValue(0)),
});

/** A snapshot as written: the state with where each covered device's chain stood. */
export type SealedSnapshot = SnapshotBody & { heads: Record<string, string> };
export type DeviceBody = v.InferOutput<typeof DeviceSchema>;
/** A snapshot's manifest (version 2): where each covered chain stood, and its parts by hash. */
export type SnapshotManifest = v.InferOutput<typeof ManifestSchema>;
/** A part of a snapshot: some of its records (merge-json's `RecordJson`, unchecked here), in id order. */
export type SnapshotPart = v.InferOutput<typeof PartSchema>;

function check<T>(schema: v.GenericSchema<unknown, T>, json: unknown, what: string): T {
  const r = v.safeParse(schema, json);
  if (r.success) return r.output;
  const issue = r.issues[0];
  throw new Error(`The ${what} is not what Backstory writes (${v.getDotPath(issue) ?? 'body'}: ${issue.message}).`);
}

export const checkSegment = (json: unknown): SegmentBody => check(SegmentSchema, json, 'segment');
/** A snapshot file: a manifest (version 2), or a whole snapshot of the first format (no `version`). */
export function checkSnapshot(json: unknown): SealedSnapshot | SnapshotManifest {
  if (json && typeof json === 'object' && 'version' in json) return check(ManifestSchema, json, 'snapshot');
  return check(SnapshotSchema, json, 'snapshot') as SealedSnapshot;
}
export const checkSnapshotPart = (json: unknown): SnapshotPart => check(PartSchema, json, 'snapshot part');
export const checkDevice = (json: unknown): DeviceBody => check(DeviceSchema, json, 'device file');
