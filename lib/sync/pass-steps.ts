// Steps of a sync pass (docs/sync.md, "A pass", "Snapshots") that engine.ts strings together: what merged written into
// memory and the state saved, a snapshot applied part by part, and one written a slice at a time.
import type { BackstoryDB } from '../memory/db';
import { writeDevice, writtenHash, writtenKey, type DeviceState } from './device';
import { SETTINGS_ID } from './fields';
import type { FolderReader, ReadSnapshot } from './folder-reader';
import type { SyncLedger } from './ledger';
import type { LogWriter } from './log-writer';
import { collectTombstones, knownTo, MergeState, mergeState } from './merge';
import { recordsFromJson, recordToJson, stateFromJson } from './merge-json';
import { applyCollected, applyMerged } from './replica';
import { mergedSettings } from './settings-replica';
import { noteRevisions } from './revisions';
import type { StateStore } from './state-store';
import type { SyncDeps } from './engine';

/** Records written into memory per step of a large first sync (progress is reported between steps). */
const APPLY_STEP = 2_000;
/** A device is active (its `seen` counts for collecting tombstones) while it wrote within this long. */
export const ACTIVE_MS = 90 * 86_400_000;

/** Writes what arrived into memory and the settings, a step at a time; returns how many items were written. */
export async function writeMerged(deps: SyncDeps, ledger: SyncLedger, state: MergeState, touched: Set<string>, dev: DeviceState, progress = true): Promise<number> {
  if (touched.has(SETTINGS_ID) && deps.settings) {
    const merged = mergedSettings(state, await ledger.row(SETTINGS_ID));
    if (merged) {
      await deps.settings.write(merged.values, merged.heads);
      await ledger.put([merged.row]);
    }
  }
  const ids = [...touched].filter((id) => id !== SETTINGS_ID);
  let written = 0;
  for (let i = 0; i === 0 || i < ids.length; i += APPLY_STEP) {
    const step = ids.slice(i, i + APPLY_STEP);
    const skipped = await applyMerged(deps.store, ledger, state, step);
    written += step.length - skipped.filter((id) => step.includes(id)).length;
    if (progress && ids.length > APPLY_STEP) deps.onProgress?.(Math.min(i + APPLY_STEP, ids.length), ids.length);
  }
  noteRevisions(dev, state, ids);
  return written;
}

/**
 * Merges a snapshot into the state part by part (docs/sync.md, "Snapshots"): each part's records are checked, merged
 * with this device's rows of those ids (or taken as they are where it has none), written into memory with the ledger,
 * saved, and let go before the next part is read. `dev.snapshotProgress` is saved with each part's rows, so a stopped
 * pass goes on from the next part; how far each log is applied moves to the snapshot's `covers` after the last.
 */
export async function applySnapshot(
  deps: SyncDeps,
  dev: DeviceState,
  reader: FolderReader,
  snap: ReadSnapshot,
  held: { ledger: SyncLedger; state: MergeState; states: StateStore; now: () => number },
  /** Items written into memory, told part by part: a part that cannot be applied ends the snapshot, not what came before. */
  wrote: (items: number) => void,
): Promise<void> {
  const { ledger, state, states } = held;
  const total = snap.body.version === 1 ? 0 : snap.parts.length;
  const at = dev.snapshotProgress?.path === snap.path ? dev.snapshotProgress : { path: snap.path, next: 0, done: 0 };
  for (let k = at.next; k <= total; k++) {
    let part: MergeState;
    if (snap.body.version === 1) {
      if (k > 0) break;
      part = stateFromJson(snap.state);
      snap.state = undefined; // the parsed JSON goes as soon as the state is read from it
    } else if (k < total) {
      part = recordsFromJson(await reader.part(snap, k), at.last, `part ${k}`);
    } else break;
    const ids = [...part.records.keys()];
    const last = k === total - 1 || snap.body.version === 1;
    // A part's span reaches the next part's first id; the last part's, every id after it (an empty part spans none).
    const collected = last || ids.length ? await collectedSince(states, part, at.last, last ? undefined : ids.at(-1), snap.body.covers) : [];
    if (collected.length) await applyCollected(deps.store, ledger, collected, held.now());
    await states.load(state, ids);
    const touched = new Set<string>(collected);
    for (const id of ids) {
      const record = part.records.get(id)!;
      if (!state.records.has(id)) {
        // Nothing of it here yet: the snapshot's record is the state, not copied into it.
        state.records.set(id, record);
        touched.add(id);
      } else {
        const one = new MergeState();
        one.records.set(id, record);
        if (mergeState(state, one).size) touched.add(id);
      }
    }
    part.records.clear();
    wrote(await writeMerged(deps, ledger, state, touched, dev, false));
    at.next = k + 1;
    at.last = ids.at(-1) ?? at.last;
    at.done += ids.length;
    dev.snapshotProgress = { ...at };
    await saveState(deps.db, states, state, touched, dev);
    state.records.clear();
    deps.onProgress?.(at.done, snap.body.records ?? at.done);
  }
  for (const [device, seq] of Object.entries(snap.body.covers)) {
    if (seq > (dev.applied[device]?.seq ?? 0)) dev.applied[device] = { seq, hash: snap.body.heads[device] ?? '' };
  }
  dev.snapshotProgress = undefined;
  dev.opsSinceSnapshot = 0;
  await writeDevice(deps.db, dev);
}

/**
 * The records this device holds in a part's span of ids (after `after`, up to `upTo`) that the part lacks though the
 * snapshot knew every operation on them: deleted and collected where the snapshot was written, while this device was
 * away longer than tombstones are kept for it (docs/sync.md, "Collecting tombstones"). A new device holds none.
 */
async function collectedSince(states: StateStore, part: MergeState, after: string | undefined, upTo: string | undefined, covers: Record<string, number>): Promise<string[]> {
  const absent = (await states.idsIn(after, upTo)).filter((id) => !part.records.has(id));
  if (!absent.length) return [];
  const held = new MergeState();
  await states.load(held, absent);
  return absent.filter((id) => knownTo(held.records.get(id)!, covers));
}

export async function saveState(db: BackstoryDB, states: StateStore, state: MergeState, ids: Iterable<string>, dev: DeviceState): Promise<void> {
  await db.transaction('rw', [db.syncState, db.syncDevice], async () => {
    await states.save(state, ids);
    await writeDevice(db, dev);
  });
}

/**
 * A snapshot of the whole state after this device's newest segment, tombstones every active device has seen
 * collected; then this device's files the snapshot makes unneeded are removed: older snapshots, and segments every
 * other active device has applied.
 */
export async function writeSnapshot(db: BackstoryDB, dev: DeviceState, writer: LogWriter, states: StateStore, now: number, partBytes?: number): Promise<void> {
  const active = Object.keys(dev.seen).filter((d) => d === dev.deviceId || now - (dev.wrote[d] ?? 0) < ACTIVE_MS);
  const seens = active.map((d) => dev.seen[d]);
  const dropped: string[] = [];
  // The state a slice at a time, in id order, tombstones collected per slice: the writer seals a part as it fills.
  async function* records() {
    for await (const slice of states.slices()) {
      const before = [...slice.records.keys()];
      collectTombstones(slice, seens);
      for (const id of before) if (!slice.records.has(id)) dropped.push(id);
      yield [...slice.records].map(([id, record]) => ({ id, fields: recordToJson(record) }));
    }
  }
  const seq = dev.applied[dev.deviceId].seq;
  const { size, parts, files } = await writer.snapshot(seq, dev.applied, records(), { partBytes });
  await db.syncState.bulkDelete(dropped);
  dev.snapshotSeq = seq;
  // The device file, the segments after the snapshot, and the snapshot's own files, from now on.
  const later = Object.entries(dev.writtenFiles ?? {}).filter(([key]) => key.startsWith('devices/') || (key.startsWith('log/') && parseInt(key.slice(4), 10) > seq));
  const own = Object.entries(files).map(([path, f]) => [writtenKey(path), { ...(f.hash ? { hash: writtenHash(f.hash) } : {}), ...(f.size === undefined ? {} : { size: f.size }) }]);
  dev.writtenFiles = Object.fromEntries([...later, ...own]);
  dev.snapshotCovers = Object.fromEntries(Object.entries(dev.applied).map(([d, a]) => [d, a.seq]));
  dev.snapshotParts = parts;
  dev.snapshotBytes = size;
  dev.opsSinceSnapshot = 0;
  dev.bytesSinceSnapshot = 0;
  const others = active.filter((d) => d !== dev.deviceId);
  const seenByAll = Math.min(seq, ...others.map((d) => dev.seen[d]?.[dev.deviceId] ?? 0));
  await writer.prune({ segmentsUpTo: seenByAll });
}
