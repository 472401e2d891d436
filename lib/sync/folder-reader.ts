// Reading a sync folder (docs/sync.md, "The folder", "Segments"): which snapshot a device starts from and which new
// segments it applies, in chain order, each once. A segment is applied only where its `prev` is the hash of the
// sealed bytes of the one before it; a gap, a fork, an old file put back under a new name, or a file that does not
// open is reported once, with its path, and never applied.
import { toHex, sha256 } from './bytes';
import { rewrittenSegments, unapplied } from './applied-segments';
import { parseListing, segmentPath, type FolderListing, type Placed } from './folder-layout';
import { open, SEAL_LIMITS, SealError, type SealingVault, type SealKind } from './seal';
import { checkDevice, checkSegment, checkSnapshot, type DeviceBody } from './segment';
import { chooseSnapshot, readPart, SnapshotPartError, type PartsContext, type ReadSnapshot } from './folder-snapshots';
import { SyncPlaceError, type SegmentBody, type SyncStorage } from './types';

/** Where a device's log has been applied to: its last segment's seq and the hash of its sealed bytes. */
export interface Applied {
  seq: number;
  hash: string;
}

export interface ReadSegment {
  path: string;
  /** Hex SHA-256 of the sealed bytes: the next segment's `prev`. */
  hash: string;
  body: SegmentBody;
}

export { SnapshotPartError, type ReadSnapshot };

export type FolderProblemKind = 'unreadable' | 'not-ours' | 'gap' | 'fork' | 'replayed';

export interface FolderProblem {
  kind: FolderProblemKind;
  path: string;
  words: string;
}

/** A segment to apply, not yet read into memory (`FolderReader.body` reads it). */
export interface SegmentRef {
  path: string;
  hash: string;
  device: string;
  seq: number;
  /** Where its device's chain stood before it. */
  before: Applied;
}

export interface FolderPlan {
  /** A snapshot to merge first: for a new device, or where a log's early segments were removed before they were read. */
  snapshot?: ReadSnapshot;
  /** New segments in chain order, device by device; read each with `body`, one at a time. */
  segments: SegmentRef[];
  /** Where each device's chain stands once the snapshot and the segments are applied. */
  heads: Record<string, Applied>;
  /** The devices of the synced memory, from their device files. */
  devices: Record<string, DeviceBody>;
  /** Problems not reported by an earlier read of this reader. */
  problems: FolderProblem[];
  /** Where a device's chain stops at a missing segment (`from` to `to - 1`) with a later one in the folder. */
  gaps: { device: string; from: number; to: number }[];
  /**
   * Devices whose chain stops here before where another device's segment says it had applied it to (`seq`), with the
   * next segment not in the folder: on its way, or lost with a folder put back to an older copy.
   */
  past: { device: string; seq: number }[];
  /** Segments of a number this device applied, of the device their name says, but not the bytes it applied. */
  rewritten: { device: string; path: string }[];
}

/** `FolderPlan` with every segment's body read (tests, and small folders). */
export interface FolderRead extends Omit<FolderPlan, 'segments'> {
  segments: ReadSegment[];
}

/**
 * Sealed bytes of opened segments whose bodies are kept for applying (about 20 to 40 MB of parsed operations): the
 * rest are read again when applied, so a device far behind never holds every new segment at once.
 */
const BODY_BUDGET = 2 * 1024 * 1024;

/** What a file said of itself when it was opened; kept per path and size so a file is opened once. */
export interface Opened {
  size: number;
  device: string;
  seq: number;
  prev: string;
  hash: string;
  /** A segment's `seen`: how far its writer had applied each device's log. */
  seen?: Record<string, number>;
  /** A snapshot's `covers` and `heads`; and a manifest's part hashes and record count (version 2). */
  covers?: Record<string, number>;
  heads?: Record<string, string>;
  parts?: string[];
  records?: number;
}

const canonical = (p: string) => p.replace(/(?: \([^()/]*\)| \d{1,3}|\.sync-conflict-[^/]*|-[A-Za-z0-9_-]+)\.bin$/, '.bin');

export class FolderReader {
  private readonly seen = new Map<string, Opened | { size: number; failed: true }>();
  private readonly reported = new Set<string>();
  private devices: Record<string, DeviceBody> = {};
  /** Bodies of segments opened by the last `plan`, within BODY_BUDGET, until applied. */
  private bodies = new Map<string, SegmentBody>();

  constructor(
    private storage: SyncStorage,
    private readonly vault: SealingVault & { vaultId: string },
  ) {}

  /**
   * Reads the same place through `storage` from now on (each pass opens the place afresh), keeping what was opened:
   * a file of the same name and size is not read again.
   */
  use(storage: SyncStorage): void {
    this.storage = storage;
  }

  /** Reads the folder against what this device has applied of each device's log, every segment's body included. */
  async read(applied: Readonly<Record<string, Applied>>, opts: { resume?: string } = {}): Promise<FolderRead> {
    const plan = await this.plan(applied, opts);
    const segments: ReadSegment[] = [];
    const heads = { ...plan.heads };
    const stopped = new Set<string>();
    for (const r of plan.segments) {
      if (stopped.has(r.device)) continue;
      const body = await this.body(r);
      if (!body) {
        // Changed since it was first opened: the chain stops before it, and the file is opened afresh next time.
        stopped.add(r.device);
        heads[r.device] = r.before;
        continue;
      }
      segments.push({ path: r.path, hash: r.hash, body });
    }
    return { ...plan, segments, heads, problems: [...plan.problems, ...this.takeProblems()] };
  }

  /**
   * What to apply, against what this device has applied of each device's log: the snapshot to start from, if one is
   * needed (`resume`: the manifest a stopped pass was applying, preferred while it is still there and whole), and the
   * new segments in chain order, read one at a time with `body`.
   */
  async plan(
    applied: Readonly<Record<string, Applied>>,
    opts: { resume?: string; lookPast?: readonly string[]; listing?: FolderListing; refused?: readonly string[] } = {},
  ): Promise<FolderPlan> {
    // The caller's listing when it has just taken one: each listing is a round trip to the place.
    const listing = opts.listing ?? parseListing(await this.storage.list(), this.vault.vaultId);
    const problems: FolderProblem[] = [];
    const report = (kind: FolderProblemKind, path: string, words: string, key = `${kind} ${path}`) => {
      if (this.reported.has(key)) return;
      this.reported.add(key);
      problems.push({ kind, path, words });
    };
    // A file that did not open is tried again on each pass (said once): an engine may give a file its final size before
    // its bytes (a placeholder, a preallocated download), and now that a reader outlives a pass it would never be read.
    for (const [path, known] of this.seen) if ('failed' in known) this.seen.delete(path);
    await this.readDevices(listing.devices, report);
    this.bodies = new Map();
    const segs = await this.openAll(unapplied(listing.segments, applied), 'segment', report, this.bodies);

    let base = { ...applied };
    let chains = this.chains(segs, base, report, false);
    let snapshot: ReadSnapshot | undefined;
    const isNew = Object.keys(applied).length === 0;
    // A device's snapshot past where its chain stands here, with the next segment not in the folder (pruned before this
    // device read it: it joined, or waited, while the snapshot was not all there): a gap with no later segment to show it.
    const nextHeld = (heads: Record<string, Applied>, d: string) => segs.some((x) => x.device === d && x.seq === (heads[d]?.seq ?? 0) + 1);
    const behind = listing.snapshots
      .filter((f) => f.seq > (chains.heads[f.device]?.seq ?? 0) && !nextHeld(chains.heads, f.device))
      .map((f) => ({ device: f.device, to: f.seq + 1 }));
    // How far other devices' segments say they applied each log, where this folder holds no next segment of it. Those
    // `lookPast` names (it lasted: see the engine) are looked past with a snapshot that covers them, as gaps are.
    const furthest = new Map<string, number>();
    for (const x of segs) for (const [d, seq] of Object.entries(x.seen ?? {})) if (seq > (furthest.get(d) ?? 0)) furthest.set(d, seq);
    const pastOf = (heads: Record<string, Applied>) =>
      [...furthest]
        .filter(([d, seq]) => seq > (heads[d]?.seq ?? 0) && !nextHeld(heads, d))
        .map(([device, seq]) => ({ device, seq }));
    for (const p of pastOf(chains.heads)) if (opts.lookPast?.includes(p.device)) behind.push({ device: p.device, to: p.seq + 1 });
    if (isNew || chains.gaps.length > 0 || behind.length > 0) {
      // Snapshots are opened only when one may be needed: a worker that restarts would otherwise read them all again.
      const snaps = await this.openAll(listing.snapshots, 'snapshot', report);
      const ctx: PartsContext = { storage: this.storage, vault: this.vault, refused: new Set(opts.refused), name: (d) => this.name(d) };
      const chosen = await chooseSnapshot(ctx, snaps, listing, applied, [...chains.gaps, ...behind], isNew, opts.resume, report,
        (base) => this.chains(segs, base, () => undefined, false));
      if (chosen) {
        snapshot = chosen;
        base = { ...applied };
        for (const [device, seq] of Object.entries(chosen.body.covers)) {
          if (seq > (applied[device]?.seq ?? 0)) base[device] = { seq, hash: chosen.body.heads[device] ?? '' };
        }
        chains = this.chains(segs, base, report, false);
      }
    }
    this.chains(segs, base, report, true);
    for (const gap of chains.gaps) {
      const missing = gap.from === gap.to - 1 ? `segment ${gap.from} is` : `segments ${gap.from} to ${gap.to - 1} are`;
      report('gap', gap.path, `${this.name(gap.device)}'s ${missing} not in the folder yet; ` +
        `its later ones wait until they arrive (${gap.path}).`, `gap ${gap.device} ${gap.from}`);
    }
    const segments = chains.next.map((r) => ({ ...r, seq: r.before.seq + 1 }));
    for (const path of this.bodies.keys()) if (!segments.some((r) => r.path === path)) this.bodies.delete(path);
    const gaps = chains.gaps.map(({ device, from, to }) => ({ device, from, to }));
    const rewritten = rewrittenSegments(segs, applied);
    return { snapshot, segments, heads: chains.heads, devices: { ...this.devices }, problems, gaps, past: pastOf(chains.heads), rewritten };
  }

  /**
   * A planned segment's body: kept from `plan` or read again (its bytes must hash as when first opened). Undefined
   * when it changed or went since: its chain stops before it (the caller applies nothing more of that device).
   */
  async body(r: SegmentRef): Promise<SegmentBody | undefined> {
    const kept = this.bodies.get(r.path);
    this.bodies.delete(r.path);
    return kept ?? (await this.reread(r, (kind, path, words, key = `${kind} ${path}`) => {
      if (this.reported.has(key)) return;
      this.reported.add(key);
      this.lateProblems.push({ kind, path, words });
    }));
  }

  /** Problems found while reading bodies and parts after `plan` (said once); taken by the caller. */
  takeProblems(): FolderProblem[] {
    return this.lateProblems.splice(0);
  }

  private readonly lateProblems: FolderProblem[] = [];

  /**
   * The records of part `k` of a chosen snapshot (version 2), checked to be the bytes its manifest names and to say
   * they are that part (`readPart`). Throws SnapshotPartError when they are not.
   */
  part(snapshot: ReadSnapshot, k: number): Promise<unknown[]> {
    return readPart(this.storage, this.vault, snapshot, k, (d) => this.name(d));
  }

  /** A segment's body read again (it was opened by an earlier read), or undefined if it is no longer what it was. */
  private async reread(
    r: { path: string; hash: string },
    report: (k: FolderProblemKind, p: string, w: string, key?: string) => void,
  ): Promise<SegmentBody | undefined> {
    const known = this.seen.get(r.path);
    this.seen.delete(r.path);
    try {
      const bytes = await this.storage.read(r.path);
      if (toHex(await sha256(bytes)) !== r.hash) throw new SealError('unreadable', 'it changed after Backstory first read it.');
      const body = checkSegment(await open(this.vault, 'segment', bytes));
      if (known) this.seen.set(r.path, known);
      return body;
    } catch (e) {
      if (e instanceof SyncPlaceError) {
        // Removed since the listing (its writer pruned it): the next read finds the snapshot that covers it.
        if (e.problem === 'gone') return undefined;
        throw e;
      }
      const why = e instanceof Error ? e.message : String(e);
      report('unreadable', r.path, `${r.path} was not read: ${why}`, `changed ${r.path} ${r.hash}`);
      return undefined;
    }
  }

  private name(device: string): string {
    const n = this.devices[device]?.name;
    return n ? `'${n}'` : `The device ${device.slice(0, 6)}`;
  }

  private async readDevices(files: Placed[], report: (k: FolderProblemKind, p: string, w: string) => void) {
    for (const f of files) {
      const known = this.seen.get(f.path);
      if (known?.size === f.size) continue;
      try {
        const body = checkDevice(await open(this.vault, 'device', await this.storage.read(f.path)));
        this.devices[body.device] = body;
        this.seen.set(f.path, { size: f.size, device: body.device, seq: 0, prev: '', hash: '' });
      } catch (e) {
        if (!this.failed(e, f, report)) throw e;
      }
    }
  }

  /** Records a file that cannot be used; false for an error that is not the file's (offline, say). */
  private failed(e: unknown, f: Placed, report: (k: FolderProblemKind, p: string, w: string) => void): boolean {
    if (e instanceof SyncPlaceError) return e.problem === 'gone';
    this.seen.set(f.path, { size: f.size, failed: true });
    const why = e instanceof Error ? e.message : String(e);
    report(e instanceof SealError ? 'unreadable' : 'not-ours', f.path, `${f.path} was not read: ${why}`);
    return true;
  }

  /** Opens every file not opened before (or changed in size since) and notes what each says of itself. */
  private async openAll(
    files: Placed[],
    kind: SealKind,
    report: (k: FolderProblemKind, p: string, w: string) => void,
    bodies?: Map<string, SegmentBody>,
  ): Promise<(Opened & { path: string; copy: boolean })[]> {
    const out: (Opened & { path: string; copy: boolean })[] = [];
    let kept = 0;
    for (const f of files) {
      let known = this.seen.get(f.path);
      if (!known || known.size !== f.size) {
        if (f.size > SEAL_LIMITS[kind].sealed) {
          // Not even read: a file this large is no file of Backstory's.
          this.failed(new SealError('too-large', `it is ${f.size} bytes, more than a ${kind} may be.`), f, report);
          continue;
        }
        try {
          const bytes = await this.storage.read(f.path);
          const json = await open(this.vault, kind, bytes);
          const hash = toHex(await sha256(bytes));
          if (kind === 'segment') {
            const body = checkSegment(json);
            if (bodies && kept + f.size <= BODY_BUDGET) {
              bodies.set(f.path, body);
              kept += f.size;
            }
            known = { size: f.size, device: body.device, seq: body.seq, prev: body.prev, hash, seen: body.seen };
          } else {
            const body = checkSnapshot(json);
            const manifest = 'version' in body ? { parts: body.parts, records: body.records } : {};
            known = { size: f.size, device: body.device, seq: body.seq, prev: '', hash, covers: body.covers, heads: body.heads, ...manifest };
          }
          this.seen.set(f.path, known);
        } catch (e) {
          if (!this.failed(e, f, report)) throw e;
          continue;
        }
      }
      if ('failed' in known) continue;
      out.push({ ...known, path: f.path, copy: f.copy });
    }
    return out;
  }

  /** Follows each device's chain from `base`. With `say`, reports forks and replays. */
  private chains(
    segs: (Opened & { path: string; copy: boolean })[],
    base: Readonly<Record<string, Applied>>,
    report: (k: FolderProblemKind, p: string, w: string, key?: string) => void,
    say: boolean,
  ) {
    const byDevice = new Map<string, Map<number, (Opened & { path: string })[]>>();
    for (const s of segs) {
      const at = base[s.device]?.seq ?? 0;
      if (s.seq <= at) {
        if (say && canonical(s.path) !== segmentPath(this.vault.vaultId, s.device, s.seq)) {
          report('replayed', s.path, `${s.path} holds ${this.name(s.device)}'s segment ${s.seq}, already read: ` +
            'an old file put back under a new name. It was ignored.');
        }
        continue;
      }
      const seqs = byDevice.get(s.device) ?? new Map();
      byDevice.set(s.device, seqs);
      const same = seqs.get(s.seq) ?? [];
      if (!same.some((o: Opened) => o.hash === s.hash)) same.push(s);
      seqs.set(s.seq, same);
    }
    const next: { path: string; hash: string; device: string; before: Applied }[] = [];
    const heads: Record<string, Applied> = { ...base };
    const gaps: { device: string; from: number; to: number; path: string }[] = [];
    for (const [device, seqs] of byDevice) {
      let head = base[device] ?? { seq: 0, hash: '' };
      for (;;) {
        const cands = seqs.get(head.seq + 1);
        if (!cands) {
          const later = [...seqs.keys()].filter((q) => q > head.seq).sort((a, b) => a - b);
          if (later.length) gaps.push({ device, from: head.seq + 1, to: later[0], path: seqs.get(later[0])![0].path });
          break;
        }
        const fits = cands.filter((c) => c.prev === head.hash);
        if (fits.length !== 1 || cands.length > 1) {
          if (say) {
            const paths = cands.map((c) => c.path).join(', ');
            report('fork', cands[0].path, `${this.name(device)} wrote ${cands.length > 1 ? 'different segments' : 'a segment'} ` +
              `numbered ${head.seq + 1} that ${cands.length > 1 ? 'do' : 'does'} not continue what was read (${paths}). ` +
              'Nothing more of it is read; this happens when a device\'s memory was restored from an older copy.',
            `fork ${device} ${head.seq + 1}`);
          }
          break;
        }
        next.push({ path: fits[0].path, hash: fits[0].hash, device, before: head });
        head = { seq: head.seq + 1, hash: fits[0].hash };
      }
      heads[device] = head;
    }
    return { next, heads, gaps };
  }
}
