// Three devices writing through a file-sync engine that delays, shuffles and duplicates files, with snapshots and
// pruning: every device ends up with every operation, and no segment's operations arrive twice.
import { beforeAll, describe, expect, it } from 'vitest';
import { FolderReader, type Applied } from '../../lib/sync/folder-reader';
import { LogWriter } from '../../lib/sync/log-writer';
import { SyncedFolders } from '../../lib/sync/storage-memory';
import { createVault, type Vault } from '../../lib/sync/vault';

let vault: Vault;
beforeAll(async () => {
  vault = (await createVault('passphrase one', { memoryKiB: 8192, iterations: 1, parallelism: 1 })).vault;
});

const DEVICES = ['aaaaaaaaaaaaaaaaaaaaaaaaaa', 'bbbbbbbbbbbbbbbbbbbbbbbbbb', 'cccccccccccccccccccccccccc'];

interface Device {
  id: string;
  writer: LogWriter;
  reader: FolderReader;
  heads: Record<string, Applied>;
  known: Set<string>;
  arrived: Map<string, number>;
  made: number;
  gapWords: number;
  otherProblems: string[];
}

async function readInto(d: Device): Promise<void> {
  const r = await d.reader.read(d.heads);
  if (r.snapshot) for (let k = 0; k < r.snapshot.parts.length; k++) for (const id of (await d.reader.part(r.snapshot, k)) as string[]) d.known.add(id);
  for (const s of r.segments) {
    for (const op of s.body.ops) {
      d.arrived.set(op.id, (d.arrived.get(op.id) ?? 0) + 1);
      d.known.add(op.id);
    }
  }
  d.heads = r.heads;
  for (const p of r.problems) {
    if (p.kind === 'gap') d.gapWords++;
    else d.otherProblems.push(`${p.kind}: ${p.words}`);
  }
}

describe('devices syncing through a file-sync engine', () => {
  for (const seed of [1, 2, 3, 4, 5, 6]) {
    it(`converges, each segment applied once (seed ${seed})`, async () => {
      const engine = new SyncedFolders({ seed, duplicateRate: 0.3, junk: seed % 2 === 0 });
      let r = seed * 7919;
      const rand = () => ((r = (r * 48271) % 2147483647) / 2147483647);
      const devices: Device[] = DEVICES.map((id) => ({
        id,
        writer: new LogWriter(engine.place(id), vault, id),
        reader: new FolderReader(engine.place(id), vault),
        heads: {},
        known: new Set(),
        arrived: new Map(),
        made: 0,
        gapWords: 0,
        otherProblems: [],
      }));
      for (let step = 0; step < 60; step++) {
        const d = devices[Math.floor(rand() * devices.length)];
        const action = rand();
        if (action < 0.45) {
          const ops = [1, 2].map(() => `${d.id[0]}${++d.made}`);
          const pending = await d.writer.prepare(d.heads[d.id], {}, ops.map((id) => ({ id, field: 'text', value: id, stamp: id, base: [] })));
          await d.writer.write(pending);
          d.heads[d.id] = { seq: pending.seq, hash: pending.hash };
          for (const id of ops) d.known.add(id);
        } else if (action < 0.55 && d.heads[d.id]) {
          // Parts of three ids: an engine delivers a snapshot's files in any order, its manifest before its parts too.
          await d.writer.snapshot(d.heads[d.id].seq, d.heads, [[...d.known].sort()], { partBytes: 20 });
          await d.writer.prune();
        } else if (action < 0.8) {
          engine.deliver(Math.ceil(rand() * 5));
        } else {
          await readInto(d);
        }
      }
      engine.deliver();
      for (const d of devices) await readInto(d);
      const all = new Set(devices.flatMap((d) => [...d.known]));
      for (const d of devices) {
        expect(d.otherProblems).toEqual([]);
        expect([...d.known].sort()).toEqual([...all].sort());
        for (const [id, n] of d.arrived) expect(n, `${id} on ${d.id[0]}`).toBe(1);
        // Its own operations never come back to it through the folder.
        expect([...d.arrived.keys()].filter((id) => id[0] === d.id[0])).toEqual([]);
      }
    });
  }
});
