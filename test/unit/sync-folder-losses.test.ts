import { describe, expect, it } from 'vitest';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { openMemoryDB } from '../../lib/memory/db';
import { readDevice, writeDevice, type DeviceState } from '../../lib/sync/device';
import type { FolderPlan } from '../../lib/sync/folder-reader';
import { findLosses, LOST_AFTER_MS, lookPast, noteWaiting } from '../../lib/sync/folder-losses';
import { parseListing } from '../../lib/sync/folder-layout';

const plan = (over: Partial<FolderPlan>): FolderPlan => ({ segments: [], heads: {}, devices: {}, problems: [], gaps: [], past: [], rewritten: [], ...over });
const noLosses = { own: [], damaged: [], held: [] };

describe('what a device waits for, by its clock', () => {
  it('a gap noted while the clock ran a year ahead is said a day after the clock is set right, not a year later', () => {
    const dev = { waiting: {} } as unknown as DeviceState;
    const said: string[] = [];
    const say = (_: string, words: string) => void said.push(words);
    const right = Date.UTC(2026, 11, 1);
    const read = plan({ gaps: [{ device: 'aaaa', from: 2, to: 3 }], past: [{ device: 'bbbb', seq: 4 }] });
    noteWaiting(dev, read, noLosses, right + 365 * 86_400_000, say);
    noteWaiting(dev, read, noLosses, right, say);
    expect(said).toEqual([]);
    noteWaiting(dev, read, noLosses, right + LOST_AFTER_MS, say);
    expect(said).toEqual([expect.stringMatching(/segment 2, missing from the folder for 1 day/)]);
    expect(lookPast(dev, right + LOST_AFTER_MS)).toEqual(['bbbb']);
  });
});

describe('whether this device’s newest snapshot still stands for what it covers', () => {
  const v = 'o2uxff4kdscdtb2bjch7l5caty';
  const me = 'nylrkhp6clg3cs32ssxn3pmqkm';
  // Its only snapshot (seq 3) covers segments 1 to 3, which its pruning removed: the folder holds the snapshot alone.
  const dev = {
    vaultId: v, deviceId: me, applied: { [me]: { seq: 3, hash: 'h' } }, snapshotSeq: 3, snapshotParts: 2, snapshotCovers: { [me]: 3 },
    writtenFiles: { 'snap/00000003.bin': { size: 300 }, 'snap/00000003p00000.bin': { size: 2000 }, 'snap/00000003p00001.bin': { size: 900 } },
  } as unknown as DeviceState;
  const snap = `backstory/${v}/snap/${me}/00000003`;
  const listing = (files: [string, number][]) => parseListing(files.map(([path, size]) => ({ path, size })), v);

  it('a snapshot whose files are at the sizes written covers its segments', () => {
    expect(findLosses(listing([[`${snap}.bin`, 300], [`${snap}p00000.bin`, 2000], [`${snap}p00001.bin`, 900]]), dev)).toEqual(noLosses);
  });

  it('a part or the manifest at another size: the snapshot covers nothing, and the segments it stood for are lost', () => {
    const part = findLosses(listing([[`${snap}.bin`, 300], [`${snap}p00000.bin`, 1000], [`${snap}p00001.bin`, 900]]), dev);
    expect(part).toEqual({ ...noLosses, own: [1, 2, 3], damagedSnapshot: 3 });
    const manifest = findLosses(listing([[`${snap}.bin`, 150], [`${snap}p00000.bin`, 2000], [`${snap}p00001.bin`, 900]]), dev);
    expect(manifest).toEqual({ ...noLosses, own: [1, 2, 3], damagedSnapshot: 3 });
    const said: string[] = [];
    noteWaiting({ waiting: {} } as unknown as DeviceState, plan({}), part, Date.UTC(2026, 11, 1), (_, words) => void said.push(words));
    expect(said).toEqual([expect.stringMatching(/snapshot 3 was changed or cut short in the folder .* segments 1 to 3\. All of this memory was written again/)]);
  });

  it('an engine’s copy at the size written keeps it standing (a reader takes the copy)', () => {
    const withCopy = listing([[`${snap}.bin`, 300], [`${snap}p00000.bin`, 1000], [`${snap}p00000 (1).bin`, 2000], [`${snap}p00001.bin`, 900]]);
    expect(findLosses(withCopy, dev)).toEqual(noLosses);
  });
});

describe('a device row written by a version that kept the sizes of its files apart', () => {
  const v = 'o2uxff4kdscdtb2bjch7l5caty';
  const me = 'nylrkhp6clg3cs32ssxn3pmqkm';
  const snap = `backstory/${v}/snap/${me}/00000003`;
  const log = (seq: number) => `backstory/${v}/log/${me}/0000000${seq}.bin`;
  const listing = (files: [string, number][]) => parseListing(files.map(([path, size]) => ({ path, size })), v);

  it('still finds, after the update, a segment and a snapshot part the folder lists at other sizes', async () => {
    const db = openMemoryDB('legacy-sizes', { indexedDB: new IDBFactory(), IDBKeyRange });
    // As that version stored it: snapshot 3 in two parts, segments 4 and 5 after it, sizes apart, no writtenFiles.
    await db.syncDevice.put({
      key: 'device', vaultId: v, deviceId: me, applied: { [me]: { seq: 5, hash: 'h' } }, snapshotSeq: 3, snapshotParts: 2,
      snapshotCovers: { [me]: 3 }, snapshotSizes: { manifest: 300, parts: { 0: 2000, 1: 900 } }, segmentSizes: { 4: 700, 5: 650 },
    } as unknown as DeviceState);
    const dev = (await readDevice(db))!;
    const whole: [string, number][] = [[`${snap}.bin`, 300], [`${snap}p00000.bin`, 2000], [`${snap}p00001.bin`, 900], [log(4), 700], [log(5), 650]];
    expect(findLosses(listing(whole), dev)).toEqual(noLosses);
    expect(findLosses(listing(whole.map(([p, n]) => [p, p === log(5) ? 400 : n])), dev)).toEqual({ ...noLosses, damaged: [5] });
    expect(findLosses(listing(whole.map(([p, n]) => [p, p.endsWith('p00001.bin') ? 899 : n])), dev)).toEqual({ ...noLosses, own: [1, 2, 3], damagedSnapshot: 3 });
    // Written back in the new form, the sizes are kept once.
    await writeDevice(db, dev);
    expect(await db.syncDevice.get('device')).not.toHaveProperty('segmentSizes');
    expect(await db.syncDevice.get('device')).not.toHaveProperty('snapshotSizes');
    db.close();
  });
});
