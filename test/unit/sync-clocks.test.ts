import { describe, expect, it } from 'vitest';
import { readDevice } from '../../lib/sync/device';
import { MemoryStorage } from '../../lib/sync/storage-memory';
import { segmentPath } from '../../lib/sync/folder-layout';
import { webdavFolder, Profile, writeEnoughForSnapshot, pair } from './sync-profiles';

describe('sync over time: gaps that last, devices gone silent, clocks that are wrong', () => {
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
});
