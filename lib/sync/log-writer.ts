// Writing this device's files (docs/sync.md, "The folder"): its device file, the next segment of its log with the
// right `seq` and `prev`, snapshots, and removing its own files a newer snapshot of its own covers. A device writes
// only under its own paths, so it never races another writer for a name.
import { sameBytes, sha256, toHex } from './bytes';
import { devicePath, MAX_SNAPSHOT_PARTS, parseListing, segmentPath, snapshotPartPath, snapshotPath, type FolderListing } from './folder-layout';
import type { Applied } from './folder-reader';
import { open, seal, sealJson, type SealingVault } from './seal';
import { checkDevice, checkSegment, checkSnapshot, checkSnapshotPart, SNAPSHOT_VERSION, type SnapshotManifest } from './segment';
import { writtenHash, type WrittenFile } from './device';
import { SyncPlaceError, type SegmentBody, type SyncOp, type SyncStorage } from './types';

/** One file of a snapshot as `LogWriter.snapshot` wrote it (or found it, written before a stop). */
export interface SnapshotFile {
  /** The SHA-256 of its sealed bytes, hex (a part the manifest names otherwise: not known). */
  hash?: string;
  /** Its size (a part of a stopped write that is no longer listed: not known). */
  size?: number;
}

/** A sealed segment not yet known to be in the folder. The wiring keeps it (IndexedDB) and writes it again as it is. */
export interface PendingSegment {
  path: string;
  seq: number;
  /** Hex SHA-256 of `bytes`: this device's new chain head once written. */
  hash: string;
  bytes: Uint8Array;
}

/**
 * The folder holds, where this device was about to write, another file of this device that its name says, sealed with
 * this memory's key: a profile holding this device's part wrote it (this one was copied, or restored from a backup)
 * and its log there went on without this memory.
 */
export class LogForkError extends Error {
  constructor(readonly path: string) {
    super(
      `The synced folder already holds a different ${path.includes('/log/') ? 'segment' : 'file'} of this device at ${path}: ` +
        'this device\'s memory is older than what it wrote there (was it restored from a backup?). Nothing was written.',
    );
    this.name = 'LogForkError';
  }
}

/**
 * The body of `bytes` when they are the file of `device` that `path` names (its device file, a segment, a snapshot's
 * manifest or part, with that device, number and part inside), sealed with the vault's key; undefined for junk, or
 * another of its files copied there.
 */
async function ownFileAt(vault: SealingVault & { vaultId: string }, device: string, path: string, bytes: Uint8Array): Promise<object | undefined> {
  const at = parseListing([{ path, size: bytes.length }], vault.vaultId);
  const says = <T extends { device?: unknown; seq?: unknown; part?: unknown }>(body: T, want: { device: string; seq: number; part?: number }) =>
    body.device === want.device && body.seq === want.seq && (want.part === undefined || body.part === want.part) ? body : undefined;
  try {
    if (at.devices[0]?.device === device) {
      const body = checkDevice(await open(vault, 'device', bytes));
      return body.device === device ? body : undefined;
    }
    if (at.segments[0]?.device === device) return says(checkSegment(await open(vault, 'segment', bytes)), at.segments[0]);
    if (at.snapshots[0]?.device === device) return says(checkSnapshot(await open(vault, 'snapshot', bytes)), at.snapshots[0]);
    if (at.parts[0]?.device === device) return says(checkSnapshotPart(await open(vault, 'snapshot-part', bytes)), at.parts[0]);
  } catch {
    // not sealed with this key, or not what its name says
  }
  return undefined;
}

const SNAPSHOTS_KEPT = 2;
/** A snapshot's part holds at most this much JSON (about 420 items of 1,500 characters each)... */
export const PART_BYTES = 2_000_000;
/** ...and at most this many records (a memory of short notes). */
export const PART_RECORDS = 2_000;

export class LogWriter {
  constructor(
    private readonly storage: SyncStorage,
    private readonly vault: SealingVault & { vaultId: string },
    readonly device: string,
  ) {}

  /** Writes this device's file (its name, when it joined) unless it is there. */
  async join(name: string, joinedAt = Date.now()): Promise<void> {
    const path = devicePath(this.vault.vaultId, this.device);
    if (await this.existing(path)) return;
    await this.storage.create(path, await this.deviceFile(name, joinedAt));
  }

  /**
   * Writes this device's file again where the folder holds none of it as written: neither the file under its name nor
   * an engine's copy has the bytes `written` says (before that is known: opens as this device's file, whatever its
   * size, as another version may write it). The file under its name listed with the mark it had when last found so is
   * not read again. Changed or cut short there, or gone, other devices that had not read it knew this device by no
   * name and did not count it. Returns whether it was written, and the file as it now stands, for the next pass.
   */
  async mendDeviceFile(listing: FolderListing, name: string, joinedAt: number, written?: WrittenFile): Promise<{ wrote: boolean; file: WrittenFile }> {
    const mine = listing.devices.filter((f) => f.device === this.device).sort((a, b) => Number(a.copy) - Number(b.copy));
    const own = mine[0]?.copy === false ? mine[0] : undefined;
    if (written?.stamp !== undefined && own?.stamp === written.stamp) return { wrote: false, file: written };
    for (const f of mine) {
      const bytes = await this.existing(f.path);
      if (!bytes) continue;
      const hash = writtenHash(toHex(await sha256(bytes)));
      if (written?.hash ? hash !== written.hash : !(await ownFileAt(this.vault, this.device, f.path, bytes))) continue;
      const stamp = f === own ? f.stamp : written?.stamp;
      return { wrote: false, file: { hash, ...(stamp !== undefined ? { stamp } : {}) } };
    }
    const bytes = await this.deviceFile(name, joinedAt);
    await writeOver(this.storage, devicePath(this.vault.vaultId, this.device), bytes);
    return { wrote: true, file: { hash: writtenHash(toHex(await sha256(bytes))) } };
  }

  private deviceFile(name: string, joinedAt: number): Promise<Uint8Array> {
    return seal(this.vault, 'device', { device: this.device, name: name.slice(0, 100), joinedAt });
  }

  /** Seals the segment after `last` (this device's own chain head; undefined before its first). */
  async prepare(last: Applied | undefined, seen: Record<string, number>, ops: SyncOp[]): Promise<PendingSegment> {
    const seq = (last?.seq ?? 0) + 1;
    const body: SegmentBody = { device: this.device, seq, prev: last?.hash ?? '', seen, ops };
    const bytes = await seal(this.vault, 'segment', body);
    return { path: segmentPath(this.vault.vaultId, this.device, seq), seq, hash: toHex(await sha256(bytes)), bytes };
  }

  /**
   * Writes a prepared segment. Safe to call again with the same one after a failure: the same bytes under the same
   * name. Throws LogForkError where another file of this device already sits under its name, whether or not the place
   * honours create-only writes (it reads first).
   */
  async write(pending: PendingSegment): Promise<void> {
    await this.writeOnce(pending.path, pending.bytes);
  }

  /**
   * Writes a snapshot after this device's own segment `seq` (`covers`: every device's chain head): its records, given a
   * slice at a time in id order, go into parts of at most `partBytes` of JSON (or `PART_RECORDS` records), each sealed
   * and written as soon as it is full, then the manifest naming each part by the hash of its sealed bytes. Neither the
   * whole state nor more than one part is held. Parts left by a write that stopped before its manifest are removed
   * first (no manifest names them). Returns the manifest's path, the bytes of every file written (or found there), and
   * each file's hash and size by path (`SnapshotFile`).
   */
  async snapshot(
    seq: number,
    covers: Readonly<Record<string, Applied>>,
    slices: AsyncIterable<readonly unknown[]> | Iterable<readonly unknown[]>,
    opts: { partBytes?: number } = {},
  ): Promise<{ path: string; size: number; parts: number; files: Record<string, SnapshotFile> }> {
    const path = snapshotPath(this.vault.vaultId, this.device, seq);
    const listing = parseListing(await this.storage.list(), this.vault.vaultId);
    const left = listing.parts.filter((p) => p.device === this.device && p.seq === seq);
    const there = await this.existing(path);
    const made = there && (await ownFileAt(this.vault, this.device, path, there));
    if (there && made) {
      // Written before a stop: as many parts as it names (some may have gone since), not as many as are found, each
      // with the hash the manifest names and the size it has now (the stopped write's bytes are not known).
      const named: unknown[] = 'parts' in made && Array.isArray(made.parts) ? made.parts : [];
      const files: Record<string, SnapshotFile> = { [path]: { hash: toHex(await sha256(there)), size: there.length } };
      named.forEach((h, k) => {
        const found = left.find((p) => !p.copy && p.part === k);
        files[snapshotPartPath(this.vault.vaultId, this.device, seq, k)] = { ...(typeof h === 'string' ? { hash: h } : {}), ...(found ? { size: found.size } : {}) };
      });
      return { path, size: there.length + left.reduce((n, p) => n + p.size, 0), parts: named.length, files };
    }
    // Another file there is what a cut-off upload of the manifest left, or junk: written over, with the parts.
    if (there) await this.storage.remove(path);
    for (const p of left) await this.storage.remove(p.path);
    const limit = opts.partBytes ?? PART_BYTES;
    const hashes: string[] = [];
    const files: Record<string, SnapshotFile> = {};
    let size = 0;
    let records = 0;
    let part: string[] = [];
    let bytes = 0;
    const flush = async () => {
      if (!part.length) return;
      if (hashes.length >= MAX_SNAPSHOT_PARTS) throw new Error(`A snapshot cannot have more than ${MAX_SNAPSHOT_PARTS} parts.`);
      const head = JSON.stringify({ device: this.device, seq, part: hashes.length });
      const sealed = await sealJson(this.vault, 'snapshot-part', `${head.slice(0, -1)},"records":[${part.join(',')}]}`);
      const partPath = snapshotPartPath(this.vault.vaultId, this.device, seq, hashes.length);
      await this.storage.create(partPath, sealed);
      const hash = toHex(await sha256(sealed));
      hashes.push(hash);
      files[partPath] = { hash, size: sealed.length };
      size += sealed.length;
      part = [];
      bytes = 0;
    };
    for await (const slice of slices) {
      for (const record of slice) {
        const json = JSON.stringify(record);
        if (part.length && (bytes + json.length > limit || part.length >= PART_RECORDS)) await flush();
        part.push(json);
        bytes += json.length + 1;
        records++;
      }
    }
    await flush();
    const manifest: SnapshotManifest = {
      version: SNAPSHOT_VERSION,
      device: this.device,
      seq,
      covers: Object.fromEntries(Object.entries(covers).map(([d, a]) => [d, a.seq])),
      heads: Object.fromEntries(Object.entries(covers).map(([d, a]) => [d, a.hash])),
      records,
      parts: hashes,
    };
    const sealed = await seal(this.vault, 'snapshot', manifest);
    await this.storage.create(path, sealed);
    files[path] = { hash: toHex(await sha256(sealed)), size: sealed.length };
    return { path, size: size + sealed.length, parts: hashes.length, files };
  }

  /**
   * Removes this device's files that its snapshots make unneeded: every snapshot but the newest two (manifest and
   * parts; parts no manifest names, below those, too), and every
   * segment the older of those two covers (a device behind reads that snapshot, then the segments after it). With
   * `segmentsUpTo` (the last of this device's segments every other active device has applied), every snapshot but the
   * newest goes, and the segments up to that one and covered by the newest snapshot. Returns the paths removed.
   */
  async prune(opts: { segmentsUpTo?: number } = {}): Promise<string[]> {
    const listing = parseListing(await this.storage.list(), this.vault.vaultId);
    const mine = <T extends { device: string }>(xs: T[]) => xs.filter((x) => x.device === this.device);
    const snaps = mine(listing.snapshots);
    const seqs = [...new Set(snaps.map((s) => s.seq))].sort((a, b) => b - a);
    const kept = opts.segmentsUpTo === undefined ? SNAPSHOTS_KEPT : 1;
    if (seqs.length < kept) return [];
    const floor = seqs[kept - 1];
    const upTo = Math.min(floor, opts.segmentsUpTo ?? floor);
    // Manifests before their parts: a reader never finds a manifest whose parts were pruned, only parts without one.
    const doomed = [
      ...snaps.filter((s) => s.seq < floor),
      ...mine(listing.parts).filter((p) => p.seq < floor),
      ...mine(listing.segments).filter((s) => s.seq <= upTo),
    ].map((f) => f.path);
    for (const path of doomed) await this.storage.remove(path);
    return doomed;
  }

  /** The bytes at `path`, or undefined where there is no file. */
  private async existing(path: string): Promise<Uint8Array | undefined> {
    try {
      return await this.storage.read(path);
    } catch (e) {
      if (e instanceof SyncPlaceError && e.problem === 'gone') return undefined;
      throw e;
    }
  }

  /**
   * A file at this device's own next name that is not this device's file of that name is what an upload cut off
   * halfway left (rclone's WebDAV server keeps the bytes that arrived), or junk anyone who can write to the folder put
   * there: nothing is taken from it, and it is written over. Refusing it stopped this device's sync until the user
   * found and removed the file.
   */
  private async writeOnce(path: string, bytes: Uint8Array): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const there = await this.existing(path);
      if (there) {
        if (sameBytes(there, bytes)) return;
        if (await ownFileAt(this.vault, this.device, path, there)) throw new LogForkError(path);
        await this.storage.remove(path);
      }
      try {
        return await this.storage.create(path, bytes);
      } catch (e) {
        // A write that landed before its answer was lost, or a place honouring create-only: read again (same bytes is
        // success). Twice at most: a file that comes back each time is not this device's to fight over.
        if (!(e instanceof SyncPlaceError && e.problem === 'exists') || attempt > 0) throw e;
      }
    }
  }
}

/**
 * Puts `bytes` at `path` in place of the file there, if any: for a file this device mends from its own copy (its
 * header, its device file). Another device (or a copy of this profile) mending it at the same moment, on a place that
 * will not write over a file, leaves the same content there: that is not an error.
 */
export async function writeOver(storage: SyncStorage, path: string, bytes: Uint8Array): Promise<void> {
  // A file already gone is not an error (`SyncStorage.remove`).
  await storage.remove(path);
  try {
    await storage.create(path, bytes);
  } catch (e) {
    if (!(e instanceof SyncPlaceError && e.problem === 'exists')) throw e;
  }
}
