// This device's part in a synced memory, kept in IndexedDB (table `syncDevice`): which vault and key, where the files
// are, how far each device's log was applied, the segment written but not yet known to be in the folder, and the
// status. One row; none while sync is off. Nothing here is synced.
import type { BackstoryDB, SyncDeviceRow } from '../memory/db';
import type { Applied } from './folder-reader';
import type { PendingSegment } from './log-writer';
import { segmentPath, snapshotPartPath, snapshotPath } from './folder-layout';
import type { VaultHeader } from './vault';
import type { SyncOp } from './types';

/** Where the files are. The WebDAV password stays on this device, as the browser keeps a site's saved password. */
export type SyncPlace = { kind: 'webdav'; url: string; user: string; password: string } | { kind: 'folder'; name: string };

/** One of this device's files as written (`DeviceState.writtenFiles`). */
export interface WrittenFile {
  /** The start of the hash of its sealed bytes (`writtenHash`); not known for a file recorded by a version before it. */
  hash?: string;
  /**
   * Its size as written: the folder listing it at another size (with no engine's copy at this one) changed or cut it
   * (`findLosses`). Not known for a device file, or a part of a snapshot whose write stopped and that is not listed.
   */
  size?: number;
  /** The place's mark of it as first listed after it was written. */
  stamp?: string;
}

/**
 * What `writtenFiles` keeps a file under: its kind of folder and its name ("log/00000012.bin"); the rest of the path
 * is the same for all of this device's files, and the record is saved at every segment written.
 */
export function writtenKey(path: string): string {
  const parts = path.split('/');
  return `${parts[2]}/${parts[parts.length - 1]}`;
}

/** Of a file's hash (hex), what `WrittenFile` keeps: 64 bits tell other bytes (readers check every byte by its seal). */
export const writtenHash = (hex: string): string => hex.slice(0, 16);

export interface DeviceState extends SyncDeviceRow {
  key: 'device';
  deviceId: string;
  deviceName: string;
  joinedAt: number;
  vaultId: string;
  header: VaultHeader;
  /** SHA-256 of the header's canonical form (what seals are bound to). */
  digest: Uint8Array;
  /** The vault key: non-extractable, usable only to derive file keys. */
  vaultKey: CryptoKey;
  place: SyncPlace;
  /** How far every device's log is applied here, this device's own included (its chain head). */
  applied: Record<string, Applied>;
  /** The last `seen` vector each device wrote, for collecting tombstones. */
  seen: Record<string, Record<string, number>>;
  /** When each device last wrote a segment (its newest stamp's wall time), to tell the active ones. */
  wrote: Record<string, number>;
  /** This device's seq at its last snapshot, and operations it wrote or applied since. */
  snapshotSeq: number;
  /** How far that snapshot covers each device's log (`findLosses` reads it while the snapshot is in the folder). */
  snapshotCovers?: Record<string, number>;
  /** How many parts that snapshot has: it counts as covering only while every one is in the folder. */
  snapshotParts?: number;
  opsSinceSnapshot: number;
  /** Bytes of segments this device wrote since its last snapshot, and that snapshot's size. */
  bytesSinceSnapshot?: number;
  /**
   * This device's file, its segments since its newest snapshot, and that snapshot's files (by `writtenKey`): the hash
   * of the sealed bytes written, their size, and the place's mark of the file (`SyncFileEntry.stamp`) as first listed
   * after. A file the folder lists at another size was changed or cut short there; one listed with another mark is read
   * again, and if its bytes no longer hash as written, it was changed in place (`findLosses`, `changedInPlace`,
   * `LogWriter.mendDeviceFile`). Devices that have not read a damaged segment wait before it.
   */
  writtenFiles?: Record<string, WrittenFile>;
  snapshotBytes?: number;
  /**
   * A snapshot (version 2) being applied part by part: its manifest, the next part, the last record id applied (parts
   * hold records in id order) and the records applied so far. How far each log is applied moves to the snapshot's
   * `covers` only after its last part, so a worker stopped midway goes on from `next` on its next pass.
   */
  snapshotProgress?: { path: string; next: number; last?: string; done: number };
  /** Snapshots (`<manifest path> <hash>`) with a part refused (another file under its name): not chosen again. */
  refusedSnapshots?: string[];
  lastSyncedAt?: number;
  /** Devices sharing the memory (their device files), this one included. */
  devices: number;
  /** Why the last pass failed, in words; cleared by a pass that finishes. */
  failure?: string;
  /** The last pass failed because the browser took back the folder's permission: one click in a page gives it back. */
  reconnect?: boolean;
  /**
   * The last thing a pass noticed and said (a tampered file, a clock far ahead, a copied profile), in words, and when:
   * it stays in the status for `NOTICE_KEPT_MS` after, unless another replaces it.
   */
  notice?: string;
  noticeAt?: number;
  /** Memories with a revision from a concurrent edit, for the status ("2 memories have two versions"). */
  revisions?: string[];
  /**
   * Memories deleted here but never sent, when this profile joined again as a new device (`syncPass`): its first
   * pass's union brings them back, so that pass deletes them again before it sends. Kept here, as the worker may stop.
   */
  redelete?: string[];
  /** Problems said once already (a gap, a fork, a tampered file), so the status does not repeat them. */
  said: string[];
  /**
   * The gaps this device waits at (`<device> <first missing seq>`) and the logs it stands short of where another
   * device applied them (`past <device>`), with when it first found each (lib/sync/folder-losses.ts).
   */
  waiting?: Record<string, number>;
}

const KEY = 'device';

/**
 * A sealed segment kept until the folder holds it, written again as it is after a stop; a row of its own (key
 * `outbox:<seq>`), so writing one of many does not rewrite the others. `ops` names what it carries (no values): the
 * state notes which segment carried them once it is written.
 */
export interface OutboxRow extends SyncDeviceRow {
  key: string;
  pending: PendingSegment;
  ops: Pick<SyncOp, 'id' | 'field' | 'stamp'>[];
}

const OUTBOX = 'outbox:';
const outboxKey = (seq: number) => `${OUTBOX}${String(seq).padStart(8, '0')}`;

export function outboxRow(pending: PendingSegment, ops: readonly SyncOp[]): OutboxRow {
  return { key: outboxKey(pending.seq), pending, ops: ops.map((o) => ({ id: o.id, field: o.field, stamp: o.stamp })) };
}

/** The outbox, oldest segment first. */
export async function readOutbox(db: BackstoryDB): Promise<OutboxRow[]> {
  return (await db.syncDevice.where('key').startsWith(OUTBOX).sortBy('key')) as OutboxRow[];
}

export async function dropOutbox(db: BackstoryDB, seq: number): Promise<void> {
  await db.syncDevice.delete(outboxKey(seq));
}

export async function readDevice(db: BackstoryDB): Promise<DeviceState | undefined> {
  const row = (await db.syncDevice.get(KEY)) as (DeviceState & SizesKeptApart) | undefined;
  return row && withSizesInWrittenFiles(row);
}

/** How a version before `WrittenFile.size` kept the sizes of this device's files. */
interface SizesKeptApart {
  /** Each segment's size since the newest snapshot, by seq. */
  segmentSizes?: Record<number, number>;
  /** That snapshot's manifest's size and its parts', by part number. */
  snapshotSizes?: { manifest: number; parts: Record<number, number> };
}

/** A device row written by a version that kept sizes apart, with them moved into `writtenFiles`. */
function withSizesInWrittenFiles(row: DeviceState & SizesKeptApart): DeviceState {
  const { segmentSizes, snapshotSizes, ...dev } = row;
  if (!segmentSizes && !snapshotSizes) return row;
  const written = { ...dev.writtenFiles };
  const sized = (path: string, size: number | undefined) => {
    const key = writtenKey(path);
    if (typeof size === 'number' && written[key]?.size === undefined) written[key] = { ...written[key], size };
  };
  for (const [seq, size] of Object.entries(segmentSizes ?? {})) sized(segmentPath(dev.vaultId, dev.deviceId, Number(seq)), size);
  if (snapshotSizes) {
    sized(snapshotPath(dev.vaultId, dev.deviceId, dev.snapshotSeq), snapshotSizes.manifest);
    for (const [part, size] of Object.entries(snapshotSizes.parts ?? {})) sized(snapshotPartPath(dev.vaultId, dev.deviceId, dev.snapshotSeq, Number(part)), size);
  }
  return { ...dev, writtenFiles: written };
}

export async function writeDevice(db: BackstoryDB, state: DeviceState): Promise<void> {
  await db.syncDevice.put(state);
}

/** Forgets this device's part (disconnect): what it merged stays in memory; the ledger and state go with it. */
export async function forgetDevice(db: BackstoryDB): Promise<void> {
  await db.transaction('rw', [db.syncDevice, db.syncLedger, db.syncMeta, db.syncState], async () => {
    await db.syncDevice.clear();
    await db.syncLedger.clear();
    await db.syncMeta.clear();
    await db.syncState.clear();
  });
}
