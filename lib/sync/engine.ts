// A sync pass (docs/sync.md, "A pass"): what other devices wrote comes in, this device's changes go out, and every
// step is kept in IndexedDB in an order that a worker stopped at any point resumes from without losing or doubling
// anything. Joining a synced memory (or making one) is `connectVault`.
import type { BackstoryDB } from '../memory/db';
import type { MemoryStore } from '../memory/store';
import { dropOutbox, outboxRow, readDevice, readOutbox, writeDevice, writtenHash, writtenKey, type DeviceState, type OutboxRow, type SyncPlace } from './device';
import { heldInWords, SETTINGS_ID, SyncFormatError, parseOps } from './fields';
import { findVaults, mendHeader } from './folder-headers';
import { devicePath, headerPath, parseListing } from './folder-layout';
import { changedInPlace, findLosses, lookPast, noteWaiting } from './folder-losses';
import { FolderReader, SnapshotPartError, type Applied } from './folder-reader';
import { durationInWords, HybridClock, MAX_DRIFT, parseStamp, receiveAll, type ClockAhead } from './hlc';
import { SyncLedger } from './ledger';
import { COPIED_PROFILE, joinAsDevice, unsentDeletes } from './join-device';
import { LogForkError, LogWriter } from './log-writer';
import { applyOps, MergeState, noteCarrier } from './merge';
import { applySnapshot, saveState, writeMerged, writeSnapshot } from './pass-steps';
import { commitLocal, localChanges } from './replica';
import { settingsChanges, type SettingsHeads, type SyncedSettings } from './settings-replica';
import { noteRevisions } from './revisions';
import { StateStore } from './state-store';
import { SyncPlaceError, type SyncOp, type SyncStorage } from './types';
import { createVault, headerText, unlockWithPassphrase, unlockWithRecoveryKey, VaultError, type Vault } from './vault';

/** Operations one segment carries at most: a first sync of a large memory is written in several. */
export const OPS_PER_SEGMENT = 20_000;
/** A snapshot is written once this many operations were written or applied since the last one. */
export const SNAPSHOT_AFTER_OPS = 20_000;
/**
 * ...or once this device wrote more bytes of segments since its last snapshot than that snapshot holds (and at least
 * this many): a setting that changes often (learning's events) fills the folder with segments of few operations.
 */
export const SNAPSHOT_AFTER_BYTES = 1_000_000;
/** Records segments merged that are written into memory and saved before the next segment is applied. */
const FLUSH_RECORDS = 5_000;
/** A device that applied others' segments but has nothing of its own to say still writes (its `seen`) this often. */
const SEEN_EVERY_MS = 3_600_000;

export interface SyncDeps {
  db: BackstoryDB;
  store: MemoryStore;
  /** The place as this device reaches it (WebDAV with its login, or the kept folder handle). */
  open(place: SyncPlace): Promise<SyncStorage>;
  /** The settings that sync, read and written by the service (the settings layer is above sync). */
  settings?: { read(): Promise<SyncedSettings>; write(values: SyncedSettings, heads: SettingsHeads): Promise<void> };
  now?: () => number;
  /** The most JSON a snapshot's part holds (`PART_BYTES` unless given; tests make small parts). */
  snapshotPartBytes?: number;
  /** Items written into memory so far of a pass that brings many. */
  onProgress?: (done: number, total: number) => void;
}

export interface PassReport {
  /** Operations of other devices applied. */
  received: number;
  /** Operations of this device written. */
  sent: number;
  /** Items written into memory. */
  written: number;
  /** Devices that synced this memory (a device file and a file of their log), this one included. */
  devices: number;
  /** New problems, in words (each said once). */
  problems: string[];
}

/**
 * Readers by database, then vault, device and place (each pass opens the place afresh): a file opened once in a
 * worker's life is not opened again until it changes. One profile holds one device; tests and benches run several in
 * one process, copies of one profile among them.
 */
const readers = new WeakMap<BackstoryDB, Map<string, FolderReader>>();

function readerFor(db: BackstoryDB, dev: DeviceState, storage: SyncStorage): FolderReader {
  const key = `${dev.vaultId} ${dev.deviceId} ${JSON.stringify(dev.place)}`;
  let mine = readers.get(db);
  if (!mine) readers.set(db, (mine = new Map()));
  const held = mine.get(key);
  if (held) {
    held.use(storage);
    return held;
  }
  const reader = new FolderReader(storage, vaultOf(dev));
  mine.set(key, reader);
  return reader;
}

const vaultOf = (dev: DeviceState) => ({ key: dev.vaultKey, digest: dev.digest, vaultId: dev.vaultId });

/**
 * How far this device's clock (`now`) is ahead of the place's (negative: behind), to the minute (a `Date` header says
 * whole seconds), or undefined where the place does not say its time.
 */
function clockOffPlace(storage: SyncStorage, now: number): number | undefined {
  const t = storage.placeTime?.();
  return t && Math.round((now - (t.place + (Date.now() - t.local))) / 60_000) * 60_000;
}

/** Looks like a recovery key (32 base32 characters in any grouping) rather than a passphrase. */
const RECOVERY_SHAPE = /^[\s-]*(?:[a-z2-7][\s-]*){32}$/i;

/**
 * Joins the synced memory at the place with the passphrase (or its recovery key), or makes a new one there when it
 * holds none. Nothing is written before the key unlocked: a wrong passphrase leaves no trace. This device starts with
 * an empty ledger, so its first pass is a union with what is there.
 */
export async function connectVault(
  deps: Pick<SyncDeps, 'db' | 'open' | 'now'>,
  req: {
    place: SyncPlace;
    passphrase: string;
    deviceName: string;
    /** Key derivation cost for a new synced memory; tests and benches pass a cheap one. */
    kdf?: Parameters<typeof createVault>[1];
  },
): Promise<{ recoveryKey?: string }> {
  const now = deps.now?.() ?? Date.now();
  const storage = await deps.open(req.place);
  const found = await findVaults(storage);
  let vault: Vault | undefined;
  let recoveryKey: string | undefined;
  if (found.vaults.length) {
    const byRecovery = RECOVERY_SHAPE.test(req.passphrase);
    let first: unknown;
    for (const v of [...found.vaults].sort((a, b) => (a.vaultId < b.vaultId ? -1 : 1))) {
      try {
        vault = byRecovery ? await unlockWithRecoveryKey(v.header, req.passphrase) : await unlockWithPassphrase(v.header, req.passphrase);
        break;
      } catch (e) {
        first ??= e;
      }
    }
    if (!vault) throw first instanceof Error ? first : new VaultError('wrong-passphrase', 'That passphrase does not open the synced memory in this folder.');
  } else {
    if (found.problems.length) throw new SyncFormatError(`This folder holds a damaged sync header: ${found.problems[0].words}`);
    const made = await createVault(req.passphrase, req.kdf);
    await storage.create(headerPath(made.vault.vaultId), new TextEncoder().encode(headerText(made.header)));
    // Two devices may make one at the same moment: the one with the lower id is kept by both.
    const again = await findVaults(storage);
    const other = again.vaults.filter((v) => v.vaultId < made.vault.vaultId).sort((a, b) => (a.vaultId < b.vaultId ? -1 : 1))[0];
    if (other) {
      vault = await unlockWithPassphrase(other.header, req.passphrase);
      await storage.remove(headerPath(made.vault.vaultId));
    } else {
      vault = made.vault;
      recoveryKey = made.recoveryKey;
    }
  }
  await joinAsDevice(deps.db, storage, { vaultId: vault.vaultId, header: vault.header, digest: vault.digest, vaultKey: vault.key, place: req.place, deviceName: req.deviceName }, now);
  return { recoveryKey };
}

/**
 * How long a pass's words stay in the status after it said them (unless a later pass says something else). A change
 * syncs a few seconds after it is made, and a pass asked for meanwhile runs right after: the words of one pass cleared
 * by the next, seconds later, were seldom seen.
 */
export const NOTICE_KEPT_MS = 10 * 60_000;

/** What the status says after a pass: what it said, or what an earlier pass said less than NOTICE_KEPT_MS before. */
function noteNotice(dev: DeviceState, said: string | undefined, now: number): void {
  if (said) {
    dev.notice = said;
    dev.noticeAt = now;
    return;
  }
  const age = now - (dev.noticeAt ?? 0);
  // A time noted while the clock ran ahead does not keep it: a clock set back clears it.
  if (age < 0 || age >= NOTICE_KEPT_MS) {
    dev.notice = undefined;
    dev.noticeAt = undefined;
  }
}

/**
 * One sync pass. Undefined when sync is off on this device. When the folder holds another file sealed with this
 * memory's key under a name this device was about to write, another profile writes as this device (this one was
 * copied, or restored from a backup):
 * this profile joins again as a device of its own, keeping its memory, and the pass runs as that device's first. Its
 * changes since its last pass go out as a union, and what it deleted and never sent is deleted again after it.
 */
export async function syncPass(deps: SyncDeps): Promise<PassReport | undefined> {
  try {
    return await onePass(deps);
  } catch (e) {
    const dev = e instanceof LogForkError ? await readDevice(deps.db) : undefined;
    if (!dev) throw e;
    await joinAsDevice(deps.db, await deps.open(dev.place), dev, deps.now?.() ?? Date.now(), await unsentDeletes(deps.db, deps.store));
    const report = await onePass(deps);
    const joined = await readDevice(deps.db);
    if (!report || !joined) return report;
    report.problems.push(COPIED_PROFILE);
    await writeDevice(deps.db, { ...joined, notice: COPIED_PROFILE, noticeAt: deps.now?.() ?? Date.now() });
    return report;
  }
}

async function onePass(deps: SyncDeps): Promise<PassReport | undefined> {
  const dev = await readDevice(deps.db);
  if (!dev) return undefined;
  const now = () => deps.now?.() ?? Date.now();
  const storage = await deps.open(dev.place);
  const writer = new LogWriter(storage, vaultOf(dev), dev.deviceId);
  const report: PassReport = { received: 0, sent: 0, written: 0, devices: dev.devices, problems: [] };
  const say = (key: string, words: string) => {
    if (dev.said.includes(key)) return;
    dev.said = [...dev.said.slice(-199), key];
    report.problems.push(words);
  };

  // What a stopped pass sealed but may not have written goes first, as it is.
  await flushOutbox(deps.db, dev, writer, now);

  const listing = parseListing(await storage.list(), dev.vaultId);
  if (!listing.headers.some((h) => h.vaultId === dev.vaultId)) {
    throw new SyncPlaceError('gone', 'The synced memory is no longer in this folder (its header file is gone). Disconnect and connect again to start a new one there; your memory on this device is kept.');
  }
  if (await mendHeader(storage, listing, dev.vaultId, dev.header)) {
    say(`header ${now()}`, "The synced memory's header file was changed or cut short in the folder, so no new device could join; this device wrote it again.");
  }
  const deviceKey = writtenKey(devicePath(dev.vaultId, dev.deviceId));
  const mended = await writer.mendDeviceFile(listing, dev.deviceName, dev.joinedAt, dev.writtenFiles?.[deviceKey]);
  dev.writtenFiles = { ...dev.writtenFiles, [deviceKey]: mended.file };
  if (mended.wrote) {
    say(`device file ${now()}`, "This device's file in the folder was changed or cut short (or went), so other devices did not know it by its name or count it; it was written again.");
  }
  // Segments the folder lost (put back to an older copy) that this device can make up for: a segment and then a
  // snapshot of everything here are written this pass, so that devices behind the gap move past it.
  const losses = findLosses(listing, dev, await changedInPlace(storage, listing, dev));
  const reader = readerFor(deps.db, dev, storage);
  const read = await reader.plan(dev.applied, { resume: dev.snapshotProgress?.path, lookPast: lookPast(dev, now()), listing, refused: dev.refusedSnapshots });
  // This device's log went on past its head, or holds another version of a segment it wrote, or forks, and not from
  // here (what a stopped pass sealed went out above): another profile writes as this device (a copy that wrote the
  // same number before a file-sync engine carried either). Its stamps would collide with this one's: join again.
  const own = `/log/${dev.deviceId}/`;
  const another = read.segments.find((ref) => ref.device === dev.deviceId) ?? read.rewritten.find((r) => r.device === dev.deviceId) ??
    read.problems.find((p) => p.kind === 'fork' && p.path.includes(own));
  if (another) throw new LogForkError(another.path);
  for (const p of read.problems) if (p.kind !== 'gap') say(`${p.kind} ${p.path}`, p.words);
  const rewrite = noteWaiting(dev, read, losses, now(), say);
  // Devices that synced: a device file with no file of its device's beside it is a connect that stopped before its
  // first pass (it connects again under a new id).
  const synced = new Set([...listing.segments, ...listing.snapshots].map((f) => f.device));
  report.devices = dev.devices = Math.max(1, Object.keys(read.devices).filter((d) => d === dev.deviceId || synced.has(d)).length);

  const ledger = new SyncLedger(deps.db);
  const clock = new HybridClock(dev.deviceId, await ledger.clock());
  const state = new MergeState();
  const states = new StateStore(deps.db);
  // Records merged but not yet written into memory and saved (flushed every FLUSH_RECORDS), and every id this pass
  // merged (ids only: a record edited here meanwhile takes the merged result below).
  let touched = new Set<string>();
  const merged = new Set<string>();
  const ahead: ClockAhead[] = [];
  const flush = async () => {
    // A record whose fields went on in the next segment is written again, whole: it counts once.
    const again = [...touched].filter((id) => merged.has(id)).length;
    report.written += (await writeMerged(deps, ledger, state, touched, dev)) - again;
    await saveState(deps.db, states, state, touched, dev);
    for (const id of touched) merged.add(id);
    state.records.clear();
    touched = new Set();
  };

  let segmentsWait = false;
  if (read.snapshot) {
    try {
      await applySnapshot(deps, dev, reader, read.snapshot, { ledger, state, states, now }, (n) => (report.written += n));
    } catch (e) {
      if (!(e instanceof SnapshotPartError || e instanceof SyncFormatError)) throw e;
      // A part not there yet, some other file under a part's name, or one that does not read: nothing after the
      // snapshot is applied now. What its parts before brought in stays: each was the one its manifest names.
      say(`snapshot ${read.snapshot.path}`, e instanceof SyncFormatError ? `${read.snapshot.path} was not used: ${e.message}` : e.message);
      if (e instanceof SyncFormatError) dev.snapshotProgress = undefined;
      else if (e.refused) {
        // Not chosen again (a later version may read what this one cannot: that is not marked).
        dev.snapshotProgress = undefined;
        dev.refusedSnapshots = [...(dev.refusedSnapshots ?? []).slice(-19), `${read.snapshot.path} ${read.snapshot.hash}`];
      }
      segmentsWait = true;
    }
  }
  const stopped = new Set<string>();
  for (const ref of segmentsWait ? [] : read.segments) {
    const { device, seq } = ref;
    if (stopped.has(device)) continue;
    // One segment in memory at a time: read (or kept from planning), applied, let go.
    const body = await reader.body(ref);
    if (!body) {
      stopped.add(device);
      continue;
    }
    let ops: SyncOp[];
    try {
      ops = parseOps(body.ops, `${ref.path}`);
    } catch (e) {
      // A sealed segment this version cannot take: nothing of it, nor of what follows it, is applied.
      stopped.add(device);
      say(`refused ${ref.path}`, e instanceof Error ? e.message : String(e));
      continue;
    }
    await states.load(state, ops.map((o) => o.id));
    for (const id of applyOps(state, ops, { device, seq })) touched.add(id);
    ahead.push(...receiveAll(clock, ops.map((o) => o.stamp), now()));
    dev.applied[device] = { seq, hash: ref.hash };
    dev.seen[device] = body.seen;
    const newest = ops.reduce((m, o) => Math.max(m, parseStamp(o.stamp).wall), 0);
    dev.wrote[device] = Math.max(dev.wrote[device] ?? 0, Math.min(newest || now(), now()));
    report.received += ops.length;
    if (state.records.size >= FLUSH_RECORDS) await flush();
  }
  for (const p of reader.takeProblems()) say(`${p.kind} ${p.path}`, p.words);
  // Against the place's clock where it says one: a device whose own clock is slow would blame every other device.
  const off = clockOffPlace(storage, now());
  if (off !== undefined && Math.abs(off) > MAX_DRIFT) {
    const words = `${durationInWords(Math.abs(off))} ${off > 0 ? 'ahead of' : 'behind'}`;
    say(`own clock ${words}`, `This device's clock is ${words} the WebDAV server's: set it right. Its changes still sync, but they are dated wrongly.`);
  }
  for (const a of ahead) {
    const name = read.devices[a.device]?.name ?? 'another device';
    const by = off === undefined ? a.aheadMs : a.aheadMs + off;
    if (by <= MAX_DRIFT) continue;
    say(`ahead ${a.device}`, `The clock of '${name}' is ${durationInWords(by)} ahead of ${off === undefined ? 'this one' : "the WebDAV server's"}: its changes are kept, but set that device's clock right.`);
  }
  dev.opsSinceSnapshot += report.received;

  // Into memory (and the ledger with it), then the state and how far each log was applied, in that order: a stop in
  // between applies the same segments again, and writing the same records again changes nothing.
  await flush();

  // This device's changes: sealed into segments kept in the outbox together with the ledger rows that say they were
  // made, so a stop never loses one nor sends one twice.
  // What this profile deleted and never sent before it joined again, brought back by the union just applied.
  if (dev.redelete?.length) {
    await deps.store.remove(dev.redelete);
    dev.redelete = undefined;
  }
  const local = await localChanges(deps.store, ledger, clock, now());
  const settings = deps.settings ? settingsChanges(await deps.settings.read(), await ledger.row(SETTINGS_ID), clock, now()) : undefined;
  const ops = [...(settings?.ops ?? []), ...local.ops];
  for (const h of [...(settings?.held ?? []), ...local.held]) say(`held ${h.id} ${h.field} ${h.print}`, heldInWords(h));
  const mine = dev.applied[dev.deviceId];
  const quietFor = now() - (dev.wrote[dev.deviceId] ?? 0);
  const seenMoved = Object.entries(dev.applied).some(([d, a]) => d !== dev.deviceId && a.seq > (dev.seen[dev.deviceId]?.[d] ?? 0));
  if (ops.length || (seenMoved && quietFor > SEEN_EVERY_MS) || !mine || rewrite) {
    await states.load(state, ops.map((o) => o.id));
    applyOps(state, ops);
    noteRevisions(dev, state, new Set(ops.map((o) => o.id)));
    const outbox: OutboxRow[] = [];
    let last: Applied | undefined = mine;
    const seen = Object.fromEntries(Object.entries(dev.applied).map(([d, a]) => [d, a.seq]));
    for (let i = 0; i === 0 || i < ops.length; i += OPS_PER_SEGMENT) {
      const chunk = ops.slice(i, i + OPS_PER_SEGMENT);
      const pending = await writer.prepare(last, { ...seen, [dev.deviceId]: (last?.seq ?? 0) + 1 }, chunk);
      outbox.push(outboxRow(pending, chunk));
      last = { seq: pending.seq, hash: pending.hash };
    }
    await deps.db.transaction('rw', [deps.db.syncDevice, deps.db.syncLedger, deps.db.syncMeta, deps.db.syncState], async () => {
      await commitLocal(ledger, local);
      // The clock as it stands after the settings' stamps too: kept only as far as `local`'s, the next pass gave a
      // settings stamp out again when the clock ran ahead of the wall time (another device's stamps, a clock set
      // back), and that change named itself in its base, so every device refused it and all this device sent after.
      await ledger.put(settings?.ops.length ? [settings.row] : [], clock.last);
      await states.write(states.rows(state, ops.map((o) => o.id)));
      await deps.db.syncDevice.bulkPut(outbox);
      await writeDevice(deps.db, dev);
    });
    await flushOutbox(deps.db, dev, writer, now, state, states);
    report.sent = ops.length;
    dev.opsSinceSnapshot += ops.length;
    // A record edited here while another device's edit of it arrived: the two merged, and memory takes the result now
    // rather than on the next pass.
    const both = new Set(ops.map((o) => o.id).filter((id) => merged.has(id)));
    if (both.size) report.written += await writeMerged(deps, ledger, state, both, dev);
  }

  const written = dev.bytesSinceSnapshot ?? 0;
  const due = rewrite || dev.opsSinceSnapshot >= SNAPSHOT_AFTER_OPS || written >= Math.max(SNAPSHOT_AFTER_BYTES, dev.snapshotBytes ?? 0);
  if (due && (dev.applied[dev.deviceId]?.seq ?? 0) > dev.snapshotSeq) await writeSnapshot(deps.db, dev, writer, states, now(), deps.snapshotPartBytes);

  dev.lastSyncedAt = now();
  dev.failure = undefined;
  dev.reconnect = undefined;
  noteNotice(dev, report.problems.at(-1), now());
  await writeDevice(deps.db, dev);
  return report;
}

/**
 * Writes the outbox's segments in order; after each, this device's chain head moves and the state notes which
 * segment carried its operations (tombstones are collected by it).
 */
async function flushOutbox(db: BackstoryDB, dev: DeviceState, writer: LogWriter, now: () => number, state?: MergeState, states?: StateStore): Promise<void> {
  const held = state ?? new MergeState();
  const store = states ?? new StateStore(db);
  for (const { pending, ops } of await readOutbox(db)) {
    await writer.write(pending);
    const ids = ops.map((o) => o.id);
    await store.load(held, ids);
    noteCarrier(held, ops, { device: dev.deviceId, seq: pending.seq });
    dev.applied[dev.deviceId] = { seq: pending.seq, hash: pending.hash };
    dev.seen[dev.deviceId] = Object.fromEntries(Object.entries(dev.applied).map(([d, a]) => [d, a.seq]));
    dev.wrote[dev.deviceId] = now();
    dev.bytesSinceSnapshot = (dev.bytesSinceSnapshot ?? 0) + pending.bytes.length;
    dev.writtenFiles = { ...dev.writtenFiles, [writtenKey(pending.path)]: { hash: writtenHash(pending.hash), size: pending.bytes.length } };
    const rows = store.rows(held, ids);
    await db.transaction('rw', [db.syncState, db.syncDevice], async () => {
      await store.write(rows);
      await dropOutbox(db, pending.seq);
      await writeDevice(db, dev);
    });
  }
}
