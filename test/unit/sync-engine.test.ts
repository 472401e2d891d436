import { cpSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { MemoryInput } from '../../lib/memory/types';
import { readDevice, readOutbox, writeDevice } from '../../lib/sync/device';
import type { SyncDeps } from '../../lib/sync/engine';
import type { SyncedSettings } from '../../lib/sync/settings-replica';
import { StateStore } from '../../lib/sync/state-store';
import { dismissRevisions, revisionsOf } from '../../lib/sync/revisions';
import { mergedRecord } from '../../lib/sync/merge';
import { MemoryStorage, SyncedFolders } from '../../lib/sync/storage-memory';
import { SyncPlaceError, type SyncStorage } from '../../lib/sync/types';
import { parseListing, segmentPath } from '../../lib/sync/folder-layout';
import { mendHeader } from '../../lib/sync/folder-headers';
import { SyncProfile } from './sync-fixtures';
import { WebDavStorage } from '../../lib/sync/storage-webdav';
import { startWebdav, type WebdavServer } from '../webdav-server';

/** A real WebDAV server (rclone serve webdav), started for the first test that asks for a folder on it. */
let server: WebdavServer | undefined;
afterAll(() => server?.stop());
async function webdavFolder(name: string, through?: typeof fetch): Promise<WebDavStorage> {
  server ??= await startWebdav('u', 'app-password');
  mkdirSync(join(server.dir, name), { recursive: true });
  return new WebDavStorage({ url: `${server.base}/${name}`, user: 'u', password: 'app-password', fetch: through });
}

/**
 * A connection whose next upload to a path that `what` matches is cut off halfway while `cut` is set: the request
 * sends the first half of the bytes and then fails, as when the network drops, the worker is stopped, or the stall
 * watchdog gives up.
 */
function cuttingUploads(what: RegExp): { fetch: typeof fetch; cut: boolean } {
  const control = {
    cut: false,
    fetch: (async (input, init) => {
      const bytes = init?.body;
      if (!control.cut || init?.method !== 'PUT' || !what.test(String(input)) || !(bytes instanceof Uint8Array)) return fetch(input, init);
      control.cut = false;
      const whole = bytes as Uint8Array;
      const half = whole.slice(0, whole.length >> 1);
      const body = new ReadableStream<Uint8Array>({
        start(c) {
          c.enqueue(half);
          setTimeout(() => c.error(new Error('the connection dropped')), 300);
        },
      });
      const headers = { ...(init.headers as Record<string, string>), 'Content-Length': String(whole.length) };
      return fetch(input, { ...init, headers, body, duplex: 'half' } as RequestInit);
    }) as typeof fetch,
  };
  return control;
}

/** A browser profile: its memory, its settings, and the folder as its sync client shows it. */
class Profile extends SyncProfile {
  settings: SyncedSettings = { rank: { weights: { semantic: 1 } }, capture: { sent: false } };
  /** This profile's clock when set (a pass's every time: stamps, who is active, when it last wrote). */
  clock?: number;
  /** The most JSON a part of this profile's snapshots holds (the product's when unset). */
  partBytes?: number;
  /**
   * Whether a WebDAV server's clock moves with this profile's (time passing for everyone: "three months on") rather
   * than staying right while this device's is set wrong.
   */
  worldTime = false;
  protected override moreDeps(): Partial<SyncDeps> {
    const now = this.clock === undefined ? undefined : () => this.clock!;
    const open = async () => {
      const place = this.storage;
      if (!this.worldTime || !place.placeTime || this.clock === undefined) return place;
      const shift = this.clock - Date.now();
      return {
        list: () => place.list(), read: (path) => place.read(path), create: (path, bytes) => place.create(path, bytes), remove: (path) => place.remove(path),
        placeTime: () => {
          const t = place.placeTime!();
          return t && { ...t, place: t.place + shift };
        },
      } satisfies SyncStorage;
    };
    return { now, open, snapshotPartBytes: this.partBytes, settings: { read: async () => this.settings, write: async (v) => void (this.settings = { ...this.settings, ...v }) } };
  }
  add(items: MemoryInput[]) {
    return this.store.add(items, { from: 'user' });
  }
}

/** Text that does not compress (a seeded generator), `n` characters. */
function noise(seed: number): (n: number) => string {
  return (n) => Array.from({ length: n }, () => ((seed = (seed * 48271) % 2147483647) % 36).toString(36)).join('');
}

/** Enough written by `p` for a snapshot: a large setting that does not compress (within what syncs), changed `passes` times. */
async function writeEnoughForSnapshot(p: Profile, seed: number, passes = 10): Promise<void> {
  const text = noise(seed);
  for (let k = 0; k < passes; k++) {
    p.settings = { ...p.settings, rank: { weights: { semantic: 1 }, note: text(190_000) } };
    await p.pass();
  }
}

/** The path and bytes of the newest segment `p` wrote to the folder. */
async function newestSegment(folder: SyncStorage, p: Profile): Promise<[string, Uint8Array]> {
  const id = (await readDevice(p.db))!.deviceId;
  const path = (await folder.list()).map((f) => f.path).filter((path) => path.includes(`/log/${id}/`)).sort().at(-1)!;
  return [path, await folder.read(path)];
}

/** `folder` as a profile reaches it while its connection drops on every write of a log segment (other files land). */
function droppingLogWrites(folder: SyncStorage): SyncStorage {
  return { list: () => folder.list(), read: (p) => folder.read(p), remove: (p) => folder.remove(p),
    create: async (p, bytes) => {
      if (p.includes('/log/')) throw new SyncPlaceError('offline', 'The connection dropped.');
      return folder.create(p, bytes);
    } };
}

/** Puts other bytes at `path` in any folder (as an engine or a hand would). */
async function replace(folder: SyncStorage, path: string, bytes: Uint8Array): Promise<void> {
  await folder.remove(path);
  await folder.create(path, bytes);
}

/** The path of the folder's (only) header file. */
async function headerFile(folder: SyncStorage): Promise<string> {
  return (await folder.list()).map((f) => f.path).find((p) => p.startsWith('backstory-vault-'))!;
}

/** Whether a folder path is a snapshot's part. */
const isPart = (p: string) => /p\d{5}\.bin$/.test(p);

/**
 * A device alone in the folder that wrote enough for a snapshot (a large setting another device can read, changed until
 * a manifest is there): its snapshot covers every segment, so its pruning left none.
 */
async function loneDeviceWithSnapshot(folder: SyncStorage, seed: number): Promise<{ a: Profile; paths: () => Promise<string[]>; manifests: () => Promise<string[]> }> {
  const a = new Profile('A', folder);
  await a.add([{ id: 'x', text: 'The lease renews in March.' }]);
  await a.connect();
  await a.pass();
  const text = noise(seed);
  const paths = async () => (await folder.list()).map((f) => f.path);
  const manifests = async () => (await paths()).filter((p) => p.includes('/snap/') && !isPart(p));
  for (let k = 0; k < 30 && !(await manifests()).length; k++) {
    a.settings = { ...a.settings, rank: { weights: { semantic: 1 }, note: text(150_000) } };
    await a.pass();
  }
  expect((await paths()).filter((p) => p.includes('/log/'))).toEqual([]);
  return { a, paths, manifests };
}

/** What a new device holds once it has joined with the passphrase and synced. */
async function newDeviceHolds(folder: SyncStorage): Promise<Record<string, string>> {
  const c = new Profile('C', folder);
  await c.connect();
  await c.pass();
  return c.texts();
}

/** Two profiles joined through one folder, A's first memories (if any) already with B. */
async function pair(items?: MemoryInput[]): Promise<{ folder: MemoryStorage; a: Profile; b: Profile }>;
async function pair<F extends SyncStorage>(items: MemoryInput[], folder: F): Promise<{ folder: F; a: Profile; b: Profile }>;
async function pair(items: MemoryInput[] = [], folder: SyncStorage = new MemoryStorage()): Promise<{ folder: SyncStorage; a: Profile; b: Profile }> {
  const a = new Profile('A', folder);
  const b = new Profile('B', folder);
  if (items.length) await a.add(items);
  await a.connect();
  await a.pass();
  await b.connect();
  await b.pass();
  return { folder, a, b };
}

/** Another browser profile holding a copy of every table of `from`'s database (a profile copied to another computer). */
async function copyProfile(from: Profile, name: string): Promise<Profile> {
  const to = new Profile(name, from.storage);
  for (const table of from.db.tables) {
    const keys = await table.toCollection().primaryKeys();
    const rows = await table.bulkGet(keys);
    await to.db.table(table.name).bulkPut(rows, table.schema.primKey.keyPath ? undefined : keys);
  }
  to.settings = structuredClone(from.settings);
  return to;
}

/**
 * A folder that can be put back to an earlier copy: in memory, or a folder on a real WebDAV server (rclone serve
 * webdav), copied and restored on the server's disk as a host's "restore" would.
 */
async function restorableFolder(where: 'memory' | 'webdav', name: string): Promise<{ folder: SyncStorage; keep: () => () => void }> {
  if (where === 'memory') {
    const folder = new MemoryStorage();
    return {
      folder,
      keep: () => {
        const copy = new Map([...folder.files].map(([path, bytes]) => [path, bytes.slice()]));
        return () => {
          folder.files.clear();
          for (const [path, bytes] of copy) folder.files.set(path, bytes);
        };
      },
    };
  }
  const folder = await webdavFolder(name);
  const dir = join(server!.dir, name);
  return {
    folder,
    keep: () => {
      const copy = `${dir}.copy`;
      cpSync(dir, copy, { recursive: true });
      return () => {
        rmSync(dir, { recursive: true, force: true });
        cpSync(copy, dir, { recursive: true });
      };
    },
  };
}

/**
 * Three profiles joined through one folder; then last week's copy of the folder is kept, the first makes two changes
 * (a memory added, then edited) that the second takes in while the third is away, and the folder is put back to that
 * copy (a host's "restore", a backup copied over it): the first's two segments are gone.
 */
async function restoredAfterTwoChanges(folder: SyncStorage, keep: () => () => void, names: string[], clock?: number): Promise<{ a: Profile; b: Profile; c: Profile }> {
  const [a, b, c] = names.map((n) => Object.assign(new Profile(n, folder), { worldTime: true }));
  if (clock !== undefined) a.clock = b.clock = c.clock = clock;
  await a.add([{ id: 'x', text: 'The lease renews in March.' }]);
  for (const p of [a, b, c]) {
    await p.connect();
    await p.pass();
  }
  const restore = keep();
  await a.add([{ id: 'y', text: 'Dana wants the report by Friday.' }]);
  await a.pass();
  await a.store.update('x', { text: 'The lease renews in April.' });
  await a.pass();
  await b.pass();
  restore();
  return { a, b, c };
}

describe('sync between two profiles through one folder', () => {
  it('joins with the passphrase, and each sees the other’s memories (a union: nothing deleted)', async () => {
    const folder = new MemoryStorage();
    const laptop = new Profile('Laptop', folder);
    const desktop = new Profile('Desktop', folder);
    await laptop.add([{ id: 'a', text: 'Dana prefers short status updates on Fridays.' }]);
    await desktop.add([{ id: 'b', text: 'The vendor contract renews in March.' }]);
    const made = await laptop.connect();
    expect(made.recoveryKey).toMatch(/^[A-Z2-7]{4}(-[A-Z2-7]{4}){7}$/);
    await laptop.pass();
    expect((await desktop.connect()).recoveryKey).toBeUndefined();
    await desktop.pass();
    await laptop.pass();
    const want = { a: 'Dana prefers short status updates on Fridays.', b: 'The vendor contract renews in March.' };
    expect(await laptop.texts()).toEqual(want);
    expect(await desktop.texts()).toEqual(want);
    // What arrived is found by its words before any vector is made for it.
    expect(laptop.store.view.lexicalIndex.search(new Map([['vendor', 1], ['contract', 1]]), 5).map((h) => h.id)).toEqual(['b']);
  });

  it('carries an edit, a delete, and the settings; a second pass with nothing new writes nothing', async () => {
    const { folder, a, b } = await pair([{ id: 'x', text: 'first text' }, { id: 'y', text: 'to be deleted' }]);
    await a.store.update('x', { text: 'second text' });
    await a.store.remove(['y']);
    a.settings = { ...a.settings, capture: { sent: true } };
    await a.pass();
    await b.pass();
    expect(await b.texts()).toEqual({ x: 'second text' });
    expect(b.settings.capture).toEqual({ sent: true });
    const files = folder.files.size;
    const bytes = [...folder.files.values()].reduce((n, f) => n + f.length, 0);
    // Each request is a round trip to a WebDAV host, on every pass of every device: a quiet pass lists the folder
    // once and reads nothing it has read.
    const asked: string[] = [];
    const plain = b.storage;
    b.storage = {
      list: () => (asked.push('list'), plain.list()),
      read: (path) => (asked.push(`read ${path}`), plain.read(path)),
      create: (path, bytes) => (asked.push(`create ${path}`), plain.create(path, bytes)),
      remove: (path) => (asked.push(`remove ${path}`), plain.remove(path)),
    };
    const quiet = await b.pass();
    expect(quiet?.sent).toBe(0);
    expect(asked).toEqual(['list']);
    expect(folder.files.size).toBe(files);
    expect([...folder.files.values()].reduce((n, f) => n + f.length, 0)).toBe(bytes);
  });

  it('keeps both texts of a concurrent edit: the later one shows, the other is a revision', async () => {
    const { a, b } = await pair([{ id: 'n', text: 'Budget is 10k.' }]);
    await a.store.update('n', { text: 'Budget is 12k (agreed with Dana).' });
    await b.store.update('n', { text: 'Budget is 15k (agreed with Priya).' });
    await a.pass();
    await b.pass();
    await a.pass();
    const ta = (await a.texts()).n;
    expect((await b.texts()).n).toBe(ta);
    for (const p of [a, b]) {
      const state = new (await import('../../lib/sync/merge')).MergeState();
      await new StateStore(p.db).load(state, ['n']);
      const merged = mergedRecord(state, 'n')!;
      const all = [merged.values.text, ...merged.revisions.map((r) => r.text)].sort();
      expect(all).toEqual(['Budget is 12k (agreed with Dana).', 'Budget is 15k (agreed with Priya).']);
    }
  });

  it('a revision can be dismissed on one device, and it goes on both; choosing it is an ordinary edit', async () => {
    const { a, b } = await pair([{ id: 'n', text: 'v1' }, { id: 'm', text: 'w1' }]);
    await a.store.update('n', { text: 'v2 from A' });
    await b.store.update('n', { text: 'v2 from B' });
    await a.store.update('m', { text: 'w2 from A' });
    await b.store.update('m', { text: 'w2 from B' });
    for (const p of [a, b, a]) await p.pass();
    const shown = (await a.texts()).n;
    const other = shown === 'v2 from A' ? 'v2 from B' : 'v2 from A';
    expect(await revisionsOf(a.db, 'n')).toEqual([other]);
    expect((await readDevice(b.db))?.revisions?.sort()).toEqual(['m', 'n']);

    await dismissRevisions(b.db, 'n');
    // Choosing the other version of m is an edit of its text.
    const otherM = (await b.texts()).m === 'w2 from A' ? 'w2 from B' : 'w2 from A';
    await b.store.update('m', { text: otherM });
    for (const p of [b, a]) await p.pass();
    for (const p of [a, b]) {
      expect(await revisionsOf(p.db, 'n')).toEqual([]);
      expect(await revisionsOf(p.db, 'm')).toEqual([]);
      expect(await p.texts()).toEqual({ n: shown, m: otherM });
      expect((await readDevice(p.db))?.revisions ?? []).toEqual([]);
    }
  });

  it('refuses a wrong passphrase in words and leaves no trace, and joins with the recovery key', async () => {
    const folder = new MemoryStorage();
    const a = new Profile('A', folder);
    await a.add([{ id: 'k', text: 'kept' }]);
    const { recoveryKey } = await a.connect();
    await a.pass();
    const before = [...folder.files.keys()].sort();
    const b = new Profile('B', folder);
    await expect(b.connect('not the passphrase at all')).rejects.toThrow('That passphrase does not open the synced memory in this folder.');
    expect([...folder.files.keys()].sort()).toEqual(before);
    expect(await readDevice(b.db)).toBeUndefined();
    await b.connect(recoveryKey!.toLowerCase().replaceAll('-', ' '));
    await b.pass();
    expect(await b.texts()).toEqual({ k: 'kept' });
  });

  it('refuses a tampered segment once, in words, and applies nothing of it', async () => {
    const { folder, a, b } = await pair();
    await a.add([{ id: 't', text: 'a secret plan' }]);
    await a.pass();
    const [path, bytes] = await newestSegment(folder, a);
    const bad = bytes.slice();
    bad[bad.length - 5] ^= 1;
    folder.files.set(path, bad);
    const first = await b.pass();
    expect(first?.problems.join(' ')).toContain(path);
    expect(await b.texts()).toEqual({});
    const again = await b.pass();
    expect(again?.problems).toEqual([]);
    expect(await b.texts()).toEqual({});
  });

  it.each(['memory', 'webdav'] as const)('a segment read while its bytes were still arriving (its size already final) is read again on the next pass, and said once (%s)', async (where) => {
    const { folder, a, b } = await pair([], (await restorableFolder(where, 'still arriving')).folder);
    await a.add([{ id: 't', text: 'arrives in two steps' }]);
    await a.pass();
    const [path, bytes] = await newestSegment(folder, a);
    // A file-sync client that sets a file's length first and fills it after (a placeholder, a preallocated download).
    await replace(folder, path, new Uint8Array(bytes.length));
    const first = await b.pass();
    expect(first?.problems.join(' ')).toContain(path);
    expect(await b.texts()).toEqual({});
    await replace(folder, path, bytes);
    const second = await b.pass();
    expect(second?.problems).toEqual([]);
    expect(await b.texts()).toEqual({ t: 'arrives in two steps' });
  });

  it('a connect stopped after its device file went into the folder is not counted as a device', async () => {
    const { folder, a, b } = await pair([{ id: 'x', text: 'shared' }]);
    const c = new Profile('C', folder);
    // The device file lands, and the answer is lost (or the worker stops) before this profile keeps its part.
    c.storage = { ...folder, list: () => folder.list(), read: (p) => folder.read(p), remove: (p) => folder.remove(p),
      create: async (p, bytes) => {
        await folder.create(p, bytes);
        if (p.includes('/devices/')) throw new SyncPlaceError('offline', 'The connection dropped.');
      } };
    await expect(c.connect()).rejects.toThrow(/connection dropped/);
    c.storage = folder;
    await c.connect();
    await c.pass();
    expect((await folder.list()).filter((f) => f.path.includes('/devices/'))).toHaveLength(4);
    expect((await a.pass())?.devices).toBe(3);
    expect((await b.pass())?.devices).toBe(3);
    expect((await c.pass())?.devices).toBe(3);
  });

  it('a setting larger than other devices accept stays here, said once; the memory written beside it still syncs', async () => {
    const { a, b } = await pair();
    // Every device refuses a segment with a change past the synced limits, and everything its writer sends after it.
    a.settings = { ...a.settings, rank: { weights: { semantic: 0.5 }, note: noise(3)(250_000) } };
    await a.add([{ id: 'm', text: 'The venue holds 120 people.' }]);
    const first = await a.pass();
    expect(first?.problems.join(' ')).toMatch(/ranking settings are too large to sync .*stays on this device/);
    expect((await a.pass())?.problems).toEqual([]);
    const got = await b.pass();
    expect(got?.problems).toEqual([]);
    expect(await b.texts()).toEqual({ m: 'The venue holds 120 people.' });
    expect(b.settings.rank).toEqual({ weights: { semantic: 1 } });
    // Once it is within the limits it goes, and the device's later changes still arrive.
    a.settings = { ...a.settings, rank: { weights: { semantic: 0.5 } } };
    await a.store.update('m', { text: 'The venue holds 140 people.' });
    await a.pass();
    expect((await b.pass())?.problems).toEqual([]);
    expect(b.settings.rank).toEqual({ weights: { semantic: 0.5 } });
    expect(await b.texts()).toEqual({ m: 'The venue holds 140 people.' });
  });

  it('settings changed twice while another device’s clock runs a few minutes ahead: the second change reaches it too', async () => {
    const { a, b } = await pair();
    const t = Date.now();
    b.clock = t + 3 * 60_000;
    await b.add([{ id: 'b1', text: 'written where the clock is fast' }]);
    await b.pass();
    // A takes B's stamps in the pass that sends its first change: its clock runs at B's time until its own catches up.
    for (const [k, semantic] of [0.4, 0.6].entries()) {
      a.clock = t + k * 30_000;
      a.settings = { ...a.settings, rank: { weights: { semantic } } };
      await a.pass();
    }
    const got = await b.pass();
    expect(got?.problems).toEqual([]);
    expect(b.settings.rank).toEqual({ weights: { semantic: 0.6 } });
  });

  it.each(['memory', 'webdav'] as const)('a profile copied to another computer syncs on there as a device of its own, said once; nothing written on either is lost (%s)', async (where) => {
    const { folder, a, b } = await pair([{ id: 'x', text: 'shared before the copy' }], (await restorableFolder(where, 'copied profile')).folder);
    await a.store.update('x', { text: 'shared before the copy, edited' });
    await a.pass();
    // The copy holds A's device id, chain head and clock. It seals its change, but the connection drops before it
    // lands; meanwhile the original writes its own next segment under the same name.
    const copy = await copyProfile(a, 'A');
    await copy.add([{ id: 'fromCopy', text: 'written on the copy' }]);
    copy.storage = droppingLogWrites(folder);
    await expect(copy.pass()).rejects.toThrow('The connection dropped.');
    await a.add([{ id: 'fromA', text: 'written on the original after the copy' }]);
    await a.pass();
    copy.storage = folder;
    // What the copy's device row says of its progress under the old id (a snapshot half applied) is not the new device's.
    const mid = { path: 'backstory/v/snap/d/00000009.bin', next: 3, done: 4000 };
    await writeDevice(copy.db, { ...(await readDevice(copy.db))!, snapshotProgress: mid, snapshotParts: 7 });
    const forked = await copy.pass();
    expect(forked?.problems.join(' ')).toMatch(/copied profile.*device of its own/);
    const joined = (await readDevice(copy.db))!;
    expect([joined.snapshotProgress, joined.snapshotParts]).toEqual([undefined, undefined]);
    expect((await readDevice(copy.db))!.deviceId).not.toBe((await readDevice(a.db))!.deviceId);
    for (const p of [a, b, copy, a, b]) expect((await p.pass())?.problems).toEqual([]);
    const all = { x: 'shared before the copy, edited', fromA: 'written on the original after the copy', fromCopy: 'written on the copy' };
    for (const p of [a, b, copy]) {
      expect(await p.texts()).toEqual(all);
      expect((await readDevice(p.db))!.revisions ?? []).toEqual([]);
    }
  });

  it.each(['junk', 'an old segment of the device copied there'] as const)('a file planted where a device writes next (%s) is written over; the device stays who it is', async (what) => {
    const { folder, a, b } = await pair([{ id: 'x', text: 'before the planted file' }]);
    const { deviceId, vaultId, applied } = (await readDevice(a.db))!;
    const next = segmentPath(vaultId, deviceId, applied[deviceId].seq + 1);
    // Anyone who can write to the folder, without the key: it must neither stop the device's sync nor make it start over
    // as another device.
    const planted = what === 'junk' ? new TextEncoder().encode('not a segment') : await folder.read(segmentPath(vaultId, deviceId, 1));
    await folder.create(next, planted);
    await a.add([{ id: 'y', text: 'after the planted file' }]);
    const problems = (await a.pass())?.problems ?? [];
    expect(problems.join(' ')).not.toMatch(/copied profile/);
    expect((await readDevice(a.db))!.deviceId).toBe(deviceId);
    expect(await folder.read(next)).not.toEqual(planted);
    await b.pass();
    expect(await b.texts()).toEqual({ x: 'before the planted file', y: 'after the planted file' });
  });

  it('a segment whose upload was cut off halfway (the WebDAV server keeps what arrived) is written again over it, and sync goes on', async () => {
    const link = cuttingUploads(/\/log\//);
    const { folder, a, b } = await pair([{ id: 'x', text: 'before the cut' }], await webdavFolder('cut upload', link.fetch));
    const { deviceId, vaultId, applied } = (await readDevice(a.db))!;
    const next = segmentPath(vaultId, deviceId, applied[deviceId].seq + 1);
    await a.add([{ id: 'y', text: 'sent when the connection dropped' }]);
    link.cut = true;
    await expect(a.pass()).rejects.toThrow(/cannot be reached/);
    // rclone kept the half that arrived under the segment's name.
    const left = await folder.read(next);
    expect(left.length).toBeGreaterThan(0);
    expect(left.length).toBe((await readOutbox(a.db))[0].pending.bytes.length >> 1);
    // B, meanwhile, finds half a segment: it says so and waits.
    expect((await b.pass())?.problems.join(' ')).toMatch(/was not read/);
    // The next pass writes the whole segment there; B reads it.
    expect((await a.pass())?.problems).toEqual([]);
    await b.pass();
    expect(await b.texts()).toEqual({ x: 'before the cut', y: 'sent when the connection dropped' });
    expect((await readDevice(a.db))!.deviceId).toBe(deviceId);
  });

  it('a snapshot whose manifest upload was cut off halfway is written again over it, and a new device starts from it', async () => {
    const manifest = /\/snap\/[a-z0-9]+\/\d+\.bin$/;
    const link = cuttingUploads(manifest);
    const { folder, a } = await pair([{ id: 'x', text: 'kept in the snapshot' }], await webdavFolder('cut manifest', link.fetch));
    link.cut = true;
    await expect(writeEnoughForSnapshot(a, 11)).rejects.toThrow(/cannot be reached/);
    const [half] = (await folder.list()).filter((f) => manifest.test(f.path));
    expect(half.size).toBeGreaterThan(0);
    expect((await a.pass())?.problems).toEqual([]);
    expect((await folder.read(half.path)).length).toBeGreaterThan(half.size);
    const c = new Profile('C', folder);
    await c.connect();
    expect((await c.pass())?.problems).toEqual([]);
    expect(await c.texts()).toEqual({ x: 'kept in the snapshot' });
  });

  it('a copied profile that finds its own device id writing in the folder joins again before it writes under it', async () => {
    const { a, b } = await pair([{ id: 'x', text: 'shared before the copy' }]);
    const copy = await copyProfile(a, 'A');
    // The original writes first; the copy reads that segment in what it takes for its own log.
    await a.add([{ id: 'fromA', text: 'written on the original after the copy' }]);
    await a.pass();
    await copy.store.update('x', { text: 'edited on the copy' });
    const { deviceId } = (await readDevice(a.db))!;
    const before = new Set((await a.storage.list()).map((f) => f.path));
    const found = await copy.pass();
    expect(found?.problems.join(' ')).toMatch(/copied profile.*device of its own/);
    const wrote = (await a.storage.list()).map((f) => f.path).filter((path) => !before.has(path));
    expect(wrote.length).toBeGreaterThan(0);
    expect(wrote.filter((path) => path.includes(deviceId))).toEqual([]);
    for (const p of [a, b, copy, a]) expect((await p.pass())?.problems).toEqual([]);
    for (const p of [a, b, copy]) expect(await p.texts()).toEqual({ x: 'edited on the copy', fromA: 'written on the original after the copy' });
  });

  it('a memory deleted on a copied profile stays deleted when the pass that joins again stops before it ends', async () => {
    const { folder, a, b } = await pair([{ id: 'x', text: 'kept everywhere' }, { id: 'y', text: 'deleted on the copy' }]);
    const copy = await copyProfile(a, 'A');
    await copy.store.remove(['y']);
    await a.add([{ id: 'fromA', text: 'written on the original' }]);
    await a.pass();
    // The copy joins again, takes the union in, and the connection drops as it writes (a stopped worker alike).
    copy.storage = droppingLogWrites(folder);
    await expect(copy.pass()).rejects.toThrow('The connection dropped.');
    copy.storage = folder;
    for (const p of [copy, a, b, copy]) await p.pass();
    const want = { x: 'kept everywhere', fromA: 'written on the original' };
    for (const p of [a, b, copy]) expect(await p.texts()).toEqual(want);
  });

  it.each(['since its last pass', 'sealed but not written'] as const)('a memory deleted on a copied profile (%s) stays deleted when it joins again, on every device', async (when) => {
    const { folder, a, b } = await pair([{ id: 'x', text: 'kept everywhere' }, { id: 'y', text: 'deleted on the copy' }]);
    const copy = await copyProfile(a, 'A');
    await copy.store.remove(['y']);
    if (when === 'sealed but not written') {
      copy.storage = droppingLogWrites(folder);
      await expect(copy.pass()).rejects.toThrow('The connection dropped.');
      copy.storage = folder;
    }
    // The original writes its next segment first, under the name the copy's would take.
    await a.add([{ id: 'fromA', text: 'written on the original' }]);
    await a.pass();
    expect((await copy.pass())?.problems.join(' ')).toMatch(/copied profile.*device of its own/);
    for (const p of [copy, a, b, copy]) await p.pass();
    const want = { x: 'kept everywhere', fromA: 'written on the original' };
    for (const p of [a, b, copy]) expect(await p.texts()).toEqual(want);
  });

  it('a copy’s later segment that does not continue this device’s own log (a fork) makes it join again too', async () => {
    const { folder, a, b } = await pair([{ id: 'x', text: 'shared before the copy' }]);
    const copy = await copyProfile(a, 'A');
    // The copy's computer sees its own copy of the folder; the engine carries its files later, and not in order.
    const away = new MemoryStorage();
    for (const [path, bytes] of folder.files) away.files.set(path, bytes.slice());
    copy.storage = away;
    await a.add([{ id: 'fromA', text: 'written on the original' }]);
    await a.pass();
    for (const k of [1, 2]) {
      await copy.add([{ id: `fromCopy${k}`, text: `written on the copy, ${k}` }]);
      await copy.pass();
    }
    const { deviceId, vaultId, applied } = (await readDevice(a.db))!;
    const second = segmentPath(vaultId, deviceId, applied[deviceId].seq + 1);
    folder.files.set(second, away.files.get(second)!.slice());
    expect((await a.pass())?.problems.join(' ')).toMatch(/copied profile.*device of its own/);
    // The rest arrives, the copy's first segment as an engine's conflicted copy beside the original's.
    for (const [path, bytes] of away.files) if (!folder.files.has(path)) folder.files.set(path, bytes.slice());
    const first = segmentPath(vaultId, deviceId, applied[deviceId].seq);
    folder.files.set(first.replace('.bin', ' (conflicted copy).bin'), away.files.get(first)!.slice());
    copy.storage = folder;
    for (const p of [copy, b, a, copy, b]) await p.pass();
    const want = { x: 'shared before the copy', fromA: 'written on the original', fromCopy1: 'written on the copy, 1', fromCopy2: 'written on the copy, 2' };
    for (const p of [a, b, copy]) expect(await p.texts()).toEqual(want);
  });

  it('a pass stopped after sealing writes the same segment on the next pass, and the other device gets it once', async () => {
    const { folder, a, b } = await pair();
    await a.add([{ id: 's', text: 'written across a stop' }]);
    let fail = true;
    a.storage = { ...folder, list: () => folder.list(), read: (p) => folder.read(p), remove: (p) => folder.remove(p),
      create: async (p, bytes) => {
        if (fail && p.includes('/log/')) {
          fail = false;
          throw new SyncPlaceError('offline', 'The connection dropped.');
        }
        return folder.create(p, bytes);
      } };
    await expect(a.pass()).rejects.toThrow('The connection dropped.');
    expect((await readOutbox(a.db)).length).toBe(1);
    await a.pass();
    expect(await readOutbox(a.db)).toEqual([]);
    const got = await b.pass();
    expect(got?.received).toBeGreaterThan(0);
    expect(await b.texts()).toEqual({ s: 'written across a stop' });
    expect((await a.pass())?.sent).toBe(0);
  });

  it('a setting changed often does not fill the folder: segments past a snapshot’s size are folded into one', async () => {
    const folder = new MemoryStorage();
    const a = new Profile('A', folder);
    await a.connect();
    const text = noise(1);
    for (let i = 0; i < 24; i++) {
      a.settings = { ...a.settings, rank: { weights: { semantic: 1 }, note: text(60_000) } };
      await a.pass();
    }
    const logs = [...folder.files.keys()].filter((p) => p.includes('/log/'));
    const snaps = [...folder.files.keys()].filter((p) => p.includes('/snap/') && !/p\d{5}\.bin$/.test(p));
    expect(snaps.length).toBe(1);
    expect(logs.length).toBeLessThan(24);
    // A new device still ends with the newest value.
    const b = new Profile('B', folder);
    await b.connect();
    await b.pass();
    expect(b.settings.rank).toEqual(a.settings.rank);
  });

  it('says so in words when the synced memory was taken out of the folder', async () => {
    const folder = new MemoryStorage();
    const a = new Profile('A', folder);
    await a.connect();
    await a.pass();
    for (const p of [...folder.files.keys()]) folder.files.delete(p);
    await expect(a.pass()).rejects.toThrow(/no longer in this folder/);
  });

  it.each(['memory', 'webdav'] as const)('the header file cut short in the folder: a device that syncs writes it again from its own copy and says so once, so a new device joins with the passphrase (%s)', async (where) => {
    const { folder, a } = await pair([{ id: 'x', text: 'The lease renews in March.' }], (await restorableFolder(where, 'header cut short')).folder);
    const header = await headerFile(folder);
    const bytes = await folder.read(header);
    await replace(folder, header, bytes.slice(0, bytes.length >> 1));
    // Before it is written again, a new device cannot join: the folder's only header does not read.
    await expect(new Profile('C', folder).connect()).rejects.toThrow(/damaged sync header/);
    expect((await a.pass())?.problems).toEqual([expect.stringMatching(/header file was changed or cut short in the folder.*wrote it again/)]);
    expect((await a.pass())?.problems).toEqual([]);
    expect(await folder.read(header)).toEqual(bytes);
    expect(await newDeviceHolds(folder)).toEqual({ x: 'The lease renews in March.' });
  });

  it.each(['memory', 'webdav'] as const)('a device file cut short in the folder: its device writes it again and says so once, and the others count that device again (%s)', async (where) => {
    const { folder, a, b } = await pair([{ id: 'x', text: 'The lease renews in March.' }], (await restorableFolder(where, 'device file cut short')).folder);
    expect((await b.pass())?.devices).toBe(2);
    const id = (await readDevice(a.db))!.deviceId;
    const path = (await folder.list()).map((f) => f.path).find((p) => p.includes('/devices/') && p.includes(id))!;
    const bytes = await folder.read(path);
    await replace(folder, path, bytes.slice(0, bytes.length >> 1));
    // To a device that had not read it (a new one, or one whose worker started again), A went with it: two devices.
    const c = new Profile('C', folder);
    await c.connect();
    expect((await c.pass())?.devices).toBe(2);
    expect((await a.pass())?.problems).toEqual([expect.stringMatching(/This device's file in the folder was changed or cut short.*written again/)]);
    expect((await a.pass())?.problems).toEqual([]);
    expect((await c.pass())?.devices).toBe(3);
  });

  it('what a pass said stays in the status ten minutes, through the passes right after it, and then goes', async () => {
    const { folder, a } = await pair([{ id: 'x', text: 'The lease renews in March.' }]);
    a.clock = Date.now();
    const header = await headerFile(folder);
    await replace(folder, header, (await folder.read(header)).slice(0, 100));
    const said = (await a.pass())!.problems;
    expect(said).toHaveLength(1);
    // A change syncs a few seconds later, and says nothing new: the words stay.
    a.clock += 5_000;
    expect((await a.pass())?.problems).toEqual([]);
    expect((await readDevice(a.db))?.notice).toBe(said[0]);
    a.clock += 10 * 60_000;
    await a.pass();
    expect((await readDevice(a.db))?.notice).toBeUndefined();
  });

  it('a worker stopped while it writes the header again leaves one the next pass and a new device can use', async () => {
    const { folder, a } = await pair([{ id: 'x', text: 'The lease renews in March.' }]);
    const header = await headerFile(folder);
    const bytes = await folder.read(header);
    await replace(folder, header, bytes.slice(0, bytes.length >> 1));
    // The browser stops the worker as it writes the header under its name (after the damaged one was removed).
    a.storage = { list: () => folder.list(), read: (p) => folder.read(p), remove: (p) => folder.remove(p),
      create: async (p, b) => {
        if (p === header) throw new Error('the worker was stopped');
        await folder.create(p, b);
      } };
    await expect(a.pass()).rejects.toThrow(/stopped/);
    a.storage = folder;
    // The next pass finishes the mend, and says so (the stopped pass said nothing): the header is under its own name
    // again and the copy beside it is gone.
    expect((await a.pass())?.problems).toEqual([expect.stringMatching(/header file was changed or cut short/)]);
    expect(await folder.read(header)).toEqual(bytes);
    expect((await folder.list()).filter((f) => /vault-/.test(f.path)).map((f) => f.path)).toEqual([header]);
    expect(await newDeviceHolds(folder)).toEqual({ x: 'The lease renews in March.' });
  });

  it('a worker stopped after the header is written again, before the copy beside it is removed: the next pass removes the copy and says nothing', async () => {
    const { folder, a } = await pair([{ id: 'x', text: 'The lease renews in March.' }]);
    const header = await headerFile(folder);
    const bytes = await folder.read(header);
    await replace(folder, header, bytes.slice(0, bytes.length >> 1));
    let written = false;
    a.storage = { list: () => folder.list(), read: (p) => folder.read(p),
      create: async (p, b) => {
        await folder.create(p, b);
        written ||= p === header;
      },
      remove: async (p) => {
        if (written && /mended/.test(p)) throw new Error('the worker was stopped');
        await folder.remove(p);
      } };
    await expect(a.pass()).rejects.toThrow(/stopped/);
    a.storage = folder;
    expect((await a.pass())?.problems).toEqual([]);
    expect((await folder.list()).filter((f) => /vault-/.test(f.path)).map((f) => f.path)).toEqual([header]);
    expect(await folder.read(header)).toEqual(bytes);
  });

  it('two devices that find the header cut short at the same moment both write it again, on a place that will not write over a file', async () => {
    const { folder, a } = await pair([{ id: 'x', text: 'The lease renews in March.' }], new MemoryStorage({ createOnly: true }));
    const header = await headerFile(folder);
    const bytes = await folder.read(header);
    await replace(folder, header, bytes.slice(0, 100));
    // Both list the folder before either writes: each removes and writes, one after the other's remove or write.
    const { vaultId, header: own } = (await readDevice(a.db))!;
    const listing = parseListing(await folder.list(), vaultId);
    expect(await Promise.all([mendHeader(folder, listing, vaultId, own), mendHeader(folder, listing, vaultId, own)])).toEqual([true, true]);
    expect(await folder.read(header)).toEqual(bytes);
  });

  it('a header file of the same memory written otherwise (another layout, as another version may write it) is left as it is', async () => {
    const { folder, a } = await pair([{ id: 'x', text: 'The lease renews in March.' }]);
    const header = await headerFile(folder);
    const spaced = new TextEncoder().encode(JSON.stringify(JSON.parse(new TextDecoder().decode(await folder.read(header))), null, 2));
    await replace(folder, header, spaced);
    expect((await a.pass())?.problems).toEqual([]);
    expect(await folder.read(header)).toEqual(spaced);
    expect(await newDeviceHolds(folder)).toEqual({ x: 'The lease renews in March.' });
  });

  it.each(['memory', 'webdav'] as const)('a folder put back to an older copy: the device whose segments went writes what they held again, and says so once (%s)', async (where) => {
    const { folder, keep } = await restorableFolder(where, 'restored');
    const { a, b, c } = await restoredAfterTwoChanges(folder, keep, ['A', 'B', 'C']);
    const noticed = await a.pass();
    expect(noticed?.problems).toEqual([expect.stringMatching(/no longer in the folder .* written again/)]);
    expect((await a.pass())?.problems).toEqual([]);
    await a.add([{ id: 'z', text: 'Parking is on level 2.' }]);
    for (const p of [a, b, c, a, b, c]) await p.pass();
    const want = { x: 'The lease renews in April.', y: 'Dana wants the report by Friday.', z: 'Parking is on level 2.' };
    expect(await c.texts()).toEqual(want);
    expect(await b.texts()).toEqual(want);
    expect(await a.texts()).toEqual(want);
  });

  it.each(['memory', 'webdav'] as const)('a segment cut short in the folder after it was written: its writer finds it by its size, says so once, and writes its memory again, so the others move past it (%s)', async (where) => {
    const { folder, a, b } = await pair([], (await restorableFolder(where, 'cut short')).folder);
    await a.add([{ id: 'x', text: 'The lease renews in April.' }]);
    await a.pass();
    const [path, bytes] = await newestSegment(folder, a);
    await a.add([{ id: 'y', text: 'Dana wants the report by Friday.' }]);
    await a.pass();
    // The server's disk, a restore or a hand: the file stays, half of it.
    await replace(folder, path, bytes.slice(0, bytes.length >> 1));
    expect((await b.pass())?.problems.join(' ')).toContain(path);
    expect(await b.texts()).toEqual({});
    const noticed = await a.pass();
    expect(noticed?.problems).toEqual([expect.stringMatching(/changed or cut short in the folder .* written again/)]);
    expect((await a.pass())?.problems).toEqual([]);
    await b.pass();
    expect(await b.texts()).toEqual({ x: 'The lease renews in April.', y: 'Dana wants the report by Friday.' });
  });

  it.each(['memory', 'webdav'] as const)('a folder put back to an older copy while its writer is gone for good: a device that applied the lost segments writes them again (%s)', async (where) => {
    const day = 86_400_000;
    // The Laptop is lost as well as its two segments: nothing in the folder says it wrote more.
    const { folder, keep } = await restorableFolder(where, 'restored, writer gone');
    const { b, c } = await restoredAfterTwoChanges(folder, keep, ['Laptop', 'Desktop', 'Phone'], Date.UTC(2026, 11, 1));
    await c.pass();
    expect(await c.texts()).toEqual({ x: 'The lease renews in March.' });
    // The Desktop applied what went: after a day (an engine may deliver a device's pruning before its snapshot), it
    // says so once and writes its memory again; a day after the Phone first sees it, the Phone moves past.
    expect((await b.pass())?.problems).toEqual([]);
    b.clock! += day;
    expect((await b.pass())?.problems).toEqual([expect.stringMatching(/'Laptop''s segments 2 to 3 are no longer in the folder/)]);
    expect((await b.pass())?.problems).toEqual([]);
    await c.pass();
    c.clock! += day;
    await c.pass();
    const want = { x: 'The lease renews in April.', y: 'Dana wants the report by Friday.' };
    expect(await c.texts()).toEqual(want);
    expect(await b.texts()).toEqual(want);
    // Nothing is written again once the folder holds it: further passes add no file.
    const files = (await folder.list()).length;
    for (const p of [b, c, b, c]) await p.pass();
    expect((await folder.list()).length).toBe(files);
  });

  it.each(['memory', 'webdav'] as const)('a snapshot whose parts the folder lost (its manifest kept) no longer counts: its writer writes its memory again, and a new device joins (%s)', async (where) => {
    const { folder } = await restorableFolder(where, 'parts lost');
    const { a, paths } = await loneDeviceWithSnapshot(folder, 7);
    const files = await paths();
    // The parts go (a partial restore, a hand clean-up); the manifest stays.
    const parts = files.filter(isPart);
    expect(parts.length).toBeGreaterThan(0);
    for (const p of parts) await folder.remove(p);
    const noticed = await a.pass();
    expect(noticed?.problems).toEqual([expect.stringMatching(/no longer in the folder .* written again/)]);
    expect((await a.pass())?.problems).toEqual([]);
    const b = new Profile('B', folder);
    await b.connect();
    await b.pass();
    expect(await b.texts()).toEqual({ x: 'The lease renews in March.' });
    expect(b.settings.rank).toEqual(a.settings.rank);
  });

  it.each([
    ['a part', 'memory'],
    ['a part', 'webdav'],
    ['the manifest', 'memory'],
    ['the manifest', 'webdav'],
  ] as const)('a snapshot with %s cut short in the folder after it was written: its writer finds it by its size, says so once, and writes its memory again, so a new device joins (%s)', async (which, where) => {
    const { folder } = await restorableFolder(where, `snapshot cut short ${which}`);
    // Then the server's disk, a restore or a hand leaves half of one of the snapshot's files.
    const { a, paths, manifests } = await loneDeviceWithSnapshot(folder, 11);
    const path = which === 'a part' ? (await paths()).filter(isPart).sort()[0] : (await manifests())[0];
    const bytes = await folder.read(path);
    await replace(folder, path, bytes.slice(0, bytes.length >> 1));
    const noticed = await a.pass();
    expect(noticed?.problems).toEqual([expect.stringMatching(/snapshot .*changed or cut short in the folder.* written again/)]);
    expect((await a.pass())?.problems).toEqual([]);
    const b = new Profile('B', folder);
    await b.connect();
    await b.pass();
    await b.pass();
    expect(await b.texts()).toEqual({ x: 'The lease renews in March.' });
    expect(b.settings.rank).toEqual(a.settings.rank);
  });

  it('a snapshot whose manifest landed before a stop, and one of whose parts then went, is not taken as whole on the next pass', async () => {
    const folder = new MemoryStorage();
    const a = new Profile('A', folder);
    a.partBytes = 600;
    await a.add([{ id: 'x', text: 'The lease renews in March.' }, { id: 'y', text: 'Dana signs the renewal.' }]);
    await a.connect();
    await a.pass();
    // The answer to the manifest's write is lost (the connection drops once it landed): the pass stops there.
    let lost: string | undefined;
    a.storage = { list: () => folder.list(), read: (p) => folder.read(p), remove: (p) => folder.remove(p),
      create: async (p, bytes) => {
        await folder.create(p, bytes);
        if (!lost && p.includes('/snap/') && !/p\d{5}\.bin$/.test(p)) {
          lost = p;
          throw new SyncPlaceError('offline', 'The connection dropped.');
        }
      } };
    const text = noise(9);
    for (let k = 0; k < 30 && !lost; k++) {
      a.settings = { ...a.settings, rank: { weights: { semantic: 1 }, note: text(150_000) } };
      await a.pass().catch(() => undefined);
    }
    expect(lost).toBeDefined();
    // Meanwhile its last part goes (a hand clean-up, an engine that lost it).
    const parts = [...folder.files.keys()].filter((p) => p.startsWith(lost!.replace('.bin', 'p'))).sort();
    expect(parts.length).toBeGreaterThan(1);
    await folder.remove(parts.at(-1)!);
    a.storage = folder;
    const said = [...((await a.pass())?.problems ?? []), ...((await a.pass())?.problems ?? [])];
    expect(said).toEqual([expect.stringMatching(/no longer in the folder .* written again/)]);
    const b = new Profile('B', folder);
    await b.connect();
    await b.pass();
    expect(await b.texts()).toEqual({ x: 'The lease renews in March.', y: 'Dana signs the renewal.' });
    expect(b.settings.rank).toEqual(a.settings.rank);
  });

  it('a gap that lasts a day is said once, with the device it waits for; it goes when the device writes again', async () => {
    const folder = new MemoryStorage();
    const [a, c] = ['Laptop', 'Desktop'].map((n) => new Profile(n, folder));
    const day = 86_400_000;
    a.clock = c.clock = Date.UTC(2026, 11, 1);
    await a.add([{ id: 'x', text: 'The lease renews in March.' }]);
    for (const p of [a, c]) {
      await p.connect();
      await p.pass();
    }
    await a.add([{ id: 'y', text: 'Dana wants the report by Friday.' }]);
    await a.pass();
    await a.add([{ id: 'z', text: 'Parking is on level 2.' }]);
    await a.pass();
    // The Laptop's second segment goes from the folder (removed by hand); the Laptop is then away.
    const { deviceId, vaultId } = (await readDevice(a.db))!;
    folder.files.delete(segmentPath(vaultId, deviceId, 2));
    // A gap is usually a segment still on its way (a file-sync engine delivers out of order): not said at once.
    expect((await c.pass())?.problems).toEqual([]);
    c.clock += day / 2;
    expect((await c.pass())?.problems).toEqual([]);
    c.clock += day;
    expect((await c.pass())?.problems).toEqual([expect.stringMatching(/Laptop.*segment 2, missing from the folder for 1 day.*writes it again/)]);
    c.clock += day;
    expect((await c.pass())?.problems).toEqual([]);
    // The Laptop comes back: it writes its memory again, and the Desktop moves past the gap.
    a.clock += 3 * day;
    await a.pass();
    await c.pass();
    expect(await c.texts()).toEqual(await a.texts());
    expect(Object.keys(await c.texts())).toEqual(['x', 'y', 'z']);
    expect((await readDevice(c.db))!.waiting).toEqual({});
  });

  it('a device silent for over 90 days by the pass’s clock no longer holds back clean-up: tombstones and old segments go', async () => {
    const folder = new MemoryStorage();
    const [a, b, c] = ['A', 'B', 'C'].map((n) => new Profile(n, folder));
    await a.add([{ id: 'x', text: 'kept' }, { id: 'y', text: 'to be deleted' }]);
    for (const p of [a, b, c]) {
      await p.connect();
      await p.pass();
    }
    await a.pass();
    await b.pass();
    // C is put away. A deletes y; B applies it. Then three months and a day pass for A and B.
    await a.store.remove(['y']);
    await a.pass();
    await b.pass();
    const { deviceId: aId, vaultId, applied } = (await readDevice(a.db))!;
    const deleteSegment = segmentPath(vaultId, aId, applied[aId].seq);
    expect(folder.files.has(deleteSegment)).toBe(true);
    const later = Date.now() + 91 * 86_400_000;
    a.clock = b.clock = later;
    await b.add([{ id: 'z', text: 'from B, three months on' }]);
    await b.pass();
    await a.pass();
    await writeEnoughForSnapshot(a, 1);
    await b.pass();
    await a.pass();
    // Only A and B count: y's tombstone is collected and the segment that carried it removed, though C applied neither.
    expect(await a.db.syncState.get('y')).toBeUndefined();
    expect(folder.files.has(deleteSegment)).toBe(false);
    expect(await a.texts()).toEqual({ x: 'kept', z: 'from B, three months on' });
    // C comes back: what is live reaches it.
    await c.pass();
    expect((await c.texts()).z).toBe('from B, three months on');
  });

  it.each([
    ['one part', undefined, 'memory'],
    ['parts of a few records', 600, 'memory'],
    ['parts of a few records, through rclone serve webdav', 600, 'webdav'],
  ] as const)('a device back after deletes were collected drops the deleted items, but keeps one it edited while away (%s)', async (_, partBytes, where) => {
    const folder = where === 'webdav' ? await webdavFolder('back after months') : new MemoryStorage();
    const [a, b, c] = ['A', 'B', 'C'].map((n) => Object.assign(new Profile(n, folder), { worldTime: true }));
    a.partBytes = partBytes;
    // Kept and deleted ids interleaved, so deleted ones fall inside parts, between them and after the last.
    const ids = Array.from({ length: 12 }, (_, k) => `n${String(k).padStart(2, '0')}`);
    const deleted = ids.filter((_, k) => k % 3 !== 1);
    await a.add(ids.map((id) => ({ id, text: `note ${id}` })));
    for (const p of [a, b, c]) {
      await p.connect();
      await p.pass();
    }
    await a.pass();
    await b.pass();
    // C goes away (and edits one of them there, unsent); A deletes them; three months and a day on, A writes a snapshot.
    await c.store.update('n03', { text: 'C’s edit, made while away' });
    await a.store.remove(deleted);
    await a.pass();
    await b.pass();
    a.clock = b.clock = Date.now() + 91 * 86_400_000;
    await b.pass();
    await writeEnoughForSnapshot(a, 3);
    expect(await a.db.syncState.get(deleted[0])).toBeUndefined();
    const parts = (await folder.list()).filter((f) => /\/snap\/.*p\d{5}\.bin$/.test(f.path)).length;
    expect(parts).toBeGreaterThanOrEqual(partBytes ? 5 : 1);
    // C, back three months on, reads the snapshot (the segments with the deletes are gone): they go there too; its
    // own edit is kept.
    c.clock = a.clock;
    const report = await c.pass();
    expect(report?.problems).toEqual([]);
    const kept = Object.fromEntries(ids.filter((id) => !deleted.includes(id)).map((id) => [id, `note ${id}`]));
    expect(await c.texts()).toEqual({ ...kept, n03: 'C’s edit, made while away' });
    // Nothing is deleted again for them, and the edit that outlived the delete reaches the others.
    await c.pass();
    await a.pass();
    await b.pass();
    expect(await a.texts()).toEqual(await c.texts());
    expect(await b.texts()).toEqual(await c.texts());
  });

  it('through a WebDAV server, a device whose clock is hours off is told its own clock is wrong, not the others’', async () => {
    const { a, b } = await pair([], await webdavFolder('clock off'));
    // A dual-boot computer that keeps local time in its hardware clock: B runs two hours slow, A three hours fast.
    b.clock = Date.now() - 2 * 3_600_000;
    a.clock = Date.now() + 3 * 3_600_000;
    await a.add([{ id: 'x', text: 'written with a fast clock' }]);
    const atA = (await a.pass())?.problems.join(' ');
    expect(atA).toMatch(/This device's clock is 3 hours ahead of the WebDAV server's/);
    const atB = (await b.pass())?.problems.join(' ');
    expect(atB).toMatch(/This device's clock is 2 hours behind the WebDAV server's/);
    // A is 5 hours ahead of B, of which B's own clock accounts for 2: A is still named, by how far it is off.
    expect(atB).toMatch(/The clock of 'A' is 3 hours ahead/);
    expect(await b.texts()).toEqual({ x: 'written with a fast clock' });
    // Said once each.
    expect((await a.pass())?.problems).toEqual([]);
    expect((await b.pass())?.problems).toEqual([]);
  });

  it('through a WebDAV server, a device whose clock is slow does not blame the others for it', async () => {
    const { a, b } = await pair([], await webdavFolder('clock slow'));
    b.clock = Date.now() - 2 * 3_600_000;
    await a.add([{ id: 'x', text: 'written with a right clock' }]);
    await a.pass();
    const atB = (await b.pass())?.problems.join(' ');
    expect(atB).toMatch(/This device's clock is 2 hours behind the WebDAV server's/);
    expect(atB).not.toMatch(/The clock of 'A'/);
  });

  it('a device whose clock is 100 days ahead takes the others for gone, and they still end with one memory', async () => {
    const folder = new MemoryStorage();
    const [a, b] = ['A', 'B'].map((n) => new Profile(n, folder));
    await a.add([{ id: 'x', text: 'kept' }, { id: 'y', text: 'deleted on A' }]);
    for (const p of [a, b, a, b]) {
      if (!(await readDevice(p.db))) await p.connect();
      await p.pass();
    }
    // A's clock jumps 100 days on: B looks silent to it. A deletes y and writes a snapshot before B applies the delete.
    a.clock = Date.now() + 100 * 86_400_000;
    await a.store.remove(['y']);
    await b.add([{ id: 'z', text: 'from B meanwhile' }]);
    await writeEnoughForSnapshot(a, 5);
    // The delete's tombstone went with B's applying it unknown, and the segment that carried it with it.
    expect(await a.db.syncState.get('y')).toBeUndefined();
    await b.pass();
    await a.pass();
    await b.pass();
    expect(await b.texts()).toEqual({ x: 'kept', z: 'from B meanwhile' });
    expect(await a.texts()).toEqual(await b.texts());
  });

  it('three devices through a file-sync engine that delays, duplicates and adds junk end with one memory', async () => {
    const engine = new SyncedFolders({ seed: 7, duplicateRate: 0.3, junk: true });
    const devices = ['A', 'B', 'C'].map((n) => new Profile(n, engine.place(n)));
    await devices[0].add([{ id: 'one', text: 'from A' }]);
    await devices[0].connect();
    await devices[0].pass();
    engine.deliver();
    for (const d of devices.slice(1)) {
      await d.connect();
      await d.pass();
    }
    await devices[1].add([{ id: 'two', text: 'from B' }]);
    await devices[2].add([{ id: 'three', text: 'from C' }]);
    for (let round = 0; round < 4; round++) {
      for (const d of devices) await d.pass();
      engine.deliver();
    }
    const want = { one: 'from A', two: 'from B', three: 'from C' };
    for (const d of devices) expect(await d.texts()).toEqual(want);
  });

  it.each([0, 1])('a profile copied to another computer, both writing the same segment before the file-sync engine carries either, ends with one memory (conflicted copies: %s)', async (duplicateRate) => {
    const engine = new SyncedFolders({ seed: 11, duplicateRate });
    const [a, b] = ['A', 'B'].map((n) => new Profile(n, engine.place(n)));
    await a.add([{ id: 'x', text: 'shared before the copy' }]);
    await a.connect();
    await a.pass();
    engine.deliver();
    await b.connect();
    await b.pass();
    engine.deliver();
    // The copy sees the folder as A's computer had it when the profile was copied.
    const copy = await copyProfile(a, 'A');
    copy.storage = engine.place('A copy');
    for (const [path, bytes] of engine.filesOf('A')) engine.filesOf('A copy').set(path, bytes.slice());
    await a.add([{ id: 'fromA', text: 'written on the original' }]);
    await copy.add([{ id: 'fromCopy', text: 'written on the copy' }]);
    await a.pass();
    await copy.pass();
    for (let round = 0; round < 4; round++) {
      engine.deliver();
      for (const p of [a, copy, b]) await p.pass();
    }
    engine.deliver();
    for (const p of [a, copy, b]) await p.pass();
    const want = { x: 'shared before the copy', fromA: 'written on the original', fromCopy: 'written on the copy' };
    for (const p of [a, copy, b]) expect(await p.texts()).toEqual(want);
  });
});
