// Snapshots in the folder (docs/sync.md, "Snapshots"): which one a device starts from, whether every part a manifest
// names is there with the bytes it names (waiting for one still on its way, refusing one that is some other file), and
// reading one part.
import { sha256, toHex } from './bytes';
import { snapshotPartPath, type FolderListing } from './folder-layout';
import type { Applied, FolderProblemKind, Opened } from './folder-reader';
import { open, type SealingVault } from './seal';
import { checkSnapshot, checkSnapshotPart } from './segment';
import { SyncPlaceError, type SyncStorage } from './types';

/** A snapshot chosen to merge: its parts are all in the folder and each is the one its manifest names. */
export interface ReadSnapshot {
  /** The manifest's path (or, for the first format, the whole snapshot's). */
  path: string;
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
  /** Where each part is (a copy an engine made counts when its bytes are the ones named), and its hash. */
  parts: { path: string; hash: string }[];
  /** Version 1's state, whole. */
  state?: unknown;
}

/** A snapshot's part that is no longer what was checked (changed or removed since): the snapshot waits. */
export class SnapshotPartError extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
    this.name = 'SnapshotPartError';
  }
}

/** What choosing a snapshot and checking its parts need of the reader. */
export interface PartsContext {
  storage: SyncStorage;
  vault: SealingVault & { vaultId: string };
  /** Parts found to be the bytes a manifest names (`path size hash`), not read again by the same reader. */
  verified: Set<string>;
  /** A device's name in words. */
  name(device: string): string;
}

/**
 * Where each part a manifest names is, or undefined (said once) while one is missing, is an earlier write of that
 * part (its writer stopped and wrote it again; the new one is on its way), or is some other file (refused).
 */
export async function checkParts(
  ctx: PartsContext,
  s: { path: string; device: string; seq: number; hash: string },
  hashes: string[],
  listing: FolderListing,
  report: (k: FolderProblemKind, p: string, w: string, key?: string) => void,
): Promise<{ path: string; hash: string }[] | undefined> {
  const mine = listing.parts.filter((p) => p.device === s.device && p.seq === s.seq);
  const found: { path: string; hash: string }[] = [];
  const wait = (have: number) => {
    report('gap', s.path, `${ctx.name(s.device)}'s snapshot ${s.seq} is not all in the folder yet (${have} of ${hashes.length} parts); ` +
      'it is used once the rest arrive.', `snapshot-wait ${s.path} ${s.hash}`);
    return undefined;
  };
  const have = new Set(mine.map((p) => p.part)).size;
  if (hashes.some((_, k) => !mine.some((p) => p.part === k))) return wait(have);
  for (const [k, hash] of hashes.entries()) {
    const cands = mine.filter((p) => p.part === k).sort((a, b) => Number(a.copy) - Number(b.copy) || (a.path < b.path ? -1 : 1));
    let at = cands.find((c) => ctx.verified.has(`${c.path} ${c.size} ${hash}`))?.path;
    let other: { path: string; bytes: Uint8Array } | undefined;
    for (const c of at ? [] : cands) {
      let bytes: Uint8Array;
      try {
        bytes = await ctx.storage.read(c.path);
      } catch (e) {
        if (e instanceof SyncPlaceError && e.problem === 'gone') continue;
        throw e;
      }
      if (toHex(await sha256(bytes)) === hash) {
        ctx.verified.add(`${c.path} ${c.size} ${hash}`);
        at = c.path;
        break;
      }
      other ??= { path: c.path, bytes };
    }
    if (at) {
      found.push({ path: at, hash });
      continue;
    }
    if (!other) return wait(have - 1);
    // Not the bytes named. An earlier write of this very part (sealed by this vault, saying it is this part) waits
    // for the new one; anything else was changed or put there, and the snapshot is not used.
    let same = false;
    try {
      const body = checkSnapshotPart(await open(ctx.vault, 'snapshot-part', other.bytes));
      same = body.device === s.device && body.seq === s.seq && body.part === k;
    } catch {
      same = false;
    }
    if (same) return wait(have - 1);
    report('unreadable', other.path, `${other.path} is not the part ${ctx.name(s.device)}'s snapshot ${s.seq} names ` +
      `(${snapshotPartPath(ctx.vault.vaultId, s.device, s.seq, k)}): it was changed or put there from elsewhere. ` +
      'That snapshot was not used.', `part ${other.path} ${s.hash}`);
    return undefined;
  }
  return found;
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
    const body = { device: s.device, seq: s.seq, covers: s.covers ?? {}, heads: s.heads ?? {} };
    if (s.parts) {
      const parts = await checkParts(ctx, s, s.parts, listing, report);
      if (parts) return { path: s.path, body: { version: 2, ...body, records: s.records }, parts };
      continue;
    }
    // The first format holds the whole memory in one file: only the chosen one is read again.
    try {
      const bytes = await ctx.storage.read(s.path);
      if (toHex(await sha256(bytes)) !== s.hash) continue;
      const whole = checkSnapshot(await open(ctx.vault, 'snapshot', bytes));
      if (!('state' in whole)) continue;
      return { path: s.path, body: { version: 1, ...body }, parts: [], state: whole.state };
    } catch (e) {
      if (!(e instanceof SyncPlaceError && e.problem === 'gone')) throw e;
    }
  }
  return undefined;
}

/**
 * The records of part `k` of a chosen snapshot (version 2), checked to be the bytes its manifest names and to say they
 * are that part. Throws SnapshotPartError when the file changed or went since it was checked.
 */
export async function readPart(storage: SyncStorage, vault: SealingVault, snapshot: ReadSnapshot, k: number): Promise<unknown[]> {
  const { path, hash } = snapshot.parts[k];
  let bytes: Uint8Array;
  try {
    bytes = await storage.read(path);
  } catch (e) {
    if (e instanceof SyncPlaceError && e.problem === 'gone') throw new SnapshotPartError(path, `${path} went from the folder while it was being read.`);
    throw e;
  }
  if (toHex(await sha256(bytes)) !== hash) throw new SnapshotPartError(path, `${path} changed while the snapshot was being read.`);
  const body = checkSnapshotPart(await open(vault, 'snapshot-part', bytes));
  if (body.device !== snapshot.body.device || body.seq !== snapshot.body.seq || body.part !== k) {
    throw new SnapshotPartError(path, `${path} is not the part of the snapshot it is named in.`);
  }
  return body.records;
}
