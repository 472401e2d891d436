// Reading a sync folder (docs/sync.md, "The folder", "Segments"): which snapshot a device starts from and which new
// segments it applies, in chain order, each once. A segment is applied only where its `prev` is the hash of the
// sealed bytes of the one before it; a gap, a fork, an old file put back under a new name, or a file that does not
// open is reported once, with its path, and never applied.
import { toHex, sha256 } from './bytes';
import { parseListing, segmentPath, type Placed } from './folder-layout';
import { open, SEAL_LIMITS, SealError, type SealingVault, type SealKind } from './seal';
import { checkDevice, checkSegment, checkSnapshot, type DeviceBody, type SealedSnapshot } from './segment';
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

export type FolderProblemKind = 'unreadable' | 'not-ours' | 'gap' | 'fork' | 'replayed';

export interface FolderProblem {
  kind: FolderProblemKind;
  path: string;
  words: string;
}

export interface FolderRead {
  /** A snapshot to merge first: for a new device, or where a log's early segments were removed before they were read. */
  snapshot?: { path: string; body: SealedSnapshot };
  /** New segments in chain order, device by device. */
  segments: ReadSegment[];
  /** Where each device's chain stands once the snapshot and the segments are applied. */
  heads: Record<string, Applied>;
  /** The devices of the synced memory, from their device files. */
  devices: Record<string, DeviceBody>;
  /** Problems not reported by an earlier read of this reader. */
  problems: FolderProblem[];
}

/** What a file said of itself when it was opened; kept per path and size so a file is opened once. */
interface Opened {
  size: number;
  device: string;
  seq: number;
  prev: string;
  hash: string;
  /** A snapshot's `covers`. */
  covers?: Record<string, number>;
}

const canonical = (p: string) => p.replace(/(?: \([^()/]*\)| \d{1,3}|\.sync-conflict-[^/]*|-[A-Za-z0-9_-]+)\.bin$/, '.bin');

export class FolderReader {
  private readonly seen = new Map<string, Opened | { size: number; failed: true }>();
  private readonly reported = new Set<string>();
  private devices: Record<string, DeviceBody> = {};

  constructor(
    private readonly storage: SyncStorage,
    private readonly vault: SealingVault & { vaultId: string },
  ) {}

  /** Reads the folder against what this device has applied of each device's log. */
  async read(applied: Readonly<Record<string, Applied>>): Promise<FolderRead> {
    const listing = parseListing(await this.storage.list(), this.vault.vaultId);
    const problems: FolderProblem[] = [];
    const report = (kind: FolderProblemKind, path: string, words: string, key = `${kind} ${path}`) => {
      if (this.reported.has(key)) return;
      this.reported.add(key);
      problems.push({ kind, path, words });
    };
    await this.readDevices(listing.devices, report);
    const bodies = new Map<string, SegmentBody>();
    const segs = await this.openAll(listing.segments, 'segment', report, bodies);

    let base = { ...applied };
    let chains = this.chains(segs, base, report, false);
    let snapshot: FolderRead['snapshot'];
    const isNew = Object.keys(applied).length === 0;
    if (isNew || chains.gaps.length > 0) {
      // Snapshots are opened only when one may be needed: each holds the whole memory, and a worker that restarts
      // would otherwise read them all again on its first pass.
      const snaps = await this.openAll(listing.snapshots, 'snapshot', report);
      const chosen = await this.chooseSnapshot(snaps, applied, chains.gaps, isNew);
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

    const segments: ReadSegment[] = [];
    const stopped = new Set<string>();
    for (const r of chains.next) {
      if (stopped.has(r.device)) continue;
      const body = bodies.get(r.path) ?? (await this.reread(r, report));
      if (!body) {
        // Changed since it was first opened: the chain stops before it, and the file is opened afresh next time.
        stopped.add(r.device);
        chains.heads[r.device] = r.before;
        continue;
      }
      segments.push({ path: r.path, hash: r.hash, body });
    }
    return { snapshot, segments, heads: chains.heads, devices: { ...this.devices }, problems };
  }

  /** A segment's body read again (it was opened by an earlier read), or undefined if it is no longer what it was. */
  private async reread(
    r: { path: string; hash: string },
    report: (k: FolderProblemKind, p: string, w: string, key?: string) => void,
  ): Promise<SegmentBody | undefined> {
    this.seen.delete(r.path);
    try {
      const bytes = await this.storage.read(r.path);
      if (toHex(await sha256(bytes)) !== r.hash) throw new SealError('unreadable', 'it changed after Backstory first read it.');
      return checkSegment(await open(this.vault, 'segment', bytes));
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
            bodies?.set(f.path, body);
            known = { size: f.size, device: body.device, seq: body.seq, prev: body.prev, hash };
          } else {
            const body = checkSnapshot(json);
            known = { size: f.size, device: body.device, seq: body.seq, prev: '', hash, covers: body.covers };
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

  /** The snapshot with the most in it that moves past every gap (any, for a new device); opened and checked. */
  private async chooseSnapshot(
    snaps: (Opened & { path: string })[],
    applied: Readonly<Record<string, Applied>>,
    gaps: { device: string; to: number }[],
    isNew: boolean,
  ): Promise<FolderRead['snapshot']> {
    const total = (c: Record<string, number>) => Object.values(c).reduce((a, b) => a + b, 0);
    const helpful = snaps
      .filter(({ covers = {} }) => isNew || gaps.some((g) => (covers[g.device] ?? 0) >= g.to - 1 && (covers[g.device] ?? 0) > (applied[g.device]?.seq ?? 0)))
      .sort((a, b) => total(b.covers ?? {}) - total(a.covers ?? {}) || (a.path < b.path ? -1 : 1));
    // Only the chosen one is read again (a snapshot is the whole memory); one removed meanwhile gives way to the next.
    for (const s of helpful) {
      try {
        const bytes = await this.storage.read(s.path);
        if (toHex(await sha256(bytes)) !== s.hash) continue;
        return { path: s.path, body: checkSnapshot(await open(this.vault, 'snapshot', bytes)) };
      } catch (e) {
        if (!(e instanceof SyncPlaceError && e.problem === 'gone')) throw e;
      }
    }
    return undefined;
  }
}
