import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { LexicalIndex } from '../../lib/memory/index/lexical-index';
import { SequencePool, SequenceReader } from '../../lib/memory/index/term-sequence';
import { terms as toTerms } from '../../lib/memory/index/tokenize';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
/** Heap and native memory in use once everything unreachable is collected. */
const heldBytes = () => {
  gc();
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.external;
};

describe('term sequences', () => {
  it('read back every term of a body, in order, whatever the list of distinct terms holds', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.integer({ min: 0, max: 70_000 }), { maxLength: 300 }), { maxLength: 8 }),
        fc.integer({ min: 0, max: 5 }),
        (bodies, skip) => {
          const pool = new SequencePool();
          const placeOf = new Uint32Array(70_001);
          const written = bodies.map((seq) => {
            // The document's list: its terms in first-seen order, some left out (as a damaged pack could).
            const list = [...new Set(seq)].filter((_, i) => skip === 0 || i % (skip + 1) !== 0);
            list.forEach((t, i) => (placeOf[t] = i + 1));
            const at = pool.append(seq, placeOf, list.length);
            list.forEach((t) => (placeOf[t] = 0));
            return { at, seq, list };
          });
          const r = new SequenceReader();
          for (const { at, seq, list } of written) {
            r.reset(pool.bytes, at, seq.length, list.length);
            const got: number[] = [];
            while (r.remaining) {
              const place = r.next();
              got.push(place < 0 ? r.outside : list[place]);
            }
            expect(got).toEqual(seq);
          }
        },
      ),
    );
  });
});

describe('phrases over the compact index', () => {
  const vocab = 'kiln pottery class glaze wheel clay fire studio budget hiring'.split(' ');
  const body = fc.array(fc.constantFrom(...vocab), { minLength: 1, maxLength: 60 }).map((ws) => ws.join(' '));
  /** How often `a` is directly followed by `b` among the body's terms (stop words do not break a pair). */
  const pairs = (text: string, a: string, b: string) => {
    const ts = toTerms(text);
    let n = 0;
    for (let i = 1; i < ts.length; i++) if (ts[i - 1] === a && ts[i] === b) n++;
    return n;
  };

  it('find exactly the items whose body holds the phrase, built, edited, compacted and loaded from the pack', () => {
    fc.assert(
      fc.property(fc.array(body, { minLength: 1, maxLength: 30 }), fc.constantFrom(...vocab), fc.constantFrom(...vocab), (texts, x, y) => {
        const idx = new LexicalIndex();
        const items = texts.map((text, i) => ({ id: `n${i}`, title: vocab[i % vocab.length], text, tags: [], people: [] }));
        for (const it of items) idx.addItem(it);
        // Edits leave dead slots behind; enough of them compacts the index.
        for (let round = 0; round * items.length <= 1100; round++) for (const it of items) idx.addItem(it);
        const [a, b] = [toTerms(x)[0], toTerms(y)[0]];
        const want = items.filter((it) => pairs(it.text, a, b) > 0).map((it) => it.id).sort();
        const found = (i: LexicalIndex) => i.search(new Map([[`${a} ${b}`, 1]]), 100).map((h) => h.id).sort();
        expect(found(idx)).toEqual(want);
        const p = idx.exportDocs(items.map((it) => it.id));
        const loaded = new LexicalIndex();
        loaded.loadPacked(p, p.terms.split('\u0000'), items.map((_, i) => i), items.map((it) => it.id));
        expect(found(loaded)).toEqual(want);
        expect(loaded.exportDocs(items.map((it) => it.id))).toEqual(p);
      }),
      { numRuns: 60 },
    );
  });

  it('find a phrase with one rare word among many items holding the common one, and only in that order', () => {
    const idx = new LexicalIndex();
    const ids: string[] = [];
    const add = (id: string, text: string) => {
      idx.addItem({ id, title: '', text, tags: [], people: [] });
      ids.push(id);
    };
    for (let i = 0; i < 300; i++) add(`c${i}`, `The class met on day ${i} and the class was full.`);
    add('yes1', 'Signed up for the pottery class on Tuesday.');
    add('yes2', 'Pottery classes again: the pottery class moved to the annex.');
    add('no1', 'The class on pottery was cancelled.');
    add('no2', 'Class pottery, an odd order of words.');
    const found = (i: LexicalIndex) => i.search(new Map([['potteri class', 1]]), 20).map((h) => [h.id, h.score.toFixed(6)]);
    expect(found(idx).map(([id]) => id).sort()).toEqual(['yes1', 'yes2']);
    const p = idx.exportDocs(ids);
    const loaded = new LexicalIndex();
    loaded.loadPacked(p, p.terms.split('\u0000'), ids.map((_, i) => i), ids);
    expect(found(loaded)).toEqual(found(idx));
  });
});

describe('what the index holds', () => {
  it('a rare word costs the index tens of bytes, not hundreds', () => {
    // Most of a memory's vocabulary is words that occur once or twice (names, codes, typos).
    const notes = Array.from({ length: 4000 }, (_, i) => ({ id: `n${i}`, title: '', text: Array.from({ length: 10 }, (_, k) => `zq${(i * 10 + k).toString(36)}`).join(' '), tags: [], people: [] }));
    const idx = new LexicalIndex();
    const before = heldBytes();
    for (const n of notes) idx.addItem(n);
    idx.trim();
    const perWord = (heldBytes() - before) / 40_000;
    expect(idx.termsOf('n0')?.size).toBe(10);
    // Its string, its dictionary entry and its item's entries take about 120 bytes; a posting object of its own took 250 more.
    expect(perWord).toBeLessThan(200);
  });

  it('a long note costs the index a few bytes a word', () => {
    const vocab = Array.from({ length: 3000 }, (_, i) => `w${(i * 7919).toString(36)}`);
    let seed = 1;
    const next = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    const notes = Array.from({ length: 1000 }, (_, i) => ({ id: `n${i}`, title: '', text: Array.from({ length: 600 }, () => vocab[Math.floor(next() ** 2 * vocab.length)]).join(' '), tags: [], people: [] }));
    const idx = new LexicalIndex();
    for (const w of vocab) idx.addItem({ id: w, title: '', text: w, tags: [], people: [] }); // the dictionary, not measured
    idx.trim();
    const before = heldBytes();
    for (const n of notes) idx.addItem(n);
    idx.trim();
    const perWord = (heldBytes() - before) / (1000 * 600);
    expect(idx.search(LexicalIndex.queryTerms(notes[5].text.split(' ').slice(10, 12).join(' ')), 5).length).toBeGreaterThan(0);
    // Per word of the body: its place in the phrase sequence (a bit or a few), and for each distinct word of a
    // passage its entry in the item's list and in the word's postings.
    expect(perWord).toBeLessThan(4.2);
  });
});
