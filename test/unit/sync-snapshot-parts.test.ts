// Snapshots in parts (docs/sync.md, "Snapshots"): a manifest naming each part by hash, parts written and applied one
// at a time, a stopped pass resumed from the next part, and a folder whose parts are missing, changed, renamed or
// copied by an engine; a snapshot of the first format (one file) still read.
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { beforeAll, describe, expect, it } from 'vitest';
import { openMemoryDB, type BackstoryDB } from '../../lib/memory/db';
import { MemoryStore } from '../../lib/memory/store';
import { readDevice } from '../../lib/sync/device';
import { connectVault, syncPass, type PassReport, type SyncDeps } from '../../lib/sync/engine';
import { parseListing, snapshotPartPath, snapshotPath } from '../../lib/sync/folder-layout';
import { FolderReader, SnapshotPartError } from '../../lib/sync/folder-reader';
import { LogWriter } from '../../lib/sync/log-writer';
import { MergeState } from '../../lib/sync/merge';
import { stateHash, stateToJson } from '../../lib/sync/merge-json';
import { open, seal } from '../../lib/sync/seal';
import { StateStore } from '../../lib/sync/state-store';
import { MemoryStorage } from '../../lib/sync/storage-memory';
import type { SyncStorage } from '../../lib/sync/types';
import { createVault, type Vault } from '../../lib/sync/vault';
import { FAST_KDF, TEST_PASSPHRASE, TEST_PLACE, textHashEmbedder } from './sync-fixtures';

/** Enough items for a snapshot (20,000 operations at 19 fields an item), in parts of about 15 records. */
const ITEMS = 1100;
const PART_BYTES = 20_000;

class Profile {
  readonly db: BackstoryDB = openMemoryDB('memory', { indexedDB: new IDBFactory(), IDBKeyRange });
  readonly store = new MemoryStore(this.db, async () => textHashEmbedder);
  progress: [number, number][] = [];
  constructor(public storage: SyncStorage) {}
  get deps(): SyncDeps {
    return { db: this.db, store: this.store, open: async () => this.storage, snapshotPartBytes: PART_BYTES, onProgress: (d, t) => this.progress.push([d, t]) };
  }
  connect(name: string) {
    return connectVault(this.deps, { place: TEST_PLACE, passphrase: TEST_PASSPHRASE, deviceName: name, kdf: FAST_KDF });
  }
  async pass(): Promise<PassReport> {
    return (await syncPass(this.deps))!;
  }
  async texts(): Promise<Record<string, string>> {
    return Object.fromEntries((await this.store.all()).map((it) => [it.id, it.text]));
  }
  async hash(): Promise<string> {
    const all = new MergeState();
    for await (const slice of new StateStore(this.db).slices()) for (const [id, r] of slice.records) all.records.set(id, r);
    return stateHash(all);
  }
}

const items = Array.from({ length: ITEMS }, (_, i) => ({ id: `item-${String(i).padStart(5, '0')}`, text: `Note ${i}: the lease renews in March, ask about parking ${i * 7}.` }));

/** A's memory of ITEMS items, synced once: its folder holds a snapshot in parts and no segment before it. */
async function firstDevice(): Promise<{ folder: MemoryStorage; a: Profile; manifest: string; parts: string[] }> {
  const folder = new MemoryStorage();
  const a = new Profile(folder);
  await a.store.add(items, { from: 'user' });
  await a.connect('A');
  await a.pass();
  const listing = parseListing([...folder.files].map(([path, b]) => ({ path, size: b.length })), (await readDevice(a.db))!.vaultId);
  expect(listing.snapshots).toHaveLength(1);
  const parts = listing.parts.sort((x, y) => x.part - y.part).map((p) => p.path);
  return { folder, a, manifest: listing.snapshots[0].path, parts };
}

/** B joins the folder A synced to, and makes its first pass. */
async function secondDevice(folder: SyncStorage): Promise<{ b: Profile; got: Awaited<ReturnType<Profile['pass']>> }> {
  const b = new Profile(folder);
  await b.connect('B');
  return { b, got: await b.pass() };
}

/** The folder as a device sees it, each read noted (in order, repeats included). */
function countingReads(folder: MemoryStorage): { storage: SyncStorage; reads: string[] } {
  const reads: string[] = [];
  return { reads, storage: { list: () => folder.list(), read: (p) => (reads.push(p), folder.read(p)), create: (p, b) => folder.create(p, b), remove: (p) => folder.remove(p) } };
}

/** The folder as a device sees it, failing to read `path` while `fail` says so. */
function failing(folder: MemoryStorage, path: () => string | undefined): SyncStorage {
  return {
    list: () => folder.list(),
    read: async (p) => {
      if (p === path()) throw new Error('the worker was stopped');
      return folder.read(p);
    },
    create: (p, b) => folder.create(p, b),
    remove: (p) => folder.remove(p),
  };
}

describe('snapshots in parts', () => {
  it('a new device reads a snapshot written in parts, each part once: every item, the same state hash', async () => {
    const { folder, a, parts } = await firstDevice();
    expect(parts.length).toBeGreaterThan(20);
    expect([...folder.files.keys()].filter((p) => p.includes('/log/'))).toEqual([]);
    const { storage, reads } = countingReads(folder);
    const { b, got } = await secondDevice(storage);
    // What a new device downloads: each part once (checked as it is applied), not once to check and again to apply.
    expect(parts.map((p) => reads.filter((r) => r === p).length)).toEqual(parts.map(() => 1));
    expect(got.written).toBe(ITEMS);
    expect(await b.texts()).toEqual(await a.texts());
    expect(await b.hash()).toBe(await a.hash());
    // Progress per part, up to every record.
    expect(b.progress.length).toBe(parts.length);
    expect(b.progress.at(-1)).toEqual([ITEMS, ITEMS]);
    expect((await readDevice(b.db))!.snapshotProgress).toBeUndefined();
  });

  it('a worker stopped after part k goes on from part k+1: nothing lost, nothing twice', async () => {
    const { folder, a, parts } = await firstDevice();
    const k = 7;
    let stopAt: string | undefined;
    const b = new Profile(failing(folder, () => stopAt));
    await b.connect('B');
    // Each part is read when it is applied: the stop comes as part k is first read.
    let once = true;
    const inner = b.storage;
    b.storage = { ...inner, read: async (p) => (p === parts[k] && once && ((once = false), (stopAt = p)), inner.read(p)) };
    await expect(b.pass()).rejects.toThrow(/stopped/);
    const dev = (await readDevice(b.db))!;
    expect(dev.snapshotProgress).toMatchObject({ next: k, done: b.progress.at(-1)![0] });
    expect(dev.applied).toEqual({});
    const before = Object.keys(await b.texts()).length;
    expect(before).toBe(b.progress.at(-1)![0]);
    expect(before).toBeGreaterThan(0);

    stopAt = undefined;
    b.progress = [];
    const got = await b.pass();
    // Only the parts from k on were applied again.
    expect(b.progress.length).toBe(parts.length - k);
    expect(got.written).toBe(ITEMS - before);
    expect(await b.texts()).toEqual(await a.texts());
    expect(await b.hash()).toBe(await a.hash());
    const aDev = (await readDevice(a.db))!;
    expect((await readDevice(b.db))!.applied[aDev.deviceId]).toEqual(aDev.applied[aDev.deviceId]);
    expect((await b.pass()).written).toBe(0);
  });

  it('a snapshot whose part has not arrived is not used yet; it is once the part is there', async () => {
    const { folder, a, parts } = await firstDevice();
    const held = folder.files.get(parts[3])!;
    folder.files.delete(parts[3]);
    const { b, got } = await secondDevice(folder);
    expect(got.written).toBe(0);
    expect(await b.texts()).toEqual({});
    expect((await readDevice(b.db))!.applied).toEqual({ [(await readDevice(b.db))!.deviceId]: expect.anything() });
    folder.files.set(parts[3], held);
    expect((await b.pass()).written).toBe(ITEMS);
    expect(await b.hash()).toBe(await a.hash());
  });

  it('a changed part is refused and said once; what the parts before it brought stays, the rest is not used, and the snapshot is not tried again', async () => {
    const { folder, parts } = await firstDevice();
    const bytes = folder.files.get(parts[5])!.slice();
    bytes[bytes.length - 3] ^= 1;
    folder.files.set(parts[5], bytes);
    const { storage, reads } = countingReads(folder);
    const { b, got } = await secondDevice(storage);
    // Parts 0 to 4 are the ones the manifest names, each checked as it was applied.
    const before = Object.keys(await b.texts()).length;
    expect(got.written).toBe(before);
    expect(before).toBe(b.progress.at(-1)![0]);
    expect(before).toBeGreaterThan(0);
    expect(before).toBeLessThan(ITEMS);
    expect(got.problems).toEqual([expect.stringMatching(/is not the part .* snapshot .* names .* The rest of that snapshot was not used/)]);
    reads.length = 0;
    expect((await b.pass()).problems).toEqual([]);
    expect(reads.filter((p) => parts.includes(p))).toEqual([]);
    expect(Object.keys(await b.texts())).toHaveLength(before);
  });

  it('a part put under another part’s name is refused', async () => {
    const { folder, parts } = await firstDevice();
    folder.files.set(parts[2], folder.files.get(parts[1])!);
    const { b, got } = await secondDevice(folder);
    expect(got.written).toBe(b.progress.at(-1)![0]);
    expect(got.problems).toEqual([expect.stringContaining(parts[2])]);
  });

  it('a part that is still an earlier write of itself (its writer stopped and wrote it again) waits; the pass after it arrives goes on from that part', async () => {
    const { folder, a, parts } = await firstDevice();
    const k = 6;
    const dev = (await readDevice(a.db))!;
    const vault = { key: dev.vaultKey, digest: dev.digest };
    const right = folder.files.get(parts[k])!;
    // The same part sealed again (a new salt): it says it is part k of that snapshot, but its bytes are not the ones named.
    folder.files.set(parts[k], await seal(vault, 'snapshot-part', await open(vault, 'snapshot-part', right)));
    const { storage, reads } = countingReads(folder);
    const { b, got } = await secondDevice(storage);
    expect(got.problems).toEqual([expect.stringMatching(/snapshot \d+ is not all in the folder yet \(part 6 is still the one a stopped write left\)/)]);
    expect((await readDevice(b.db))!.snapshotProgress).toMatchObject({ next: k });
    folder.files.set(parts[k], right);
    reads.length = 0;
    const rest = await b.pass();
    expect(rest.problems).toEqual([]);
    expect(reads.filter((p) => parts.slice(0, k).includes(p))).toEqual([]);
    expect(await b.texts()).toEqual(await a.texts());
    expect(await b.hash()).toBe(await a.hash());
  });

  it('an engine’s copy of a part is read like the part; a stale copy beside it does not matter', async () => {
    const { folder, a, parts } = await firstDevice();
    const copy = parts[4].replace(/\.bin$/, ' (Laptop’s conflicted copy 2026-12-06).bin');
    folder.files.set(copy, folder.files.get(parts[4])!);
    folder.files.delete(parts[4]);
    folder.files.set(parts[6].replace(/\.bin$/, '.sync-conflict-20261206-123456-ABCDEFG.bin'), folder.files.get(parts[9])!);
    const { b, got } = await secondDevice(folder);
    expect(got.problems).toEqual([]);
    expect(got.written).toBe(ITEMS);
    expect(await b.hash()).toBe(await a.hash());
  });

  it('a snapshot of the first format (one file holding the whole state) is still read', async () => {
    const { folder, a, manifest, parts } = await firstDevice();
    const dev = (await readDevice(a.db))!;
    const all = new MergeState();
    for await (const slice of new StateStore(a.db).slices()) for (const [id, r] of slice.records) all.records.set(id, r);
    const seq = dev.applied[dev.deviceId].seq;
    const body = {
      device: dev.deviceId, seq,
      covers: Object.fromEntries(Object.entries(dev.applied).map(([d, x]) => [d, x.seq])),
      heads: Object.fromEntries(Object.entries(dev.applied).map(([d, x]) => [d, x.hash])),
      state: stateToJson(all),
    };
    for (const p of [manifest, ...parts]) folder.files.delete(p);
    folder.files.set(snapshotPath(dev.vaultId, dev.deviceId, seq), await seal({ key: dev.vaultKey, digest: dev.digest }, 'snapshot', body));
    const { b, got } = await secondDevice(folder);
    expect(got.problems).toEqual([]);
    expect(got.written).toBe(ITEMS);
    expect(await b.texts()).toEqual(await a.texts());
    expect(await b.hash()).toBe(await a.hash());
  });
});

describe('choosing a snapshot in parts', () => {
  let vault: Vault;
  beforeAll(async () => {
    vault = (await createVault('passphrase one', FAST_KDF)).vault;
  });
  const A = 'aaaaaaaaaaaaaaaaaaaaaaaaaa';
  const records = (n: number, tag: string) => [Array.from({ length: n }, (_, i) => ({ id: `r${String(i).padStart(3, '0')}`, tag }))];

  async function twoSnapshots() {
    const place = new MemoryStorage();
    const w = new LogWriter(place, vault, A);
    const one = await w.prepare(undefined, {}, []);
    await w.write(one);
    await w.snapshot(1, { [A]: { seq: 1, hash: one.hash } }, records(30, 'old'), { partBytes: 100 });
    const two = await w.prepare({ seq: 1, hash: one.hash }, {}, []);
    await w.write(two);
    await w.snapshot(2, { [A]: { seq: 2, hash: two.hash } }, records(30, 'new'), { partBytes: 100 });
    return place;
  }
  const part = (seq: number, k: number) => snapshotPartPath(vault.vaultId, A, seq, k);

  it('falls back to an older whole snapshot while the newest waits for a part, and says so once', async () => {
    const place = await twoSnapshots();
    place.files.delete(part(2, 1));
    const reader = new FolderReader(place, vault);
    const first = await reader.plan({});
    expect(first.snapshot?.body.seq).toBe(1);
    expect(first.problems).toEqual([expect.objectContaining({ kind: 'gap', path: snapshotPath(vault.vaultId, A, 2) })]);
    expect(first.problems[0].words).toMatch(/snapshot 2 is not all in the folder yet/);
    expect((await reader.plan({})).problems).toEqual([]);
    const parts = await Promise.all(first.snapshot!.parts.map((_, k) => reader.part(first.snapshot!, k)));
    expect(parts.flat()).toEqual(records(30, 'old')[0]);
  });

  it('refuses a part of an older snapshot put under the newest one’s name, and uses the older one', async () => {
    const place = await twoSnapshots();
    place.files.set(part(2, 0), place.files.get(part(1, 0))!);
    const reader = new FolderReader(place, vault);
    const read = await reader.plan({});
    expect(read.snapshot?.body.seq).toBe(2);
    const refused = await reader.part(read.snapshot!, 0).catch((e: SnapshotPartError) => e);
    expect(refused).toMatchObject({ refused: true, path: part(2, 0) });
    const again = await reader.plan({}, { refused: [`${read.snapshot!.path} ${read.snapshot!.hash}`] });
    expect(again.snapshot?.body.seq).toBe(1);
    const parts = await Promise.all(again.snapshot!.parts.map((_, k) => reader.part(again.snapshot!, k)));
    expect(parts.flat()).toEqual(records(30, 'old')[0]);
  });

  it('writing a snapshot again after a stop replaces the parts it left, and pruning removes a manifest with its parts', async () => {
    const place = await twoSnapshots();
    const w = new LogWriter(place, vault, A);
    // A write of snapshot 3 stopped after its first part: no manifest names it.
    place.files.set(part(3, 0), place.files.get(part(2, 0))!);
    const three = await w.prepare({ seq: 2, hash: 'f'.repeat(64) }, {}, []);
    await w.snapshot(3, { [A]: { seq: 3, hash: three.hash } }, records(5, 'third'), { partBytes: 100 });
    const read = await new FolderReader(place, vault).plan({});
    expect(read.snapshot?.body.seq).toBe(3);
    expect(read.problems).toEqual([]);
    await w.prune({ segmentsUpTo: 0 });
    const left = [...place.files.keys()].filter((p) => p.includes('/snap/')).sort();
    expect(left.every((p) => /\/00000003(p\d{5})?\.bin$/.test(p))).toBe(true);
    expect(left).toContain(snapshotPath(vault.vaultId, A, 3));
  });
});

describe('segments read one at a time', () => {
  it('a device far behind keeps at most about 2 MB of new segments from planning; the rest are read again when applied', async () => {
    const vault = (await createVault('passphrase one', FAST_KDF)).vault;
    const A = 'aaaaaaaaaaaaaaaaaaaaaaaaaa';
    const place = new MemoryStorage();
    const w = new LogWriter(place, vault, A);
    // Six segments of about 1 MB sealed each (random text does not deflate much).
    let head: { seq: number; hash: string } | undefined;
    const noise = () => Array.from({ length: 25 }, () => Array.from(crypto.getRandomValues(new Uint8Array(60_000)), (b) => (b % 36).toString(36)).join('')).join('');
    for (let i = 1; i <= 6; i++) {
      const pending = await w.prepare(head, {}, [{ id: `n${i}`, field: 'text', value: noise(), stamp: `s${i}`, base: [] }]);
      await w.write(pending);
      head = { seq: pending.seq, hash: pending.hash };
    }
    const reads = new Map<string, number>();
    const counting = { ...place, list: () => place.list(), read: async (p: string) => (reads.set(p, (reads.get(p) ?? 0) + 1), place.read(p)), create: place.create.bind(place), remove: place.remove.bind(place) };
    const reader = new FolderReader(counting, vault);
    const plan = await reader.plan({});
    expect(plan.segments.map((s) => s.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    const ids: string[] = [];
    for (const ref of plan.segments) ids.push(...(await reader.body(ref))!.ops.map((o) => o.id));
    expect(ids).toEqual(['n1', 'n2', 'n3', 'n4', 'n5', 'n6']);
    const twice = [...reads].filter(([, n]) => n === 2).length;
    expect([...reads].filter(([, n]) => n === 1).length).toBeGreaterThanOrEqual(2);
    expect(twice).toBeGreaterThanOrEqual(3);
    // Nothing is opened again on the next read once applied.
    reads.clear();
    expect((await reader.plan(Object.fromEntries([[A, head!]]))).segments).toEqual([]);
    expect([...reads.keys()].filter((p) => p.includes('/log/'))).toEqual([]);
  });
});

describe('many segments in one pass', () => {
  it('a device applying segments of more records than it writes at once still ends with every item and the same state', async () => {
    const folder = new MemoryStorage();
    const a = new Profile(folder);
    const b = new Profile(folder);
    await a.connect('A');
    await a.pass();
    await b.connect('B');
    await b.pass();
    await a.pass(); // A applies B's first segment: B is active, so A keeps the segments B has not read
    const many = Array.from({ length: 5_600 }, (_, i) => ({ id: `m-${String(i).padStart(5, '0')}`, text: `Memo ${i} about the ${i % 7 ? 'garden' : 'roof'}.` }));
    await a.store.add(many, { from: 'user' });
    await a.pass();
    const aId = (await readDevice(a.db))!.deviceId;
    expect([...folder.files.keys()].filter((p) => p.includes(`/log/${aId}/`)).length).toBeGreaterThan(4);
    const got = await b.pass();
    expect(got.written).toBe(many.length);
    expect(await b.texts()).toEqual(await a.texts());
    expect(await b.hash()).toBe(await a.hash());
    expect((await b.pass()).written).toBe(0);
  });
});
