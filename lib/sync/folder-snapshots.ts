// Snapshots in the folder (docs/sync.md, "Snapshots"): which one a device starts from (every part its manifest names
// in the folder), and reading one part, checked to be the bytes named as it is applied (waiting for one still on its
// way, refusing one that is some other file).
import { sha256, toHex } from './bytes';
import type { FolderListing } from './folder-layout';
import type { Applied, FolderProblemKind, Opened } from './folder-reader';
import { open, type SealingVault } from './seal';
import { checkSnapshot, checkSnapshotPart } from './segment';
import { SyncPlaceError, type SyncStorage } from './types';

/** A snapshot chosen to merge: its parts are all in the folder and each is the one its manifest names. */
export interface ReadSnapshot {
  /** The manifest's path (or, for the first format, the whole snapshot's). */
  path: string;
  /** Hex SHA-256 of the manifest's sealed bytes (a refused snapshot is known by `path hash`). */
  hash: string;
  body: {
    /** 1: the whole state is in `state`; 2: it is in `parts`, read one at a time (`FolderReader.part`). */
    version: 1 | 2;
    device: string;
    seq: number;
    covers: Record<string, number>;
    heads: Record<string, string>;
    /** Records in all parts (version 2). */
    records?: number;
  };
  /**
   * Where each part is to be read, and its hash: the file under its name first, then any copy an engine made of it
   * (`also`), the first whose bytes are the ones named being the part.
   */
  parts: { path: string; hash: string; also?: string[] }[];
  /** Version 1's state, whole. */
  state?: unknown;
}

/**
 * A snapshot's part that cannot be applied now. Not `refused`: it went, or is an earlier write of that part (its
 * writer stopped and wrote it again; the new one is on its way), and the snapshot goes on from this part once it is
 * there. `refused`: some other file is under its name (changed, cut, put there), and the rest of the snapshot is not
 * used.
 */
export class SnapshotPartError extends Error {
  constructor(
    readonly path: string,
    message: string,
    readonly refused = false,
  ) {
    super(message);
    this.name = 'SnapshotPartError';
  }
}

/** What choosing a snapshot needs of the reader. */
export interface PartsContext {
  storage: SyncStorage;
  vault: SealingVault & { vaultId: string };
  /** Snapshots (`path hash` of their manifests) with a part refused: not chosen again. */
  refused: ReadonlySet<string>;
  /** A device's name in words. */
  name(device: string): string;
}

/**
 * Where each part a manifest names is to be read, from the listing alone, or undefined (said once) while one is not in
 * the folder. Each part is read once, when it is applied, and checked then (`readPart`): reading every part first to
 * check it doubled what a new device downloads.
 */
export function locateParts(
  ctx: PartsContext,
  s: { path: string; device: string; seq: number; hash: string },
  hashes: string[],
  listing: FolderListing,
  report: (k: FolderProblemKind, p: string, w: string, key?: string) => void,
): { path: string; hash: string; also: string[] }[] | undefined {
  const mine = listing.parts.filter((p) => p.device === s.device && p.seq === s.seq);
  const have = new Set(mine.map((p) => p.part)).size;
  if (hashes.some((_, k) => !mine.some((p) => p.part === k))) {
    report('gap', s.path, `${ctx.name(s.device)}'s snapshot ${s.seq} is not all in the folder yet (${have} of ${hashes.length} parts); ` +
      'it is used once the rest arrive.', `snapshot-wait ${s.path} ${s.hash}`);
    return undefined;
  }
  return hashes.map((hash, k) => {
    const [first, ...also] = mine
      .filter((p) => p.part === k)
      .sort((a, b) => Number(a.copy) - Number(b.copy) || (a.path < b.path ? -1 : 1))
      .map((p) => p.path);
    return { path: first, hash, also };
  });
}

/**
 * The snapshot with the most in it that moves past every gap (any, for a new device), `resume` first; checked. A
 * manifest is used only once every part it names is in the folder with the bytes it names: one still arriving waits
 * (the next is tried), one that is some other file is refused, said once, and the snapshot not used. `chains` follows
 * each device's chain from a base, as the reader does.
 */
export async function chooseSnapshot(
  ctx: PartsContext,
  snaps: (Opened & { path: string })[],
  listing: FolderListing,
  applied: Readonly<Record<string, Applied>>,
  gaps: { device: string; to: number }[],
  isNew: boolean,
  resume: string | undefined,
  report: (k: FolderProblemKind, p: string, w: string, key?: string) => void,
  chains: (base: Readonly<Record<string, Applied>>) => { gaps: unknown[] },
): Promise<ReadSnapshot | undefined> {
  const total = (c: Record<string, number>) => Object.values(c).reduce((a, b) => a + b, 0);
  const passes = ({ covers = {} }: Opened) =>
    gaps.filter((g) => (covers[g.device] ?? 0) >= g.to - 1 && (covers[g.device] ?? 0) > (applied[g.device]?.seq ?? 0)).length;
  // Gaps left once a snapshot's chains go on: one past a gap may leave the device at another.
  const left = ({ covers = {}, heads = {} }: Opened) => {
    const base = { ...applied };
    for (const [d, seq] of Object.entries(covers)) if (seq > (applied[d]?.seq ?? 0)) base[d] = { seq, hash: heads[d] ?? '' };
    return chains(base).gaps.length;
  };
  // The one a stopped pass was applying; then the one that leaves fewest gaps, then the one with most in it.
  const helpful = snaps
    .filter((s) => isNew || passes(s) > 0)
    .map((s) => ({ ...s, left: left(s) }))
    .sort((a, b) => Number(b.path === resume) - Number(a.path === resume) || a.left - b.left
      || total(b.covers ?? {}) - total(a.covers ?? {}) || (a.path < b.path ? -1 : 1));
  for (const s of helpful) {
    if (ctx.refused.has(`${s.path} ${s.hash}`)) continue;
    const body = { device: s.device, seq: s.seq, covers: s.covers ?? {}, heads: s.heads ?? {} };
    if (s.parts) {
      const parts = locateParts(ctx, s, s.parts, listing, report);
      if (parts) return { path: s.path, hash: s.hash, body: { version: 2, ...body, records: s.records }, parts };
      continue;
    }
    // The first format holds the whole memory in one file: only the chosen one is read again.
    try {
      const bytes = await ctx.storage.read(s.path);
      if (toHex(await sha256(bytes)) !== s.hash) continue;
      const whole = checkSnapshot(await open(ctx.vault, 'snapshot', bytes));
      if (!('state' in whole)) continue;
      return { path: s.path, hash: s.hash, body: { version: 1, ...body }, parts: [], state: whole.state };
    } catch (e) {
      if (!(e instanceof SyncPlaceError && e.problem === 'gone')) throw e;
    }
  }
  return undefined;
}

/**
 * The records of part `k` of a chosen snapshot (version 2): the first file where it is (its name, then an engine's
 * copies) whose bytes are the ones its manifest names, and that says it is that part. Throws SnapshotPartError when
 * none is: waiting while the part went or is an earlier write of it, refused when another file is under its name.
 */
export async function readPart(storage: SyncStorage, vault: SealingVault, snapshot: ReadSnapshot, k: number, name: (device: string) => string): Promise<unknown[]> {
  const { path, hash, also = [] } = snapshot.parts[k];
  const { device, seq } = snapshot.body;
  let other: Uint8Array | undefined;
  let otherPath = path;
  for (const at of [path, ...also]) {
    let bytes: Uint8Array;
    try {
      bytes = await storage.read(at);
    } catch (e) {
      if (e instanceof SyncPlaceError && e.problem === 'gone') continue;
      throw e;
    }
    if (toHex(await sha256(bytes)) !== hash) {
      if (!other) [other, otherPath] = [bytes, at];
      continue;
    }
    const body = checkSnapshotPart(await open(vault, 'snapshot-part', bytes));
    if (body.device !== device || body.seq !== seq || body.part !== k) {
      throw new SnapshotPartError(at, `${at} is not the part of the snapshot it is named in. The rest of that snapshot was not used.`, true);
    }
    return body.records;
  }
  if (!other) throw new SnapshotPartError(path, `${path} went from the folder while the snapshot was being read; it is read again once it is back.`);
  // Not the bytes named. An earlier write of this very part (sealed by this vault, saying it is this part) waits for
  // the new one; anything else was changed or put there.
  let same = false;
  try {
    const body = checkSnapshotPart(await open(vault, 'snapshot-part', other));
    same = body.device === device && body.seq === seq && body.part === k;
  } catch {
    same = false;
  }
  if (same) {
    throw new SnapshotPartError(otherPath, `${name(device)}'s snapshot ${seq} is not all in the folder yet (part ${k} is still the one a stopped write left); ` +
      'the rest is read once it arrives.');
  }
  throw new SnapshotPartError(otherPath, `${otherPath} is not the part ${name(device)}'s snapshot ${seq} names ` +
    `(${path}): it was changed or put there from elsewhere. The rest of that snapshot was not used.`, true);
}
