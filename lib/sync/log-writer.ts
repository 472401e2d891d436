// Writing this device's files (docs/sync.md, "The folder"): its device file, the next segment of its log with the
// right `seq` and `prev`, snapshots, and removing its own files a newer snapshot of its own covers. A device writes
// only under its own paths, so it never races another writer for a name.
import { sha256, toHex } from './bytes';
import { devicePath, parseListing, segmentPath, snapshotPath } from './folder-layout';
import type { Applied } from './folder-reader';
import { seal, type SealingVault } from './seal';
import type { SealedSnapshot } from './segment';
import { SyncPlaceError, type SegmentBody, type SyncOp, type SyncStorage } from './types';

/** A sealed segment not yet known to be in the folder. The wiring keeps it (IndexedDB) and writes it again as it is. */
export interface PendingSegment {
  path: string;
  seq: number;
  /** Hex SHA-256 of `bytes`: this device's new chain head once written. */
  hash: string;
  bytes: Uint8Array;
}

/** The folder holds another file where this device was about to write: its log there went on without this memory. */
export class LogForkError extends Error {
  constructor(readonly path: string) {
    super(
      `The synced folder already holds a different ${path.includes('/log/') ? 'segment' : 'file'} of this device at ${path}: ` +
        'this device\'s memory is older than what it wrote there (was it restored from a backup?). Nothing was written.',
    );
    this.name = 'LogForkError';
  }
}

const SNAPSHOTS_KEPT = 2;

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
    await this.storage.create(path, await seal(this.vault, 'device', { device: this.device, name: name.slice(0, 100), joinedAt }));
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
   * name. Throws LogForkError where other bytes already sit under its name, whether or not the place honours
   * create-only writes (it reads first).
   */
  async write(pending: PendingSegment): Promise<void> {
    await this.writeOnce(pending.path, pending.bytes);
  }

  /** Writes a snapshot of the merged state after this device's own segment `seq`. `covers`: every device's chain head. */
  async snapshot(seq: number, covers: Readonly<Record<string, Applied>>, state: unknown): Promise<string> {
    return (await this.snapshotSized(seq, covers, state)).path;
  }

  /** `snapshot`, with the size of the file written (or found there). */
  async snapshotSized(seq: number, covers: Readonly<Record<string, Applied>>, state: unknown): Promise<{ path: string; size: number }> {
    const path = snapshotPath(this.vault.vaultId, this.device, seq);
    const there = await this.existing(path);
    if (there) return { path, size: there.length };
    const body: SealedSnapshot = {
      device: this.device,
      seq,
      covers: Object.fromEntries(Object.entries(covers).map(([d, a]) => [d, a.seq])),
      heads: Object.fromEntries(Object.entries(covers).map(([d, a]) => [d, a.hash])),
      state,
    };
    const sealed = await seal(this.vault, 'snapshot', body);
    await this.storage.create(path, sealed);
    return { path, size: sealed.length };
  }

  /**
   * Removes this device's files that its snapshots make unneeded: every snapshot but the newest two, and every
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
    const doomed = [
      ...snaps.filter((s) => s.seq < floor),
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

  private async writeOnce(path: string, bytes: Uint8Array): Promise<void> {
    const there = await this.existing(path);
    if (there) {
      if (same(there, bytes)) return;
      throw new LogForkError(path);
    }
    try {
      await this.storage.create(path, bytes);
    } catch (e) {
      // A write that landed before its answer was lost, or a place honouring create-only: same bytes is success.
      if (!(e instanceof SyncPlaceError && e.problem === 'exists')) throw e;
      const now = await this.existing(path);
      if (!now || !same(now, bytes)) throw new LogForkError(path);
    }
  }
}

function same(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
