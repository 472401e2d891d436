import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import type { Embedder } from '../../lib/embed/embedder';
import { openMemoryDB, type PackRow } from '../../lib/memory/db';
import { MemoryStore } from '../../lib/memory/store';
import { LexicalIndex } from '../../lib/memory/index/lexical-index';
import { PACK_VERSION, usablePack } from '../../lib/memory/pack';
import { contentPrint } from '../../lib/memory/index/item-text';
import { textHash } from '../../lib/core/text-hash';
import { PostingReader, readVarint } from '../../lib/memory/index/posting';

/** A deterministic fake model: the vector is a hash of the text, so a changed text has a different vector. */
const fakeEmbedder: Embedder = {
  modelId: 'fake',
  dim: 8,
  backend: 'test',
  async embed(texts) {
    return texts.map((t) => {
      const v = new Float32Array(8);
      for (let i = 0; i < t.length; i++) v[i % 8] += ((t.charCodeAt(i) * 31) % 17) - 8;
      const n = Math.hypot(...v) || 1;
      return v.map((x) => x / n);
    });
  },
};

const fresh = () => openMemoryDB('pack', { indexedDB: new IDBFactory(), IDBKeyRange });

/** Everything the ranker reads for one item: vector codes and its BM25 entry. */
function snapshot(store: MemoryStore) {
  const out: Record<string, unknown> = {};
  for (const it of store.items()) {
    const v = store.view.vector(it.id);
    out[it.id] = {
      v: v ? Array.from(v).map((x) => x.toFixed(4)) : null, tf: [...(store.view.lexicalIndex.termsOf(it.id) ?? [])].sort(), asks: store.view.lexicalIndex.asks(it.id),
      decision: store.view.isDecision(it.id),
    };
  }
  return out;
}

async function seeded() {
  const db = fresh();
  const store = new MemoryStore(db, async () => fakeEmbedder);
  await store.add([
    { id: 'a', text: 'Did Alice approve the painted houses on 3 March?', people: ['Alice'], tags: ['house'] },
    { id: 'b', text: 'Budget review moved to Thursday at 10:30.', title: 'Budget' },
    { id: 'c', text: 'Plumber: call back after the weekend.', tags: ['home'] },
    { id: 'c2', text: 'We decided on oak flooring for the kitchen.', tags: ['kitchen'] },
  ], { from: 'user' });
  await store.add([{ id: 'd', text: 'Imported note, embedded later.' }], { from: 'user' }, { deferEmbedding: true });
  return { db, store };
}

describe('persisted index pack', () => {
  it('loads the same vectors and BM25 entries from the pack as from the tables', async () => {
    const { db, store } = await seeded();
    await store.savePack();
    expect(await db.packs.count()).toBe(1);
    const fromPack = new MemoryStore(db, async () => fakeEmbedder);
    await fromPack.load();
    await db.packs.clear();
    const fromRows = new MemoryStore(db, async () => fakeEmbedder);
    await fromRows.load();
    expect(snapshot(fromPack)).toEqual(snapshot(fromRows));
    expect(snapshot(fromPack)).toEqual(snapshot(store));
    expect(fromPack.view.vector('d')).toBeUndefined();
    expect(fromPack.unembedded()).toEqual(['d']);
  });

  it('uses the tables wherever the pack no longer matches them (IndexedDB stays the truth)', async () => {
    const { db, store } = await seeded();
    await store.savePack();
    // Changes the pack never saw: an edit, a deletion, a vector that arrived later, and one written by other code.
    await store.update('b', { text: 'Budget review moved to Friday.' });
    await store.remove(['c']);
    await store.embedPending();
    await db.items.put({ ...(await store.read('a'))!, text: 'Changed behind the store: tomatoes need hardening off.' });
    const reopened = new MemoryStore(db, async () => fakeEmbedder);
    await reopened.load();
    await db.packs.clear();
    const truth = new MemoryStore(db, async () => fakeEmbedder);
    await truth.load();
    expect(snapshot(reopened)).toEqual(snapshot(truth));
    expect(reopened.view.lexicalIndex.termsOf('a')?.has('tomato')).toBe(true);
    expect(reopened.view.vector('d')).toBeDefined();
    expect(await reopened.read('c')).toBeUndefined();
  });

  it('rebuilds from the tables when the stored pack is of the former layout (v1, phrases as terms) or damaged', async () => {
    const { db, store } = await seeded();
    await store.savePack();
    const current = (await db.packs.get('index'))!;
    expect(current.version).toBe(PACK_VERSION);
    // What v1 wrote: phrase pairs among the terms, counts as Uint32Array, no term sequences.
    const v1 = { ...current, version: 1, lexical: { terms: 'budget\u0000budget review\u0000review', start: new Uint32Array([0, 3]), term: new Uint32Array([0, 1, 2]), tf: new Uint32Array([1, 1, 1]), len: new Uint32Array([2]), asks: new Uint8Array([0]), threads: [null] } };
    const damaged = { ...current, lexical: { ...current.lexical, seqs: undefined, sStart: undefined } };
    for (const row of [v1, damaged]) {
      await db.packs.put(row as unknown as typeof current);
      const reopened = new MemoryStore(db, async () => fakeEmbedder);
      await reopened.load();
      expect(snapshot(reopened)).toEqual(snapshot(store));
      // Still finds a note by the two words it names side by side.
      const q = new Map([['paint', 1], ['hous', 1], ['paint hous', 1]]);
      expect(reopened.view.lexicalIndex.search(q, 3)[0]).toMatchObject({ id: 'a', matched: ['paint', 'hous', 'paint hous'] });
      await reopened.savePack();
      expect((await db.packs.get('index'))!.version).toBe(PACK_VERSION);
    }
  });

  it('refuses a pack whose numbers point outside its own tables, and rebuilds from the tables', async () => {
    const { db, store } = await seeded();
    // A long note: several passages, each with a vector and a BM25 entry of its own.
    await store.add([{ id: 'long', text: Array.from({ length: 60 }, (_, i) => `Section ${i} of the greenhouse log: seedlings watered, vents opened.`).join(' ') }], { from: 'user' });
    await store.savePack();
    const good = (await db.packs.get('index'))!;
    const l = good.lexical;
    expect(good.passages.owner.length).toBeGreaterThan(0);
    const T = l.terms.split('\u0000').length;
    const vectors = good.scales.length;
    const set = <A extends Uint8Array | Uint16Array | Uint32Array | Int32Array>(a: A, at: number, v: number): A => {
      const b = a.slice() as A;
      b[at] = v;
      return b;
    };
    // The first document's first forward entry, and the first term's posting, as the pack wrote them.
    expect(l.fPool[0]).toBeLessThan(128);
    const firstTerm = l.fPool[0] >> 1;
    const used = l.postCount.findIndex((n) => n > 1);
    const damaged: [string, typeof good][] = [
      ['a lexicon without its last term, which documents still name', { ...good, lexical: { ...l, terms: l.terms.slice(0, l.terms.lastIndexOf('\u0000')) } }],
      ['a forward entry naming another term', { ...good, lexical: { ...l, fPool: set(l.fPool, 0, (((firstTerm + 1) % T) * 2) | (l.fPool[0] & 1)) } }],
      ['a posting naming another document', { ...good, lexical: { ...l, post: set(l.post, l.postStart[used], l.post[l.postStart[used]] + 2) } }],
      ['a posting cut short', { ...good, lexical: { ...l, postCount: set(l.postCount, used, l.postCount[used] - 1) } }],
      ['a posting past the last document', { ...good, lexical: { ...l, postLast: set(l.postLast, used, l.len.length) } }],
      ['entry bounds that run backwards', { ...good, lexical: { ...l, fStart: set(l.fStart, 1, l.fStart[2] + 1) } }],
      ['posting bounds that run backwards', { ...good, lexical: { ...l, postStart: set(l.postStart, 1, l.postStart[2] + 1) } }],
      ['a sequence past its pool', { ...good, lexical: { ...l, sStart: set(l.sStart, 1, l.seqs.length + 1) } }],
      ['a vector slot past the vectors', { ...good, slots: set(good.slots, 0, vectors) }],
      ['a passage vector slot past the vectors', { ...good, passages: { ...good.passages, slot: set(good.passages.slot, 0, vectors + 3) } }],
      ['a passage of an item the pack does not hold', { ...good, passages: { ...good.passages, owner: set(good.passages.owner, 0, good.ids.length) } }],
      ['a decision of an item the pack does not hold', { ...good, decisions: Uint32Array.of(good.ids.length) }],
      ['decisions out of order', { ...good, decisions: Uint32Array.of(3, 1) }],
      ['a head of another item', { ...good, heads: good.heads.map((h, i) => (i === 1 ? { ...h, id: good.ids[0] } : h)) }],
      ['a head that is not one', { ...good, heads: good.heads.map((h, i) => (i === 1 ? ({ ...h, tags: 'kitchen' } as unknown as typeof h) : h)) }],
      ['a head written after the pack', { ...good, heads: good.heads.map((h, i) => (i === 1 ? { ...h, rev: good.rev + 1 } : h)) }],
      ['fewer content prints than items', { ...good, contents: good.contents.slice(1) }],
    ];
    expect(await usablePack(good, undefined)).toBe(true);
    for (const [what, row] of damaged) {
      expect(await usablePack(row, undefined), what).toBe(false);
      await db.packs.put(row);
      const reopened = new MemoryStore(db, async () => fakeEmbedder);
      await reopened.load();
      expect(snapshot(reopened), what).toEqual(snapshot(store));
      expect((await reopened.view.hydrate(['long']), reopened.view.passages('long')).length, what).toBe((await store.view.hydrate(['long']), store.view.passages('long')).length);
      // The store rewrites a refused pack at once, whole again.
      await reopened.savePack();
      const rewritten = (await db.packs.get('index'))!;
      expect(Array.from(rewritten.lexical.fPool), what).toEqual(Array.from(l.fPool));
      expect(Array.from(rewritten.lexical.post), what).toEqual(Array.from(l.post));
      expect(Array.from(rewritten.slots), what).toEqual(Array.from(good.slots));
    }
  });

  it('a pack says the same thing twice: each term\'s posting names exactly the documents that name the term, with their counts', async () => {
    const { db, store } = await seeded();
    await store.add([{ id: 'long', text: Array.from({ length: 60 }, (_, i) => `Section ${i} of the greenhouse log: seedlings watered, vents opened, vents closed.`).join(' ') }], { from: 'user' });
    await store.add([{ id: 'b', text: 'Budget review moved to Friday at 10:30, after the budget call.', title: 'Budget' }], { from: 'user' });
    await store.savePack();
    const l = (await db.packs.get('index'))!.lexical;
    const T = l.terms.split('\u0000').length;
    // From the documents' side: term -> "document:count" in document order.
    const fromDocs: string[][] = Array.from({ length: T }, () => []);
    const cur = { at: 0 };
    for (let d = 0; d < l.len.length; d++) {
      expect(cur.at).toBe(l.fStart[d]);
      for (let k = 0; k < l.fCount[d]; k++) {
        const x = readVarint(l.fPool, cur);
        fromDocs[Math.floor(x / 2)].push(`${d}:${x % 2 ? readVarint(l.fPool, cur) : 1}`);
      }
    }
    expect(cur.at).toBe(l.fPool.length);
    // From the postings' side.
    const r = new PostingReader();
    const fromPostings = Array.from({ length: T }, (_, t) => {
      const got: string[] = [];
      r.reset({ bytes: l.post, start: l.postStart[t], n: l.postCount[t] });
      while (r.next()) got.push(`${r.slot}:${r.tf}`);
      return got;
    });
    expect(fromPostings).toEqual(fromDocs);
    expect(fromDocs.filter((docs) => docs.some((e) => !e.endsWith(':1'))).length).toBeGreaterThan(0);
    expect(Array.from(l.postLast).every((last, t) => !fromDocs[t].length || fromDocs[t].at(-1)!.startsWith(`${last}:`))).toBe(true);
    expect(l.items.at(-1)).toBe(l.len.length);
    expect(l.len.length).toBeGreaterThan(6); // the long note has several passages
  });

  it('a start takes which notes record a decision from the pack, and still follows a change of kind since', async () => {
    const { db, store } = await seeded();
    expect(store.view.isDecision('c2')).toBe(true);
    expect(store.view.isDecision('b')).toBe(false);
    await store.savePack();
    const row = (await db.packs.get('index'))!;
    expect([...row.decisions!].map((i) => row.ids[i])).toEqual(['c2']);
    // The pack is what a start reads: its word for 'b' is taken, the text is not read again for it.
    await db.packs.put({ ...row, decisions: Uint32Array.from([row.ids.indexOf('b'), row.ids.indexOf('c2')].sort((x, y) => x - y)) });
    const fromPack = new MemoryStore(db, async () => fakeEmbedder);
    await fromPack.load();
    expect(fromPack.view.isDecision('b')).toBe(true);
    // A pack without them (as versions before it wrote) is not used: the texts are read for them.
    const { decisions: _, ...older } = row;
    await db.packs.put(older as PackRow);
    const fromOlder = new MemoryStore(db, async () => fakeEmbedder);
    await fromOlder.load();
    expect(snapshot(fromOlder)).toEqual(snapshot(store));
    // The kind changes after the pack was written (the pack's fingerprint does not hold it): evidence turned into an
    // instruction records no decision at the next start, and an instruction turned back into evidence does again.
    await db.packs.put(row);
    await store.update('c2', { kind: 'instruction' });
    const asRule = new MemoryStore(db, async () => fakeEmbedder);
    await asRule.load();
    expect(asRule.view.isDecision('c2')).toBe(false);
    await asRule.savePack();
    await asRule.update('c2', { kind: 'evidence' });
    const asEvidence = new MemoryStore(db, async () => fakeEmbedder);
    await asEvidence.load();
    expect(asEvidence.view.isDecision('c2')).toBe(true);
  });

  it('fingerprints a text as packs written before did (title, text and captions hashed as one joined text)', () => {
    // Packs on users' machines hold these numbers: a change would make every start rebuild from the tables.
    fc.assert(
      fc.property(fc.option(fc.string({ unit: 'binary' }), { nil: undefined }), fc.string({ unit: 'binary' }), fc.option(fc.string({ unit: 'binary' }), { nil: undefined }), (title, text, aux) => {
        expect(contentPrint({ title, text, aux })).toBe(textHash(`${title ?? ''}\u0000${text}\u0000${aux ?? ''}`));
      }),
      { numRuns: 300 },
    );
    expect(contentPrint({ title: 'Budget', text: 'Budget review moved to Thursday at 10:30.' })).toBe(2361259606); // what earlier versions wrote for it
  });

  it('two writes of the pack at once leave the newer indexes stored, whichever digest is taken last', async () => {
    const { db, store } = await seeded();
    await store.savePack();
    // The first write's digest is held until the second write has stored its pack.
    let release!: () => void;
    const held = new Promise<void>((ok) => (release = ok));
    const digest = crypto.subtle.digest.bind(crypto.subtle);
    const spy = vi.spyOn(crypto.subtle, 'digest').mockImplementationOnce(async (alg, data) => (await held, digest(alg, data)));
    try {
      const first = store.savePack();
      await vi.waitFor(() => expect(spy).toHaveBeenCalled());
      await store.add([{ id: 'late', text: 'Kiln firing moved to Saturday.' }], { from: 'user' });
      await store.savePack();
      release();
      await first;
    } finally {
      spy.mockRestore();
    }
    const row = (await db.packs.get('index'))!;
    expect(row.ids).toContain('late');
    expect((await db.packInfo.get('index'))?.rev).toBe(row.rev);
    expect(await usablePack(row, undefined)).toBe(true);
  });

  it('packs a memory of more distinct words than 16 bits number, and finds the last of them after a start', async () => {
    const { db, store } = await seeded();
    // 70,000 made-up words, each once: more terms than 16 bits number.
    const word = (i: number) => 'zq' + i.toString(26).replace(/./g, (c) => String.fromCharCode(97 + parseInt(c, 26))) + 'x';
    await store.add(Array.from({ length: 35 }, (_, k) => ({ id: `words-${k}`, text: Array.from({ length: 2000 }, (_, j) => word(k * 2000 + j)).join(' ') })), { from: 'user' }, { deferEmbedding: true });
    await store.savePack();
    const row = (await db.packs.get('index'))!;
    expect(row.lexical.terms.split('\u0000').length).toBeGreaterThan(0x10000);
    expect(await usablePack(row, undefined)).toBe(true);
    const reopened = new MemoryStore(db, async () => fakeEmbedder);
    await reopened.load();
    // The last words have numbers past 65,535: each is found in its own note, and only there.
    for (const i of [69_999, 65_600, 3]) {
      const hits = reopened.view.lexicalIndex.search(new Map([[word(i), 1]]), 3);
      expect(hits.map((h) => h.id), word(i)).toEqual([`words-${Math.floor(i / 2000)}`]);
    }
    expect(snapshot(reopened)).toEqual(snapshot(store));
  }, 60_000);

  it('drops a vector the table no longer has even if the pack still holds it', async () => {
    const { db, store } = await seeded();
    await store.savePack();
    await db.vectors.delete('a'); // other code deleted it; the item itself is unchanged
    const reopened = new MemoryStore(db, async () => fakeEmbedder);
    await reopened.load();
    expect(reopened.view.vector('a')).toBeUndefined();
    expect(reopened.view.vector('b')).toBeDefined();
  });

  it('exports and re-imports BM25 entries exactly', () => {
    const a = new LexicalIndex();
    a.addItem({ id: 'x', text: 'Running costs rose 12% on 3 March? Ask Bob.', title: 'Costs', tags: ['q1'], people: ['Bob'], createdAt: Date.UTC(2025, 2, 3) });
    a.addItem({ id: 'y', text: 'Painted houses', title: '', tags: [], people: [], thread: { id: 't', seq: 2 } });
    const p = a.exportDocs(['x', 'y']);
    const terms = p.terms.split('\u0000');
    const b = new LexicalIndex();
    b.loadPacked(p, terms, [0, 1], ['x', 'y']);
    for (const id of ['x', 'y']) expect([...b.termsOf(id)!]).toEqual([...a.termsOf(id)!]);
    const q = LexicalIndex.queryTerms('running costs houses');
    expect(b.search(q, 5)).toEqual(a.search(q, 5));
    expect(b.neighbour('y', 0)).toBe('y');
  });

  it('a lazily loaded BM25 index answers exactly as a freshly built one, through edits and deletions', () => {
    const words = 'alpha beta gamma delta epsilon zeta theta iota kappa lambda painted running houses budget'.split(' ');
    let seed = 3;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 4294967296);
    const doc = (i: number) => ({ id: `d${i}`, title: '', text: Array.from({ length: 12 }, () => words[Math.floor(rnd() * words.length)]).join(' ') + (i % 5 ? '.' : '?'), tags: [], people: i % 3 ? [] : ['Alice'], createdAt: Date.UTC(2025, 0, 1 + i) });
    const docs = Array.from({ length: 60 }, (_, i) => doc(i));
    const fresh = new LexicalIndex();
    for (const d of docs) fresh.addItem(d);
    const p = fresh.exportDocs(docs.map((d) => d.id));
    const loaded = new LexicalIndex();
    const keep = docs.map((_, i) => i).filter((i) => i !== 7); // an entry left out, as a stale one would be
    loaded.loadPacked(p, p.terms.split('\u0000'), keep, docs.map((d) => d.id));
    loaded.addItem(docs[7]);
    // The same edits on both.
    const added = doc(100);
    for (const ix of [fresh, loaded]) {
      ix.remove('d3');
      ix.addItem({ ...docs[10], text: 'budget houses painted again' });
      ix.addItem(added);
    }
    for (const q of ['alpha beta', 'painted houses budget', 'kappa?', 'alice lambda', 'nothing here']) {
      const terms = LexicalIndex.queryTerms(q);
      const a = fresh.search(terms, 10).map((h) => [h.id, h.score.toFixed(9)]);
      const b = loaded.search(terms, 10).map((h) => [h.id, h.score.toFixed(9)]);
      expect(new Set(b.map((x) => x.join()))).toEqual(new Set(a.map((x) => x.join())));
      for (const t of terms.keys()) {
        expect(loaded.idf(t)).toBeCloseTo(fresh.idf(t), 12);
        expect(loaded.hasTerm(t)).toBe(fresh.hasTerm(t));
      }
    }
    expect(loaded.size).toBe(fresh.size);
    expect(loaded.has('d3')).toBe(false);
    expect([...loaded.termsOf('d20')!].sort()).toEqual([...fresh.termsOf('d20')!].sort());
  });
});
