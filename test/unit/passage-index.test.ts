/**
 * A long item is indexed by passages: a vector and a BM25 document for each part that fits the model's window, so
 * a query matching only its fifth part finds it. Passages are derived, the memory file does not change, an old pack
 * or a row made before passages is rebuilt, and a stopped indexing run leaves the rest waiting.
 */
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Embedder } from '../../lib/embed/embedder';
import { openMemoryDB } from '../../lib/memory/db';
import { MemoryStore } from '../../lib/memory/store';
import { LexicalIndex } from '../../lib/memory/index/lexical-index';
import { IndexedMemory } from '../../lib/memory/index/memory-index';
import { createItem } from '../../lib/memory/normalize';
import { splitPassages } from '../../lib/memory/index/passages';
import { PACK_KEY } from '../../lib/memory/pack';
import { longNote } from './rank-fixtures';

const DIM = 512;
/** Words a fake model reads of a text: like the real one, it sees only the start of a long text. */
const WINDOW_WORDS = 100;

/** The set of words (of four letters or more) hashed into 512 dimensions, read from the text's first WINDOW_WORDS words only. */
function bag(text: string): Float32Array {
  const v = new Float32Array(DIM);
  for (const w of (text.toLowerCase().match(/[a-z]+/g) ?? []).slice(0, WINDOW_WORDS)) {
    if (w.length < 4) continue;
    let h = 7;
    for (let i = 0; i < w.length; i++) h = (h * 31 + w.charCodeAt(i)) >>> 0;
    v[h % DIM] = 1;
  }
  const n = Math.hypot(...v) || 1;
  return v.map((x) => x / n);
}

function windowedEmbedder(opts: { failAfter?: number } = {}): Embedder & { texts: number } {
  const e = {
    modelId: 'fake-window',
    dim: DIM,
    backend: 'test',
    texts: 0,
    async embed(texts: string[]) {
      if (opts.failAfter !== undefined && e.texts + texts.length > opts.failAfter) throw new Error('worker stopped');
      e.texts += texts.length;
      return texts.map(bag);
    },
  };
  return e;
}


const fresh = () => openMemoryDB('passages', { indexedDB: new IDBFactory(), IDBKeyRange });

async function seeded(embedder: Embedder = windowedEmbedder()) {
  const db = fresh();
  const store = new MemoryStore(db, async () => embedder);
  await store.add([
    { id: 'long', text: longNote(), title: 'Trip and house notes' },
    { id: 'river', text: 'The stream behind the house floods every spring after the rains.' },
    { id: 'guide', text: 'Our guide recommended good boots for the trip.' },
    { id: 'dawn', text: 'Dawn walks are the best part of the holiday.' },
  ], { from: 'user' });
  return { db, store, embedder };
}

const query = () => bag('zebra migration, Mara river, dawn, guide Joseph');

describe('passages in the index', () => {
  it('splits the note into passages with the evidence in the fifth', () => {
    const text = longNote();
    const ps = splitPassages(text);
    expect(ps.length).toBeGreaterThanOrEqual(7);
    const at = ps.findIndex((p) => text.slice(p.start, p.end).includes('zebra'));
    expect(at).toBe(4);
  });

  it('finds a long item by a query that matches only its fifth passage, by meaning and by words', async () => {
    const { store } = await seeded();
    const dense = [...store.view.denseScores([query()], [1])].sort((a, b) => b[1] - a[1]);
    expect(dense[0][0]).toBe('long');
    const parts = store.view.passageScores('long', [query()], [1]);
    expect(parts.length).toBe((await store.view.hydrate(['long']), store.view.passages('long')).length);
    expect(parts.indexOf(Math.max(...parts))).toBe(4);
    const hits = store.view.lexicalIndex.search(LexicalIndex.queryTerms('zebra migration'), 5);
    expect(hits[0]).toMatchObject({ id: 'long', passages: [{ part: 4 }] });
    // The item is one item: listed once, its words and thread answered for the item as a whole.
    expect(store.view.lexicalIndex.termsOf('long')?.has('zebra')).toBe(true);
    expect(store.view.lexicalIndex.docHas('long', 'garden')).toBe(true);
    expect([...store.view.lexicalIndex.holders('zebra')]).toEqual(['long']);
  });

  it('stores one row per item, the memory file unchanged: passages are derived, never items', async () => {
    const { db, store } = await seeded();
    expect(await db.items.count()).toBe(4);
    expect(store.size).toBe(4);
    const row = await db.vectors.get('long');
    expect(row?.passages?.length).toBe((await store.view.hydrate(['long']), store.view.passages('long')).length - 1);
    expect((await db.vectors.get('river'))?.passages).toBeUndefined();
  });

  it('loads passages back from the pack exactly as from the tables', async () => {
    const { db, store, embedder } = await seeded();
    await store.savePack();
    const fromPack = new MemoryStore(db, async () => embedder);
    await fromPack.load();
    expect(fromPack.unembedded()).toEqual([]);
    const scores = (s: MemoryStore) => s.view.passageScores('long', [query()], [1]).map((x) => x.toFixed(4));
    expect(scores(fromPack)).toEqual(scores(store));
    const q = LexicalIndex.queryTerms('zebra migration garden');
    // Scores to 10 digits: the pack's term order sums the same terms in another order.
    const hits = (s: MemoryStore) => JSON.stringify(s.view.lexicalIndex.search(q, 5), (k, v) => (typeof v === 'number' && k === 'score' ? v.toFixed(10) : v));
    expect(hits(fromPack)).toEqual(hits(store));
  });

  it('rebuilds from the tables a pack of the version before passages, never reading it as passages', async () => {
    const { db, store, embedder } = await seeded();
    await store.savePack();
    const current = (await db.packs.get(PACK_KEY))!;
    // What v3 wrote: one BM25 entry and one vector per item, no passages.
    const { passages: _p, ...rest } = current;
    const v3 = { ...rest, version: 3, lexical: { ...current.lexical, items: undefined } };
    await db.packs.put(v3 as unknown as typeof current);
    const reopened = new MemoryStore(db, async () => embedder);
    await reopened.load();
    expect(reopened.view.lexicalIndex.search(LexicalIndex.queryTerms('zebra migration'), 5)[0]).toMatchObject({ id: 'long', passages: [{ part: 4 }] });
    expect(reopened.view.passageScores('long', [query()], [1]).length).toBe((await store.view.hydrate(['long']), store.view.passages('long')).length);
    await reopened.savePack();
    expect((await db.packs.get(PACK_KEY))!.version).toBe(current.version);
  });

  it('embeds again an item whose row was made before passages (one vector for the whole text)', async () => {
    const { db, embedder } = await seeded();
    const row = (await db.vectors.get('long'))!;
    await db.vectors.put({ id: 'long', model: row.model, vector: row.vector });
    await db.packs.clear();
    const reopened = new MemoryStore(db, async () => embedder);
    await reopened.load();
    expect(reopened.unembedded()).toEqual(['long']);
    await reopened.embedPending();
    expect(reopened.unembedded()).toEqual([]);
    expect((await db.vectors.get('long'))?.passages?.length).toBe((await reopened.view.hydrate(['long']), reopened.view.passages('long')).length - 1);
  });

  it('leaves an item waiting when indexing stops in the middle of its passages, and finishes it on the next run', async () => {
    const db = fresh();
    const stopping = windowedEmbedder({ failAfter: 3 });
    const store = new MemoryStore(db, async () => stopping);
    await store.add([{ id: 'long', text: longNote() }, { id: 'short', text: 'A short note about boots.' }], { from: 'user' }, { deferEmbedding: true });
    await expect(store.embedPending(undefined, 1)).rejects.toThrow('worker stopped');
    expect(store.unembedded()).toContain('long');
    expect(await db.vectors.get('long')).toBeUndefined();
    const restarted = new MemoryStore(db, async () => windowedEmbedder());
    await restarted.load();
    expect(restarted.unembedded()).toContain('long');
    await restarted.embedPending();
    expect(restarted.unembedded()).toEqual([]);
    expect(restarted.view.passageScores('long', [query()], [1]).length).toBe((await restarted.view.hydrate(['long']), restarted.view.passages('long')).length);
  });

  it("never lets an id stand for another item's passage: U+0000, which separates them in the index, is dropped from ids", async () => {
    const { store } = await seeded();
    const [planted] = await store.add([{ id: 'long\u00004', text: 'A note about the money for the trip.' }], { from: 'user' });
    expect(planted.id).toBe('long4');
    const parts = store.view.passageScores('long', [query()], [1]);
    expect(parts.indexOf(Math.max(...parts))).toBe(4);
    expect(store.view.lexicalIndex.search(LexicalIndex.queryTerms('zebra migration'), 5)[0]).toMatchObject({ id: 'long', passages: [{ part: 4 }] });
    expect([...store.view.lexicalIndex.holders([...LexicalIndex.queryTerms('money').keys()][0])]).toEqual(['long4']);
  });

  it('scores a long item by its best passage and lists the passages that matched, as the passages indexed one by one', () => {
    const words = 'zebra migration river garden shed boots invoice kiln travel recipe'.split(' ');
    let several = 0;
    const sentence = fc.array(fc.constantFrom(...words, 'the', 'and', 'notes'), { minLength: 4, maxLength: 14 }).map((ws) => ws.join(' ') + '. ');
    // Short notes and notes of two to four passages.
    const text = fc.oneof(fc.array(sentence, { minLength: 1, maxLength: 5 }), fc.array(sentence, { minLength: 30, maxLength: 80, size: 'max' })).map((ss) => ss.join(''));
    fc.assert(
      fc.property(fc.array(text, { minLength: 1, maxLength: 6 }), fc.subarray(words, { minLength: 1, maxLength: 4 }), (texts, ask) => {
        const idx = new LexicalIndex();
        const flat = new LexicalIndex();
        texts.forEach((t, i) => {
          idx.addItem({ id: `i${i}`, text: t, title: '', tags: [], people: [] });
          splitPassages(t).forEach((p, k) => flat.addItem({ id: `i${i}#${k}`, text: t.slice(p.start, p.end), title: '', tags: [], people: [] }));
        });
        const q = LexicalIndex.queryTerms(ask.join(' '));
        const byItem = new Map<string, { score: number; matched: Set<string>; parts: Map<number, number> }>();
        for (const h of flat.search(q, 1000)) {
          const [id, k] = h.id.split('#');
          const e = byItem.get(id) ?? { score: 0, matched: new Set<string>(), parts: new Map<number, number>() };
          e.score = Math.max(e.score, h.score);
          for (const m of h.matched) e.matched.add(m);
          e.parts.set(Number(k), h.score);
          byItem.set(id, e);
        }
        const hits = idx.search(q, 1000);
        several += hits.filter((h) => h.passages).length;
        expect(hits.map((h) => h.id).sort()).toEqual([...byItem.keys()].sort());
        for (let i = 1; i < hits.length; i++) expect(hits[i].score).toBeLessThanOrEqual(hits[i - 1].score);
        for (const h of hits) {
          const e = byItem.get(h.id)!;
          expect(h.score).toBeCloseTo(e.score, 9);
          expect(new Set(h.matched)).toEqual(e.matched);
          if (h.passages) expect(new Map(h.passages.map((p) => [p.part, p.score]))).toEqual(e.parts);
          else expect([...e.parts.keys()]).toEqual([0]);
        }
      }),
      { numRuns: 150 },
    );
    expect(several).toBeGreaterThan(50); // long items were searched, not only short ones
  });

  it('says which items hold a word or a person, long items by any passage, as asking each item does', () => {
    const words = 'migration river garden shed boots invoice travel recipe'.split(' ');
    // Rare words, that a long note may hold only in its last passage.
    const rare = ['zebra', 'kiln'];
    const sentence = fc.array(fc.constantFrom(...words, 'the', 'and', 'notes'), { minLength: 4, maxLength: 14 }).map((ws) => ws.join(' ') + '. ');
    const tail = fc.subarray(rare).map((ws) => ws.join(' ') + '.');
    const short = fc.tuple(fc.array(sentence, { minLength: 1, maxLength: 5 }), tail).map(([ss, t]) => ss.join('') + t);
    const long = fc.tuple(fc.array(sentence, { minLength: 30, maxLength: 80, size: 'max' }), tail).map(([ss, t]) => ss.join('') + t);
    const note = fc.record({ text: fc.oneof(short, long), people: fc.subarray(['Alice', 'Bob'], { maxLength: 2 }), removed: fc.boolean() });
    let inLaterPassage = 0;
    fc.assert(
      fc.property(fc.array(note, { minLength: 1, maxLength: 8 }), fc.subarray([...words, '@alic', '@bob'], { maxLength: 2 }), fc.constantFrom(...rare), (notes, some, one) => {
        const asked = [...some, one];
        const idx = new LexicalIndex();
        notes.forEach((n, i) => idx.addItem({ id: `i${i}`, text: n.text, title: '', tags: [], people: n.people }));
        notes.forEach((n, i) => n.removed && idx.remove(`i${i}`));
        const terms = asked.map((w) => (w.startsWith('@') ? w : [...LexicalIndex.queryTerms(w).keys()][0]));
        const holds = idx.holdingAny(terms);
        notes.forEach((n, i) => {
          const id = `i${i}`;
          expect(holds(idx.docSlot(id))).toBe(terms.some((t) => idx.docHas(id, t)));
          const first = n.text.slice(0, splitPassages(n.text)[0].end);
          if (!n.removed && holds(idx.docSlot(id)) && !terms.some((t) => LexicalIndex.queryTerms(first).has(t) || t.startsWith('@'))) inLaterPassage++;
        });
        expect(holds(idx.docSlot('unknown'))).toBe(false);
      }),
      // Enough draws that the count below is not a coin toss: 150 gave exactly 20 once.
      { numRuns: 400 },
    );
    expect(inLaterPassage).toBeGreaterThan(20); // items holding the word only past their first passage were asked about
  });

  it('splits an edited item by its new text: a note that fit one passage and grew, and back', () => {
    const mem = new IndexedMemory();
    const medium = 'The garden shed needs a new roof before winter. '.repeat(8).trim(); // counted, and found to fit
    const put = (text: string) => mem.put(createItem({ id: 'note', text, title: '', kind: 'evidence' }, Date.UTC(2025, 6, 1)));
    put(medium);
    expect(mem.passages('note')).toEqual([{ start: 0, end: medium.length }]);
    expect(mem.passages('note')).toEqual([{ start: 0, end: medium.length }]);
    put(longNote());
    expect(mem.passages('note')).toEqual(splitPassages(longNote()));
    put(`${medium} And the gutters.`);
    expect(mem.passages('note')).toEqual([{ start: 0, end: medium.length + ' And the gutters.'.length }]);
  });

  it('keeps finding a passage after the index compacts its dead slots', () => {
    const idx = new LexicalIndex();
    idx.addItem({ id: 'long', text: longNote(), title: '', tags: [], people: [] });
    for (let i = 0; i < 1100; i++) idx.addItem({ id: `n${i}`, text: `Short note ${i} about boots.`, title: '', tags: [], people: [] });
    for (let i = 0; i < 1100; i++) idx.remove(`n${i}`);
    idx.addItem({ id: 'after', text: 'A zebra drawing for the kitchen.', title: '', tags: [], people: [] });
    const hits = idx.search(LexicalIndex.queryTerms('zebra migration Mara'), 5);
    expect(hits[0]).toMatchObject({ id: 'long', passages: [{ part: 4 }] });
    expect(hits.map((h) => h.id)).toEqual(['long', 'after']);
  });

  it('answers for each long item alone as it is searched between removals, re-adds and compactions', () => {
    const idx = new LexicalIndex();
    const note = (k: number) => longNote().replace('zebra', `zebra${k}`);
    const search = () => idx.search(LexicalIndex.queryTerms('zebra migration Mara'), 50);
    const check = (live: number[]) => {
      const hits = search();
      // Every live long item once, with its own fifth passage; none of a removed one.
      expect(hits.filter((h) => h.passages).map((h) => h.id).sort()).toEqual(live.map((k) => `long${k}`).sort());
      for (const h of hits) if (h.passages) expect(h.passages.map((p) => p.part)).toContain(4);
    };
    for (let k = 0; k < 2; k++) idx.addItem({ id: `long${k}`, text: note(k), title: '', tags: [], people: [] });
    check([0, 1]);
    for (let k = 2; k < 4; k++) idx.addItem({ id: `long${k}`, text: note(k), title: '', tags: [], people: [] });
    check([0, 1, 2, 3]);
    idx.remove('long1');
    check([0, 2, 3]);
    idx.addItem({ id: 'long1', text: note(1), title: '', tags: [], people: [] });
    idx.remove('long2');
    check([0, 1, 3]);
    for (let i = 0; i < 1100; i++) idx.addItem({ id: `n${i}`, text: `Short note ${i} about boots.`, title: '', tags: [], people: [] });
    for (let i = 0; i < 1100; i++) idx.remove(`n${i}`);
    idx.addItem({ id: 'long2', text: note(2), title: '', tags: [], people: [] });
    check([0, 1, 2, 3]);
  });
});
