// The paths of a sync folder (docs/sync.md, "The folder") and reading a listing into what it holds. A name is only a
// hint: a file is trusted for what its sealed content says. Junk that desktop clients leave, and any name this does
// not parse, is ignored; the copies engines make of a file ("(1)", "conflicted copy", Syncthing's .sync-conflict-)
// are kept as candidates, to be opened and de-duplicated by content.
import type { SyncFileEntry } from './types';

const ID = '[a-z0-9]{16,40}';
const SEQ_DIGITS = 8;
/** What engines add to a name's stem when they keep a second copy. */
const COPY_MARK = String.raw`(?: \([^()/]{1,120}\)| \d{1,3}|\.sync-conflict-\d{8}-\d{6}-[A-Z0-9]{7}|-[A-Za-z0-9_-]{1,64})`;
const HEADER_NAME = new RegExp(`^backstory-vault-(${ID})(${COPY_MARK}*)\\.json$`);
const FILE_NAME = new RegExp(`^(${ID}|\\d{${SEQ_DIGITS}})(${COPY_MARK}*)\\.bin$`);
/** A snapshot's part: `<seq>p<part>.bin` (no dot or dash inside the stem, where engines put their copy marks). */
const PART_DIGITS = 5;
const PART_NAME = new RegExp(`^(\\d{${SEQ_DIGITS}})p(\\d{${PART_DIGITS}})(${COPY_MARK}*)\\.bin$`);

/** The header's name; with `copy`, the name an engine's copy of it named so would have ("… (copy).json"). */
export function headerPath(vaultId: string, copy?: string): string {
  return `backstory-vault-${vaultId}${copy ? ` (${copy})` : ''}.json`;
}

export function devicePath(vaultId: string, device: string): string {
  return `backstory/${vaultId}/devices/${device}.bin`;
}

export function seqName(seq: number): string {
  return String(seq).padStart(SEQ_DIGITS, '0');
}

export function segmentPath(vaultId: string, device: string, seq: number): string {
  return `backstory/${vaultId}/log/${device}/${seqName(seq)}.bin`;
}

export function snapshotPath(vaultId: string, device: string, seq: number): string {
  return `backstory/${vaultId}/snap/${device}/${seqName(seq)}.bin`;
}

/** Part `part` (from 0) of the snapshot at `seq`: a file of its own beside the snapshot's manifest. */
export function snapshotPartPath(vaultId: string, device: string, seq: number, part: number): string {
  return `backstory/${vaultId}/snap/${device}/${seqName(seq)}p${String(part).padStart(PART_DIGITS, '0')}.bin`;
}

/** The most parts a snapshot may have (its names have five digits). */
export const MAX_SNAPSHOT_PARTS = 10 ** PART_DIGITS;

/** A file as its name places it. `copy` is true for an engine's duplicate. */
export interface Placed {
  path: string;
  size: number;
  /** The place's mark of the file's version (`SyncFileEntry.stamp`), where it gives one. */
  stamp?: string;
  /** The device folder (or device file) it is under. */
  device: string;
  /** The seq its name says; 0 for a device file. */
  seq: number;
  copy: boolean;
}

export interface FolderListing {
  /** Header files of every vault in the folder (a copy too), by vault id. */
  headers: { path: string; vaultId: string; size: number; copy: boolean }[];
  devices: Placed[];
  segments: Placed[];
  /** Snapshots' manifests (or a whole snapshot of the first format). */
  snapshots: Placed[];
  /** Snapshots' parts, each with its part number. */
  parts: (Placed & { part: number })[];
}

/** Files desktop clients and editors leave; ignored without a word. */
export function isJunk(name: string): boolean {
  return (
    /^(desktop\.ini|thumbs\.db|\.ds_store|icon\r?)$/i.test(name) ||
    /\.(crswap|tmp|partial|part|download)$/i.test(name) ||
    /^(~|\.~lock|\.syncthing\.|\._|\.dropbox)/i.test(name)
  );
}

/** Sorts a listing into the vault's files (or just the headers when `vaultId` is not given). */
export function parseListing(entries: readonly SyncFileEntry[], vaultId?: string): FolderListing {
  const out: FolderListing = { headers: [], devices: [], segments: [], snapshots: [], parts: [] };
  for (const { path, size, stamp } of entries) {
    const mark = stamp !== undefined ? { stamp } : {};
    const parts = path.split('/');
    const name = parts[parts.length - 1];
    if (isJunk(name)) continue;
    if (parts.length === 1) {
      const m = HEADER_NAME.exec(name);
      if (m) out.headers.push({ path, vaultId: m[1], size, copy: m[2] !== '' });
      continue;
    }
    if (vaultId === undefined || parts[0] !== 'backstory' || parts[1] !== vaultId) continue;
    const pm = PART_NAME.exec(name);
    if (pm && parts.length === 5 && parts[2] === 'snap' && new RegExp(`^${ID}$`).test(parts[3])) {
      out.parts.push({ path, size, device: parts[3], seq: Number(pm[1]), part: Number(pm[2]), copy: pm[3] !== '', ...mark });
      continue;
    }
    const m = FILE_NAME.exec(name);
    if (!m) continue;
    const copy = m[2] !== '';
    if (parts.length === 4 && parts[2] === 'devices' && new RegExp(`^${ID}$`).test(m[1])) {
      out.devices.push({ path, size, device: m[1], seq: 0, copy, ...mark });
    } else if (parts.length === 5 && /^\d+$/.test(m[1]) && new RegExp(`^${ID}$`).test(parts[3])) {
      const placed = { path, size, device: parts[3], seq: Number(m[1]), copy, ...mark };
      if (parts[2] === 'log') out.segments.push(placed);
      else if (parts[2] === 'snap') out.snapshots.push(placed);
    }
  }
  return out;
}

/**
 * The seqs of `device`'s segments up to `upTo` that neither the folder holds nor a snapshot of that device in the
 * folder covers. A device's own pruning never leaves one (it removes only what a snapshot it keeps covers), so these
 * went with the folder put back to an older copy, or were removed by hand: a device behind them waits at the gap for
 * good unless the writer, or a device that applied them, writes them again as a snapshot.
 */
export function missingSegments(listing: FolderListing, device: string, upTo: number): number[] {
  const covered = listing.snapshots.reduce((m, s) => (s.device === device ? Math.max(m, s.seq) : m), 0);
  const held = new Set(listing.segments.filter((s) => s.device === device).map((s) => s.seq));
  const missing: number[] = [];
  for (let seq = covered + 1; seq <= upTo; seq++) if (!held.has(seq)) missing.push(seq);
  return missing;
}
