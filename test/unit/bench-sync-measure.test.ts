import { describe, expect, it } from 'vitest';
import { CountingStorage, folderBytes, HeapSampler, itemTexts } from '../../bench/lib/sync/measure';
import { rng } from '../../bench/lib/perf/synthetic';
import { MemoryStorage } from '../../lib/sync/storage-memory';

const bytes = (n: number) => new Uint8Array(n).fill(7);

describe('the sync bench counts what a pass writes', () => {
  it('counts the bytes and files created, not those read, and only writes that landed', async () => {
    const s = new CountingStorage(new MemoryStorage({ createOnly: true }));
    await s.create('backstory/v/log/d/00000001.bin', bytes(300));
    await s.create('backstory/v/snap/d/00000001.bin', bytes(1200));
    expect((await s.read('backstory/v/log/d/00000001.bin')).length).toBe(300);
    // A refused write (the place holds the name already) wrote nothing.
    await expect(s.create('backstory/v/log/d/00000001.bin', bytes(50))).rejects.toThrow();
    expect({ written: s.written, files: s.files, bytesRead: s.bytesRead }).toEqual({ written: 1500, files: 2, bytesRead: 300 });
    await s.remove('backstory/v/log/d/00000001.bin');
    expect(s.removed).toBe(1);
    s.reset();
    expect({ written: s.written, files: s.files, removed: s.removed }).toEqual({ written: 0, files: 0, removed: 0 });
    expect(await s.list()).toEqual([{ path: 'backstory/v/snap/d/00000001.bin', size: 1200, stamp: expect.any(String) }]);
  });

  it('adds up every file of the folder, by kind', () => {
    const f = folderBytes([
      { path: 'backstory-vault-abc.json', size: 600 },
      { path: 'backstory/abc/devices/d1.bin', size: 120 },
      { path: 'backstory/abc/log/d1/00000001.bin', size: 5000 },
      { path: 'backstory/abc/log/d1/00000002.bin', size: 3000 },
      { path: 'backstory/abc/snap/d1/00000002.bin', size: 7000 },
    ]);
    expect(f).toEqual({ bytes: 15_720, files: 5, byKind: { header: 600, devices: 120, segments: 8000, snapshots: 7000 } });
  });
});

describe('the sync bench’s items', () => {
  const pool = [
    'We moved the launch to March. The vendor wants the signed contract first. Dana will send it on Friday.',
    'Remember that Priya is allergic to peanuts, so the team dinner should be at the Thai place on Elm Street.',
    'The staging database runs out of disk every Sunday night because the backup job keeps old snapshots around.',
    'short',
  ];

  it('are distinct, about the size asked and never above it, made of the pool’s words, and the same for a seed', () => {
    const texts = itemTexts(pool, 40, 300, rng(1));
    expect(new Set(texts).size).toBe(40);
    for (const t of texts) {
      expect(t.length).toBeLessThanOrEqual(300);
      expect(t.length).toBeGreaterThan(250);
      expect(t).not.toContain('short');
    }
    expect(itemTexts(pool, 40, 300, rng(1))).toEqual(texts);
    expect(itemTexts(pool, 40, 300, rng(2))).not.toEqual(texts);
  });

  it('says so when the pool cannot make that many distinct texts', () => {
    expect(() => itemTexts(['One sentence only, nothing else to vary it with at all.'], 5, 30, rng(1))).toThrow(/distinct texts/);
  });
});

describe('the peak heap of a pass', () => {
  it('is the highest sample above the level before the pass', () => {
    const seen = [100, 180, 150, 260, 120];
    let i = 0;
    const s = new HeapSampler(100, () => seen[Math.min(i++, seen.length - 1)]);
    for (let k = 0; k < 4; k++) s.sample();
    expect(s.stop()).toBe(160);
  });
});
