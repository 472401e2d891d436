import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { appendPosting, newPosting, PostingPool, PostingReader, MAX_TF } from '../../lib/memory/index/posting';
import { LexicalIndex } from '../../lib/memory/index/lexical-index';
import { IndexedMemory } from '../../lib/memory/index/memory-index';
import { passagesOf } from '../../lib/memory/index/item-text';
import { createItem } from '../../lib/memory/normalize';

describe('compact postings', () => {
  it('read back every slot and count written, whatever the gaps and counts', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 5_000_000 }), fc.integer({ min: 1, max: MAX_TF })), { maxLength: 200 }), (steps) => {
        const p = newPosting(1);
        const want: [number, number][] = [];
        let slot = -1;
        for (const [gap, tf] of steps) {
          slot += gap + 1;
          appendPosting(p, slot, tf);
          want.push([slot, tf]);
        }
        const r = new PostingReader().reset(p);
        const got: [number, number][] = [];
        while (r.next()) got.push([r.slot, r.tf]);
        expect(got).toEqual(want);
      }),
    );
  });

  it('a term the pool never held reads as no postings', () => {
    const pool = new PostingPool();
    pool.append(0, 3, 1);
    for (const t of [1, 5, 10_000]) {
      const r = new PostingReader().reset(pool.view(t));
      expect(r.next()).toBe(false);
      expect(pool.n(t)).toBe(0);
    }
  });

  it("one pool holds every term's postings through moves, reclaiming and trims, each read back as written", () => {
    fc.assert(
      // The generator's seeds are 1 to 2^31 - 2: 2^31 - 1 is 0 to its modulus, and the sequence would stay at 0.
      fc.property(fc.integer({ min: 1, max: 2 ** 31 - 2 }), fc.integer({ min: 1, max: 300 }), (seed, terms) => {
        let x = seed;
        const rand = (n: number) => ((x = (x * 48271) % 2147483647) % n);
        const pool = new PostingPool();
        const want: [number, number][][] = Array.from({ length: terms }, () => []);
        // Enough entries that stretches move many times and the room they leave is reclaimed.
        for (let slot = 0; slot < 40_000; slot++) {
          for (let k = rand(4); k > 0; k--) {
            const t = rand(3) ? rand(Math.min(terms, 8)) : rand(terms);
            if (want[t].at(-1)?.[0] === slot) continue;
            const tf = rand(5) ? 1 : 1 + rand(MAX_TF);
            pool.append(t, slot, tf);
            want[t].push([slot, tf]);
          }
          if (slot === 20_000) pool.trim();
        }
        const r = new PostingReader();
        for (let t = 0; t < terms; t++) {
          r.reset(pool.view(t));
          const got: [number, number][] = [];
          while (r.next()) got.push([r.slot, r.tf]);
          expect(got).toEqual(want[t]);
          expect(pool.n(t)).toBe(want[t].length);
        }
      }),
      { numRuns: 8 },
    );
  });

  it('an item repeating a word hundreds of times among thousands of distinct words keeps its counts and phrases', () => {
    const idx = new LexicalIndex();
    // Enough distinct words that term ids take three bytes, and counts above a byte.
    const filler = Array.from({ length: 20_000 }, (_, i) => `w${i.toString(36)}x`).join(' ');
    idx.addItem({ id: 'a', title: '', text: filler, tags: [], people: [] });
    // One passage (two-letter words are a word piece each), a count above what one byte holds.
    idx.addItem({ id: 'b', title: '', text: `kiln zo ${'ab '.repeat(200)}`, tags: [], people: [] });
    const terms = idx.termsOf('b')!;
    expect(terms.get('ab')).toBe(200);
    expect(terms.get('zo')).toBe(1);
    expect(idx.docHas('b', 'kiln')).toBe(true);
    expect(idx.docHas('b', 'w0x')).toBe(false);
    expect(idx.termsOf('a')!.size).toBe(20_000);
    const hits = idx.search(new Map([['zo ab', 1]]), 5);
    expect(hits.map((h) => h.id)).toEqual(['b']);
    expect(new Set(idx.holders('wfffx'))).toEqual(new Set(['a']));
    expect(idx.search(new Map([['wfffx', 1]]), 5).map((h) => h.id)).toEqual(['a']);
    // The same read back from the store's pack (its loader writes the bytes itself), and still taking edits.
    const p = idx.exportDocs(['a', 'b']);
    const loaded = new LexicalIndex();
    loaded.loadPacked(p, p.terms.split('\u0000'), [0, 1], ['a', 'b']);
    expect(loaded.termsOf('b')).toEqual(terms);
    expect(loaded.termsOf('a')).toEqual(idx.termsOf('a'));
    expect(loaded.search(new Map([['zo ab', 1]]), 5)).toEqual(hits);
    expect(loaded.search(new Map([['wfffx', 1]]), 5)).toEqual(idx.search(new Map([['wfffx', 1]]), 5));
    for (const x of [idx, loaded]) x.addItem({ id: 'c', title: '', text: 'wfffx kiln ab ab', tags: [], people: [] });
    expect(loaded.search(new Map([['wfffx', 1], ['ab', 1]]), 5)).toEqual(idx.search(new Map([['wfffx', 1], ['ab', 1]]), 5));
  });
});

describe('giving back unused room', () => {
  const words = 'budget kiln pottery class hiring offer invoice travel garden recipe deploy review'.split(' ');
  const note = (i: number) => ({
    id: `n${i}`,
    title: `note ${i}`,
    // Every fifth note is long (several passages).
    text: Array.from({ length: i % 5 === 0 ? 700 : 30 }, (_, k) => words[(i * 7 + k * 3) % words.length]).join(' ') + '.',
    tags: [],
    people: i % 3 ? [] : ['Alice'],
    createdAt: Date.UTC(2025, 0, 1 + i),
  });
  const vec = (i: number, k: number) => Float32Array.from({ length: 16 }, (_, d) => Math.sin(i * 13 + k * 5 + d));
  const build = (n: number) => {
    const mem = new IndexedMemory();
    for (let i = 0; i < n; i++) {
      const item = createItem(note(i), Date.UTC(2025, 6, 1));
      mem.put(item, passagesOf(item).map((_, k) => vec(i, k)));
    }
    return mem;
  };
  const answers = (mem: IndexedMemory) =>
    JSON.stringify([
      mem.lexicalIndex.search(new Map([['kiln', 1], ['potteri class', 2], ['@alic', 0.5]]), 50),
      [...mem.denseScores([vec(3, 0)], [1], 40)],
      [...mem.items()].map((it) => [...(mem.lexicalIndex.termsOf(it.id) ?? [])]),
    ]);

  it('a trimmed memory answers as before and keeps taking items', () => {
    const mem = build(300);
    const before = answers(mem);
    mem.trim();
    expect(answers(mem)).toBe(before);
    for (let i = 300; i < 400; i++) {
      const item = createItem(note(i), Date.UTC(2025, 6, 1));
      mem.put(item, passagesOf(item).map((_, k) => vec(i, k)));
    }
    mem.delete('n7');
    const fresh = build(400);
    fresh.delete('n7');
    expect(answers(mem)).toBe(answers(fresh));
  });
});
