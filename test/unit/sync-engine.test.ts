import { describe, expect, it } from 'vitest';
import { readDevice, readOutbox, writeDevice } from '../../lib/sync/device';
import { StateStore } from '../../lib/sync/state-store';
import { dismissRevisions, revisionsOf } from '../../lib/sync/revisions';
import { mergedRecord } from '../../lib/sync/merge';
import { MemoryStorage, SyncedFolders } from '../../lib/sync/storage-memory';
import { SyncPlaceError } from '../../lib/sync/types';
import { segmentPath } from '../../lib/sync/folder-layout';
import { webdavFolder, cuttingUploads, Profile, noise, writeEnoughForSnapshot, newestSegment, droppingLogWrites, replace, pair, copyProfile, restorableFolder } from './sync-profiles';

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
