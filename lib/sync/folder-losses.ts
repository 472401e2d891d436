// What a folder lost (docs/sync.md, "Pruning" and "Reading"): segments gone with the folder put back to an older copy,
// written again as a snapshot by their writer or by a device that applied them; and gaps that last, said.
import { writtenHash, writtenKey, type DeviceState } from './device';
import { missingSegments, segmentPath, snapshotPartPath, snapshotPath, type FolderListing } from './folder-layout';
import { sha256, toHex } from './bytes';
import { SyncPlaceError, type SyncStorage } from './types';
import type { FolderPlan } from './folder-reader';
import { durationInWords } from './hlc';

/**
 * How long a gap, or another device's log that stops before where a third had applied it, lasts before it is taken as
 * lost: a file-sync engine may deliver segments in any order, but not a day late while the other files arrive.
 */
export const LOST_AFTER_MS = 86_400_000;

/** Segments the folder lost that this device can make up for with a snapshot of its whole state. */
export interface Losses {
  /** This device's own, up to its chain head. */
  own: number[];
  /**
   * This device's own, since its newest snapshot, that the folder lists at another size than it wrote (no copy at the
   * right one), or changed in place (`changedInPlace`): a device that has not read one waits before it for good.
   */
  damaged: number[];
  /** Other devices' it applied, where no snapshot of its own in the folder covers them. */
  held: { device: string; seqs: number[] }[];
  /**
   * This device's newest snapshot, when the folder lists one of its files at another size than it wrote (no copy at
   * the right one): changed or cut short there, so it covers nothing (a device that reads it refuses it).
   */
  damagedSnapshot?: number;
}

/** `changed`: the paths of this device's files found changed in place (`changedInPlace`). */
export function findLosses(folder: FolderListing, dev: DeviceState, changed: readonly string[] = []): Losses {
  const me = dev.deviceId;
  // This device's newest snapshot covers only while it is whole in the folder: a manifest whose parts went (a partial
  // restore, a hand clean-up) is of no use to a device behind it.
  const found = snapshotState(folder, dev, changed);
  const whole = found === 'whole';
  const listing = whole ? folder : { ...folder, snapshots: folder.snapshots.filter((s) => !(s.device === me && s.seq === dev.snapshotSeq)) };
  const own = missingSegments(listing, me, dev.applied[me]?.seq ?? 0);
  const mine = whole ? (dev.snapshotCovers ?? {}) : {};
  const held: Losses['held'] = [];
  for (const [device, { seq }] of Object.entries(dev.applied)) {
    if (device === me || seq <= (mine[device] ?? 0)) continue;
    const seqs = missingSegments(listing, device, seq).filter((k) => k > (mine[device] ?? 0));
    if (seqs.length) held.push({ device, seqs });
  }
  const listed = new Map<number, number[]>();
  for (const f of folder.segments) if (f.device === me) listed.set(f.seq, [...(listed.get(f.seq) ?? []), f.size]);
  const damaged = [...listed]
    .filter(([seq, sizes]) => {
      const size = writtenSize(dev, segmentPath(dev.vaultId, me, seq));
      return seq > dev.snapshotSeq && size !== undefined && !sizes.includes(size);
    })
    .map(([seq]) => seq)
    .concat(folder.segments.filter((f) => changed.includes(f.path) && f.seq > dev.snapshotSeq).map((f) => f.seq))
    .filter((seq, k, all) => all.indexOf(seq) === k)
    .sort((x, y) => x - y);
  return { own, damaged, held, ...(found === 'damaged' ? { damagedSnapshot: dev.snapshotSeq } : {}) };
}

/**
 * This device's files the folder lists under their own name with another mark than the place gave them when first
 * listed after they were written, and whose bytes no longer hash as written: changed in place (a flipped byte keeps
 * the size). Its segments since its newest snapshot and that snapshot's files are checked (`DeviceState.writtenFiles`).
 * A file marked anew with the bytes it had (an engine that copied it back) takes the new mark. Only files marked anew
 * are read; a place that gives no marks is not checked, and a file changed before its first listing after the write
 * is taken as it is then. Returns their paths.
 */
export async function changedInPlace(storage: SyncStorage, folder: FolderListing, dev: DeviceState): Promise<string[]> {
  const written = { ...dev.writtenFiles };
  const changed: string[] = [];
  for (const f of [...folder.segments, ...folder.snapshots, ...folder.parts]) {
    if (f.device !== dev.deviceId || f.copy || f.stamp === undefined) continue;
    const key = writtenKey(f.path);
    const was = written[key];
    if (!was?.hash || was.stamp === f.stamp) continue;
    if (was.stamp === undefined) {
      written[key] = { ...was, stamp: f.stamp };
      continue;
    }
    let bytes: Uint8Array;
    try {
      bytes = await storage.read(f.path);
    } catch (e) {
      if (e instanceof SyncPlaceError && e.problem === 'gone') continue; // removed since the listing: the next one says
      throw e;
    }
    if (writtenHash(toHex(await sha256(bytes))) === was.hash) written[key] = { ...was, stamp: f.stamp };
    else changed.push(f.path);
  }
  dev.writtenFiles = written;
  return changed;
}

/**
 * Whether this device's newest snapshot is in the folder with every part it was written with (`whole`), a file of it
 * gone (`gone`), or one changed in place (its path in `changed`) or listed at another size than written, with no
 * engine's copy at the right size (`damaged`).
 */
function snapshotState(listing: FolderListing, dev: DeviceState, changed: readonly string[]): 'whole' | 'gone' | 'damaged' {
  const me = dev.deviceId;
  const manifests = listing.snapshots.filter((s) => s.device === me && s.seq === dev.snapshotSeq);
  if (!manifests.length) return 'gone';
  const n = dev.snapshotParts;
  if (n === undefined) return 'whole'; // written before the count was kept (or the first format: no parts)
  const parts = listing.parts.filter((p) => p.device === me && p.seq === dev.snapshotSeq);
  if (!Array.from({ length: n }, (_, k) => k).every((k) => parts.some((p) => p.part === k))) return 'gone';
  if ([...manifests, ...parts].some((f) => changed.includes(f.path))) return 'damaged';
  // A size not known (a file written before sizes were kept) is taken as right.
  const atSize = (files: { size: number }[], size: number | undefined) => size === undefined || files.some((f) => f.size === size);
  const right =
    atSize(manifests, writtenSize(dev, snapshotPath(dev.vaultId, me, dev.snapshotSeq))) &&
    Array.from({ length: n }, (_, k) => k).every((k) => atSize(parts.filter((p) => p.part === k), writtenSize(dev, snapshotPartPath(dev.vaultId, me, dev.snapshotSeq, k))));
  return right ? 'whole' : 'damaged';
}

/** The size this device wrote the file at `path` at, when it keeps it (`DeviceState.writtenFiles`). */
function writtenSize(dev: DeviceState, path: string): number | undefined {
  return dev.writtenFiles?.[writtenKey(path)]?.size;
}

const span = (seqs: readonly number[]) => (seqs.length === 1 ? `segment ${seqs[0]}` : `segments ${seqs[0]} to ${seqs.at(-1)}`);

/** The devices this device has waited a day to move past (see `FolderPlan.past`): the reader looks for a snapshot. */
export function lookPast(dev: DeviceState, now: number): string[] {
  return Object.entries(dev.waiting ?? {}).flatMap(([key, since]) => (key.startsWith('past ') && now - since >= LOST_AFTER_MS ? [key.slice(5)] : []));
}

/**
 * Notes when this device first found each gap, each log it stands short of (`past`) and each loss of another
 * device's segments it holds (`dev.waiting`), and says each once. Its own losses are acted on at once (only it deletes
 * its files); the rest once they have lasted LOST_AFTER_MS by the pass's clock, since an engine may deliver another
 * device's pruning before the snapshot that covers it. True when a segment and a snapshot are to be written this pass.
 */
export function noteWaiting(dev: DeviceState, read: FolderPlan, losses: Losses, now: number, say: (key: string, words: string) => void): boolean {
  const waiting: Record<string, number> = {};
  // A time noted while the clock ran ahead counts from now once it is set right.
  const since = (key: string) => (waiting[key] = Math.min(dev.waiting?.[key] ?? now, now));
  const lasted = (key: string) => now - since(key) >= LOST_AFTER_MS;
  const name = (device: string) => `'${read.devices[device]?.name ?? 'another device'}'`;
  for (const { device } of read.past) since(`past ${device}`);
  for (const { device, from, to } of read.gaps) {
    const key = `${device} ${from}`;
    if (!lasted(key)) continue;
    const seqs = from === to - 1 ? [from] : [from, to - 1];
    say(`gap ${key}`, `Changes from ${name(device)} wait for its ${span(seqs)}, missing from the folder for ${durationInWords(now - waiting[key])}. ` +
      `If ${name(device)} still syncs, its next pass writes ${seqs.length === 1 ? 'it' : 'them'} again.`);
  }
  const { own, damaged, damagedSnapshot } = losses;
  if (own.length && damagedSnapshot !== undefined) {
    say(`damaged snapshot ${damagedSnapshot}`, `This device's snapshot ${damagedSnapshot} was changed or cut short in the folder (a file of it is no longer as written), ` +
      `and it stood for its ${span(own)}. All of this memory was written again, so the other devices get it.`);
  } else if (own.length) {
    say(`lost ${own[0]} ${own.at(-1)}`, `Some of what this device synced is no longer in the folder (${span(own)}: was the folder put back to an older copy?). ` +
      'All of this memory was written again, so the other devices get it.');
  }
  if (damaged.length) {
    say(`damaged ${damaged[0]} ${damaged.at(-1)}`, `Some of what this device synced was changed or cut short in the folder (its ${span(damaged)}, no longer as written). ` +
      'All of this memory was written again, so the other devices get it.');
  }
  const held = losses.held.filter(({ device, seqs }) => lasted(`held ${device} ${seqs[0]}`));
  for (const { device, seqs } of held) {
    say(`lost ${device} ${seqs[0]} ${seqs.at(-1)}`, `${name(device)}'s ${span(seqs)} ${seqs.length === 1 ? 'is' : 'are'} no longer in the folder. ` +
      'This device had applied them, and wrote its memory again so that the other devices get them.');
  }
  dev.waiting = waiting;
  return own.length > 0 || damaged.length > 0 || held.length > 0;
}
