import { beforeAll, describe, expect, it } from 'vitest';
import { randomId } from '../../lib/sync/bytes';
import { headerPath, parseListing, segmentPath, snapshotPartPath, snapshotPath } from '../../lib/sync/folder-layout';
import { FolderReader, type Applied } from '../../lib/sync/folder-reader';
import { LogForkError, LogWriter } from '../../lib/sync/log-writer';
import { seal } from '../../lib/sync/seal';
import { MemoryStorage, SyncedFolders } from '../../lib/sync/storage-memory';
import type { SyncOp } from '../../lib/sync/types';
import { findVaults } from '../../lib/sync/folder-headers';
import { createVault, headerText, unlockWithPassphrase, type Vault } from '../../lib/sync/vault';
import { utf8 } from '../../lib/sync/bytes';

const FAST = { memoryKiB: 8192, iterations: 1, parallelism: 1 };
const MARKER = 'QUOKKA-LANTERN-5521';
let vault: Vault;
let stranger: Vault;
const A = 'aaaaaaaaaaaaaaaaaaaaaaaaaa';
const B = 'bbbbbbbbbbbbbbbbbbbbbbbbbb';
const C = 'cccccccccccccccccccccccccc';

beforeAll(async () => {
  vault = (await createVault('passphrase one', FAST)).vault;
  stranger = (await createVault('passphrase one', FAST)).vault;
});

const op = (n: number): SyncOp => ({ id: `item-${n}`, field: 'text', value: `${MARKER} note ${n}`, stamp: `s${n}`, base: [] });

/** Writes `count` segments of `device`'s log after `last`, one op each; returns the new head. */
async function writeLog(writer: LogWriter, count: number, last?: Applied, from = 1): Promise<Applied> {
  let head = last;
  for (let i = 0; i < count; i++) {
    const pending = await writer.prepare(head, {}, [op(from + i)]);
    await writer.write(pending);
    head = { seq: pending.seq, hash: pending.hash };
  }
  return head!;
}

const seqs = (r: { segments: { body: { device: string; seq: number } }[] }) => r.segments.map((s) => `${s.body.device[0]}${s.body.seq}`);

describe('the folder layout', () => {
  it('sorts a listing into headers, device files, segments and snapshots, ignoring junk and odd names', () => {
    const v = vault.vaultId;
    const listing = parseListing(
      [
        headerPath(v),
        `backstory-vault-${v} (conflicted copy 2026-12-06).json`,
        'backstory-vault-notanid.json',
        'desktop.ini',
        `backstory/${v}/devices/${A}.bin`,
        `backstory/${v}/log/${A}/00000001.bin`,
        `backstory/${v}/log/${A}/00000001 (1).bin`,
        `backstory/${v}/log/${A}/00000002 (Jo's conflicted copy 2026-12-06).bin`,
        `backstory/${v}/log/${A}/00000003.sync-conflict-20261206-123456-ABCDEFG.bin`,
        `backstory/${v}/log/${A}/00000004.bin.tmp`,
        `backstory/${v}/log/${A}/.DS_Store`,
        `backstory/${v}/log/${A}/~00000005.bin`,
        `backstory/${v}/log/${A}/.~lock.00000006.bin#`,
        `backstory/${v}/log/${A}/x.crswap`,
        `backstory/${v}/log/${A}/.syncthing.00000007.bin.tmp`,
        `backstory/${v}/log/${A}/notes.txt`,
        `backstory/${v}/log/../00000008.bin`,
        `backstory/${v}/snap/${A}/00000002.bin`,
        `backstory/othervaultid000000000/log/${A}/00000001.bin`,
      ].map((path) => ({ path, size: 1 })),
      v,
    );
    expect(listing.headers.map((h) => [h.vaultId, h.copy])).toEqual([[v, false], [v, true]]);
    expect(listing.devices.map((d) => d.device)).toEqual([A]);
    expect(listing.segments.map((s) => [s.seq, s.copy])).toEqual([[1, false], [1, true], [2, true], [3, true]]);
    expect(listing.snapshots.map((s) => s.seq)).toEqual([2]);
  });
});

describe('reading and writing logs through a file-sync engine', () => {
  it('applies each segment once, in chain order, whatever the engine adds, and no file holds plaintext', async () => {
    const engine = new SyncedFolders({ seed: 7, duplicateRate: 0.6, junk: true });
    const a = new LogWriter(engine.place(A), vault, A);
    await a.join('Laptop');
    let headA = await writeLog(a, 3);
    const b = new LogWriter(engine.place(B), vault, B);
    await b.join('Desk');
    const headB = await writeLog(b, 2, undefined, 100);
    engine.deliver();
    const readerB = new FolderReader(engine.place(B), vault);
    const first = await readerB.read({ [B]: headB });
    expect(first.problems).toEqual([]);
    expect(seqs(first)).toEqual(['a1', 'a2', 'a3']);
    expect(first.segments.map((s) => (s.body.ops[0].value as string))).toEqual([1, 2, 3].map((n) => `${MARKER} note ${n}`));
    expect(first.devices[A].name).toBe('Laptop');
    expect(first.heads[A]).toEqual(headA);
    // Read again with nothing new: nothing, duplicates included.
    expect(seqs(await readerB.read(first.heads))).toEqual([]);
    // A new reader (a restart) holding the same heads reads nothing either.
    expect(seqs(await new FolderReader(engine.place(B), vault).read(first.heads))).toEqual([]);
    headA = await writeLog(a, 2, headA, 4);
    engine.deliver(1);
    const partial = await readerB.read(first.heads);
    engine.deliver();
    const rest = await readerB.read(partial.heads);
    expect([...seqs(partial), ...seqs(rest)]).toEqual(['a4', 'a5']);
    expect(rest.heads[A]).toEqual(headA);
    const c = await new FolderReader(engine.place(A), vault).read({ [A]: headA });
    expect(seqs(c)).toEqual(['b1', 'b2']);
    const paths = [...engine.filesOf(B).keys()];
    expect(paths.some((p) => p.includes('/log/') && p.includes('conflicted copy'))).toBe(true);
    expect(paths.some((p) => p.includes('/log/') && p.includes('.sync-conflict-'))).toBe(true);
    for (const device of [A, B]) {
      const files = engine.filesOf(device);
      expect(files.size).toBeGreaterThan(10);
      for (const [path, bytes] of files) {
        expect(Buffer.from(bytes).includes(Buffer.from(MARKER)), path).toBe(false);
        expect(Buffer.from(bytes).includes(Buffer.from('Laptop')), path).toBe(false);
      }
    }
  });

  it('a reader that starts afresh (a worker the browser stopped) opens only what is new, and the last segment it applied of each log', async () => {
    const place = new MemoryStorage();
    const a = new LogWriter(place, vault, A);
    await a.join('Laptop');
    let headA = await writeLog(a, 5);
    const b = new LogWriter(place, vault, B);
    await b.join('Desk');
    const headB = await writeLog(b, 3, undefined, 100);
    const read: string[] = [];
    const counted = { ...place, list: () => place.list(), read: (path: string) => (read.push(path), place.read(path)), create: place.create.bind(place), remove: place.remove.bind(place) };
    const heads = { [A]: headA, [B]: headB };
    const quiet = await new FolderReader(counted, vault).read(heads);
    expect(seqs(quiet)).toEqual([]);
    const segmentsRead = () => read.filter((p) => p.includes('/log/')).sort();
    expect(segmentsRead()).toEqual([segmentPath(vault.vaultId, A, 5), segmentPath(vault.vaultId, B, 3)].sort());
    // What is new is read and applied as before.
    headA = await writeLog(a, 1, headA, 6);
    read.length = 0;
    const next = await new FolderReader(counted, vault).read(heads);
    expect(seqs(next)).toEqual(['a6']);
    expect(next.heads[A]).toEqual(headA);
    expect(segmentsRead()).toEqual([segmentPath(vault.vaultId, A, 5), segmentPath(vault.vaultId, A, 6), segmentPath(vault.vaultId, B, 3)].sort());
  });

  it('reports an old segment put back under a new name once, and never applies it again', async () => {
    const place = new MemoryStorage();
    const a = new LogWriter(place, vault, A);
    const head = await writeLog(a, 2);
    const reader = new FolderReader(place, vault);
    const read = await reader.read({});
    expect(seqs(read)).toEqual(['a1', 'a2']);
    const replayed = segmentPath(vault.vaultId, A, 9);
    place.files.set(replayed, place.files.get(segmentPath(vault.vaultId, A, 1))!);
    const again = await reader.read({ [A]: head });
    expect(seqs(again)).toEqual([]);
    expect(again.problems).toEqual([expect.objectContaining({ kind: 'replayed', path: replayed })]);
    expect(again.problems[0].words).toMatch(/segment 1, already read: an old file put back under a new name/);
    expect((await reader.read({ [A]: head })).problems).toEqual([]);
  });

  it('reports a fork and applies nothing past it; the writer refuses to fork its own log', async () => {
    const place = new MemoryStorage();
    const a = new LogWriter(place, vault, A);
    const one = await writeLog(a, 1);
    const two = await a.prepare(one, {}, [op(2)]);
    const otherTwo = await a.prepare(one, {}, [op(22)]);
    await a.write(two);
    await a.write(two); // a retry: the same bytes under the same name
    await expect(a.write(otherTwo)).rejects.toBeInstanceOf(LogForkError);
    await expect(a.write(otherTwo)).rejects.toThrow(/restored from a backup/);
    // A restored device that writes anyway, and an engine that keeps both as copies.
    place.files.set(segmentPath(vault.vaultId, A, 2).replace('.bin', ' (1).bin'), otherTwo.bytes);
    await writeLog(a, 1, { seq: 2, hash: two.hash }, 3);
    const read = await new FolderReader(place, vault).read({});
    expect(seqs(read)).toEqual(['a1']);
    expect(read.problems.map((p) => p.kind)).toEqual(['fork']);
    expect(read.problems[0].words).toMatch(/numbered 2 that do not continue what was read/);
  });

  it('waits at a gap and says so once; a tampered, cut or foreign file is reported with its path and not applied', async () => {
    const place = new MemoryStorage();
    const a = new LogWriter(place, vault, A);
    await writeLog(a, 5);
    const path = (n: number) => segmentPath(vault.vaultId, A, n);
    const saved = place.files.get(path(3))!;
    place.files.delete(path(3));
    const reader = new FolderReader(place, vault);
    const read = await reader.read({});
    expect(seqs(read)).toEqual(['a1', 'a2']);
    expect(read.problems).toEqual([expect.objectContaining({ kind: 'gap', path: path(4) })]);
    expect(read.problems[0].words).toMatch(/segment 3 is not in the folder yet/);
    expect((await reader.read(read.heads)).problems).toEqual([]);

    // The missing segment arrives, but the next one changed (same size) since this reader first opened it.
    place.files.set(path(3), saved);
    const tampered = place.files.get(path(4))!.slice();
    tampered[70] ^= 1;
    place.files.set(path(4), tampered);
    const changed = await reader.read(read.heads);
    expect(seqs(changed)).toEqual(['a3']);
    expect(changed.problems).toEqual([expect.objectContaining({ kind: 'unreadable', path: path(4) })]);
    expect(changed.heads[A].seq).toBe(3);

    // A device reading it all afresh: a file from another vault, a changed one and a cut one.
    place.files.set(path(3), await seal(stranger, 'segment', { device: A, seq: 3, prev: read.heads[A].hash, seen: {}, ops: [] }));
    place.files.set(path(5), place.files.get(path(5))!.subarray(0, 40));
    const fresh = new FolderReader(place, vault);
    const bad = await fresh.read({});
    expect(seqs(bad)).toEqual(['a1', 'a2']);
    expect(bad.problems.map((p) => [p.kind, p.path]).sort()).toEqual([
      ['unreadable', path(3)],
      ['unreadable', path(4)],
      ['unreadable', path(5)],
    ]);
    expect(bad.problems.find((p) => p.path === path(4) && p.kind === 'unreadable')!.words).toMatch(
      /was changed, cut short, or belongs to another synced memory/,
    );
    expect(bad.problems.find((p) => p.path === path(5))!.words).toMatch(/cut short/);
    expect((await fresh.read(bad.heads)).problems).toEqual([]);
  });

  it('does not read a file listed larger than its kind may be', async () => {
    const place = new MemoryStorage();
    await writeLog(new LogWriter(place, vault, A), 1);
    const huge = segmentPath(vault.vaultId, A, 2);
    const read: string[] = [];
    const spying = {
      list: async () => [...(await place.list()), { path: huge, size: 1e9 }],
      read: async (p: string) => (read.push(p), place.read(p)),
      create: place.create.bind(place),
      remove: place.remove.bind(place),
    };
    const result = await new FolderReader(spying, vault).read({});
    expect(seqs(result)).toEqual(['a1']);
    expect(read).not.toContain(huge);
    expect(result.problems).toEqual([expect.objectContaining({ kind: 'unreadable', path: huge })]);
    expect(result.problems[0].words).toMatch(/1000000000 bytes, more than a segment may be/);
  });

  it('starts a new device from the newest snapshot, and a device behind a pruned log from one that covers it', async () => {
    const place = new MemoryStorage({ createOnly: true });
    const a = new LogWriter(place, vault, A);
    let head = await writeLog(a, 4);
    await a.snapshot(4, { [A]: head }, [[{ upTo: 4 }]]);
    head = await writeLog(a, 2, head, 5);
    await a.snapshot(6, { [A]: head }, [[{ upTo: 6 }]]);
    head = await writeLog(a, 2, head, 7);
    await a.snapshot(8, { [A]: head }, [[{ upTo: 8 }]]);
    head = await writeLog(a, 1, head, 9);
    const removed = await a.prune();
    // Kept: the snapshots at 8 and 6 and the segments after 6.
    expect(removed.sort()).toEqual([...[1, 2, 3, 4, 5, 6].map((n) => segmentPath(vault.vaultId, A, n)), snapshotPath(vault.vaultId, A, 4), snapshotPartPath(vault.vaultId, A, 4, 0)].sort());
    const fresh = await new FolderReader(place, vault).read({});
    expect(fresh.snapshot?.body).toMatchObject({ seq: 8, covers: { [A]: 8 }, version: 2, records: 1 });
    expect(await new FolderReader(place, vault).part(fresh.snapshot!, 0)).toEqual([{ upTo: 8 }]);
    expect(seqs(fresh)).toEqual(['a9']);
    expect(fresh.problems).toEqual([]);
    expect(fresh.heads[A]).toEqual(head);
    // B had read A up to 2 and also wrote its own log; A's 3 to 6 are gone, the snapshot at 8 covers them.
    const behind = await new FolderReader(place, vault).read({ [A]: { seq: 2, hash: 'f'.repeat(64) }, [C]: { seq: 0, hash: '' } });
    expect(behind.snapshot?.body.seq).toBe(8);
    expect(seqs(behind)).toEqual(['a9']);
    expect(behind.problems).toEqual([]);
  });

  it('a device with the whole log applied opens no snapshot (a restarted worker would read the whole memory again)', async () => {
    const place = new MemoryStorage();
    const a = new LogWriter(place, vault, A);
    const head = await writeLog(a, 3);
    await a.snapshot(3, { [A]: head }, [[{ upTo: 3 }]]);
    const read: string[] = [];
    const spying = { ...place, list: () => place.list(), read: async (p: string) => (read.push(p), place.read(p)), create: place.create.bind(place), remove: place.remove.bind(place) };
    const result = await new FolderReader(spying, vault).read({ [A]: head });
    expect(result.snapshot).toBeUndefined();
    expect(read.filter((p) => p.includes('/snap/'))).toEqual([]);
  });

  it('finds each synced memory once by its header, copies included; a planted header of the same id does not open', async () => {
    const place = new MemoryStorage();
    const made = await createVault('the passphrase', FAST);
    const planted = await createVault('the passphrase', FAST);
    const id = made.header.vaultId;
    place.files.set(headerPath(id), utf8(headerText(made.header)));
    place.files.set(`backstory-vault-${id} (conflicted copy 2026-12-06).json`, utf8(headerText(made.header)));
    place.files.set(`backstory-vault-${id}.sync-conflict-20261206-123456-ABCDEFG.json`, utf8(headerText({ ...planted.header, vaultId: id })));
    place.files.set(`backstory-vault-${id} (1).json`, utf8('{"format":"backstory-sync","version":1}'));
    place.files.set(headerPath(planted.header.vaultId), utf8(headerText(made.header)));
    const found = await findVaults(place);
    expect(found.vaults.map((v) => v.paths)).toEqual([
      [headerPath(id), `backstory-vault-${id} (conflicted copy 2026-12-06).json`],
      [`backstory-vault-${id}.sync-conflict-20261206-123456-ABCDEFG.json`],
    ]);
    expect(found.problems.map((p) => p.path).sort()).toEqual([`backstory-vault-${id} (1).json`, headerPath(planted.header.vaultId)].sort());
    await expect(unlockWithPassphrase(found.vaults[0].header, 'the passphrase')).resolves.toBeTruthy();
    await expect(unlockWithPassphrase(found.vaults[1].header, 'the passphrase')).rejects.toThrow('does not open');
  });

  it('reads one vault only, and a header copy is listed by the vault it names', async () => {
    const place = new MemoryStorage();
    await writeLog(new LogWriter(place, stranger, A), 1);
    await writeLog(new LogWriter(place, vault, B), 1);
    const read = await new FolderReader(place, vault).read({});
    expect(seqs(read)).toEqual(['b1']);
    expect(read.problems).toEqual([]);
    expect(randomId()).toMatch(/^[a-z2-7]{26}$/);
  });
});
