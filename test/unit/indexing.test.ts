import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Embedder } from '../../lib/embed/embedder';
import { packVectors, unpackVectors } from '../../lib/embed/offscreen-wire';
import { openMemoryDB } from '../../lib/memory/db';
import { MemoryStore } from '../../lib/memory/store';
import { inBatches } from '../../lib/memory/embed-batches';

const freshDb = () => openMemoryDB('indexing', { indexedDB: new IDBFactory(), IDBKeyRange });

/** A fake model that records each batch it was given; `gate` holds a batch until released. */
/** The fake model's vector for a text: a function of its length and last character. */
const fakeVector = (t: string) => Float32Array.from([t.length, 1, t.charCodeAt(t.length - 1) % 7, 0]).map((x, _i, a) => x / Math.hypot(...a));

function recordingEmbedder(name: string, opts: { failAfter?: number; gate?: () => Promise<void>; parallel?: number } = {}) {
  const batches: string[][] = [];
  let started = 0;
  const embedder: Embedder = {
    modelId: 'fake',
    dim: 4,
    backend: name,
    parallel: opts.parallel,
    async embed(texts) {
      if (opts.failAfter !== undefined && started++ >= opts.failAfter) throw new Error('Receiving end does not exist.');
      await opts.gate?.();
      batches.push(texts);
      return texts.map(fakeVector);
    },
  };
  return { embedder, batches };
}

describe('vectors on the wire between the service worker and the offscreen document', () => {
  it('arrive bit-identical, and a short message is refused with the reason', () => {
    const vs = [Float32Array.from([0.1, -0.2, 1e-30, 3.4e38]), Float32Array.from([-0, 0.333333, Math.PI, -1])];
    const back = unpackVectors(packVectors(vs, 4), 2, 4);
    expect(back.map((v) => Array.from(new Uint32Array(v.buffer)))).toEqual(vs.map((v) => Array.from(new Uint32Array(v.slice().buffer))));
    expect(() => unpackVectors(packVectors(vs, 4), 3, 4)).toThrow('expected 3 vectors of 4 dimensions, got 32 bytes');
    expect(() => packVectors([new Float32Array(3)], 4)).toThrow('vector 0 has 3 dimensions, expected 4');
  });

  it('survive a batch larger than one string conversion chunk', () => {
    const vs = Array.from({ length: 64 }, (_, i) => Float32Array.from({ length: 384 }, (_, d) => Math.sin(i * 384 + d)));
    const back = unpackVectors(packVectors(vs, 384), 64, 384);
    expect(back[63][383]).toBe(vs[63][383]);
    expect(back[17]).toEqual(vs[17]);
  });
});

describe('background indexing (MemoryStore.embedPending)', () => {
  afterEach(() => void vi.useRealTimers());

  it('reads the texts of a large memory a window at a time: the first vectors come before most texts are read', async () => {
    const db = freshDb();
    const n = 2_500;
    // m2400 has m7's words: the vectors made for m7 in the first window are m2400's too, not made again.
    const text = (i: number) => `Memory ${i === 2400 ? 7 : i}: ${'word '.repeat(20 + ((i === 2400 ? 7 : i) % 30))}`;
    await new MemoryStore(db, async () => null).add(
      Array.from({ length: n }, (_, i) => ({ id: `m${i}`, text: text(i) })), { from: 'user' }, { deferEmbedding: true });
    // As after a worker start (or a first sync): nothing held but the items' heads; texts are read from IndexedDB.
    const read = vi.spyOn(db.items, 'bulkGet');
    let readBeforeFirst: number | undefined;
    const made: string[] = [];
    const engine: Embedder = {
      modelId: 'fake', dim: 4, backend: 'offscreen',
      async embed(texts) {
        readBeforeFirst ??= read.mock.calls.reduce((sum, [ids]) => sum + ids.length, 0);
        made.push(...texts);
        return texts.map(fakeVector);
      },
    };
    const store = new MemoryStore(db, async () => engine, async () => engine);
    const totals: number[] = [];
    expect(await store.embedPending((_, total) => totals.push(total), 16)).toBe(n);
    expect(store.unembedded()).toEqual([]);
    // All of a 100k memory's texts at once held the worker past 500 MB through a run.
    expect(readBeforeFirst).toBeLessThanOrEqual(1_000);
    expect(new Set(totals)).toEqual(new Set([n]));
    expect(made.filter((t) => t.startsWith('Memory 7:'))).toHaveLength(1);
    expect(made).toHaveLength(n - 1);
  });

  it('embeds with the indexing engine, shortest texts first so each batch pads little', async () => {
    const own = recordingEmbedder('worker');
    const engine = recordingEmbedder('offscreen');
    const store = new MemoryStore(freshDb(), async () => own.embedder, async () => engine.embedder);
    const lengths = [90, 12, 300, 45, 7, 150, 60, 33, 240, 18, 75, 120];
    await store.add(lengths.map((n, i) => ({ id: `n${i}`, text: 'x'.repeat(n) })), { from: 'user' }, { deferEmbedding: true });
    expect(await store.embedPending(undefined, 4)).toBe(12);
    expect(own.batches).toEqual([]);
    expect(store.indexBackend).toBe('offscreen');
    const sizes = engine.batches.map((b) => b.map((t) => t.length));
    expect(sizes.flat()).toHaveLength(12);
    expect(sizes.flat()).toEqual([...sizes.flat()].sort((a, b) => a - b));
    expect(sizes[0].every((n) => n < 40)).toBe(true); // the four shortest notes went together
    expect(store.unembedded()).toEqual([]);
  });

  it('batches texts of like length from an import of chat turns and long answers, so little of the work is padding', async () => {
    const engine = recordingEmbedder('offscreen');
    const store = new MemoryStore(freshDb(), async () => engine.embedder);
    // An export as real ones are: short turns, and long answers split into passages whose last one is short.
    const words = (n: number, w: string) => Array.from({ length: n }, (_, k) => `${w}${k % 10}`).join(' ');
    const sentences = (n: number) => Array.from({ length: n }, (_, k) => `${words(14, 'point')} ${k}.`).join(' ');
    const notes = Array.from({ length: 160 }, (_, i) => ({ id: `n${i}`, text: `${i % 4 === 3 ? sentences(14 + (i % 7) * 3) : words(4 + ((i * 37) % 60), 'turn')} n${i}` }));
    await store.commitImport(notes, { importId: 'a', provenance: { from: 'import', trusted: false } });
    await store.embedPending(undefined, 8);
    expect(store.unembedded()).toEqual([]);
    // The model pads each batch to its longest text: words stand for its word pieces here.
    const len = (t: string) => t.split(' ').length;
    const real = engine.batches.flat().reduce((s, t) => s + len(t), 0);
    const padded = engine.batches.reduce((s, b) => s + b.length * Math.max(...b.map(len)), 0);
    expect(engine.batches.flat().length).toBeGreaterThan(notes.length); // long answers gave several texts
    expect(padded / real).toBeLessThan(1.1);
  });

  it("sorts by the model's own count of word pieces, the worker model's when the indexing engine has no tokenizer", async () => {
    // Words the estimate takes for several pieces each and the tokenizer (here) for one, and the other way round:
    // ordered by the estimate, the long words would go last and the batches would mix short and long counts.
    const texts = [
      ...Array.from({ length: 6 }, (_, i) => `${'abcdefghij'.repeat(6)}${i} ${'klmnopqrst'.repeat(6)}`), // 2 words
      ...Array.from({ length: 6 }, (_, i) => `a b c d e f g h i j k l ${i}`), // 13 words
      ...Array.from({ length: 6 }, (_, i) => `${'uvwxyz'.repeat(12)} ${i}`), // 2 words
    ];
    const words = (t: string) => t.split(' ').length;
    const counted: string[][] = [];
    for (const where of ['engine', 'worker'] as const) {
      const own = recordingEmbedder('worker');
      const engine = recordingEmbedder('offscreen');
      const counter = where === 'engine' ? engine : own;
      Object.assign(counter.embedder, { countPieces: (ts: string[]) => (counted.push(ts), ts.map(words)) });
      const store = new MemoryStore(freshDb(), async () => own.embedder, async () => engine.embedder);
      await store.add(texts.map((text, i) => ({ id: `n${i}`, text })), { from: 'user' }, { deferEmbedding: true });
      await store.embedPending(undefined, 6);
      const counts = engine.batches.map((b) => b.map(words));
      expect(counts, where).toEqual([[2, 2, 2, 2, 2, 2], [2, 2, 2, 2, 2, 2], [13, 13, 13, 13, 13, 13]]);
    }
    expect(counted.flat()).toHaveLength(2 * texts.length);
  });

  it('counts a large import a slice at a time while its first batches run, so neither the engines nor a ranking wait', async () => {
    const log: string[] = [];
    const engine = recordingEmbedder('offscreen', { gate: async () => void log.push('batch') });
    Object.assign(engine.embedder, { countPieces: (ts: string[]) => (log.push('count'), ts.map((t) => t.length)) });
    const store = new MemoryStore(freshDb(), async () => engine.embedder);
    // Chat turns of a few sentences: 200,000 characters to tokenize in all.
    await store.add(Array.from({ length: 1000 }, (_, i) => ({ id: `n${i}`, text: `note ${i} ${'and a few words more '.repeat(9)}` })), { from: 'user' }, { deferEmbedding: true });
    const run = store.embedPending(undefined, 50);
    setTimeout(() => log.push('ranking'), 0);
    await run;
    expect(log.filter((x) => x === 'count').length).toBeGreaterThan(1);
    expect(log.indexOf('ranking')).toBeLessThan(log.lastIndexOf('count'));
    expect(log.indexOf('batch')).toBeLessThan(log.lastIndexOf('count'));
    expect(store.unembedded()).toEqual([]);
  });

  it('tokenizes a few tens of thousands of characters at a time however long the texts are', async () => {
    // Each batch takes a moment, as the model's do: the count goes on meanwhile.
    const engine = recordingEmbedder('offscreen', { gate: () => new Promise((r) => setTimeout(r, 30)) });
    const slices: number[] = [];
    Object.assign(engine.embedder, { countPieces: (ts: string[]) => (slices.push(ts.reduce((n, t) => n + Math.min(t.length, 25_600), 0)), ts.map(() => 256)) });
    // Texts a page could make: a whole window of characters that the estimate reads as a handful of word pieces.
    const texts = Array.from({ length: 40 }, (_, i) => `${i} ${' '.repeat(30_000)}`);
    const jobs = texts.map((text, i) => ({ id: `w${i}`, texts: [text] }));
    await inBatches(jobs, 8, () => 1, engine.embedder.embed, async () => undefined, engine.embedder.countPieces);
    expect(slices.length).toBeGreaterThan(20);
    expect(Math.max(...slices)).toBeLessThanOrEqual(25_600);
    expect(engine.batches.flat()).toHaveLength(40);
  });

  it.each([
    ['one batch at a time', undefined],
    ['a second batch sent ahead', 2],
  ])('goes on with the worker model when the indexing engine fails mid-run (%s), losing nothing', async (_, parallel) => {
    const own = recordingEmbedder('worker');
    const engine = recordingEmbedder('offscreen', { failAfter: 2, parallel });
    const db = freshDb();
    const store = new MemoryStore(db, async () => own.embedder, async () => engine.embedder);
    await store.add(Array.from({ length: 20 }, (_, i) => ({ id: `n${i}`, text: `note ${i}` })), { from: 'user' }, { deferEmbedding: true });
    const progress: number[] = [];
    expect(await store.embedPending((done) => progress.push(done), 4)).toBe(20);
    expect(engine.batches.flat()).toHaveLength(8);
    expect(own.batches.flat()).toHaveLength(12);
    expect(store.indexBackend).toBe('worker');
    expect(await db.vectors.count()).toBe(20);
    expect(progress).toEqual([0, 4, 8, 12, 16, 20]);
    expect(store.unembedded()).toEqual([]);
  });

  it('counts progress in memories: a threaded memory is done when its own and its context vector are stored', async () => {
    const own = recordingEmbedder('worker');
    const store = new MemoryStore(freshDb(), async () => own.embedder);
    const turns = Array.from({ length: 10 }, (_, i) => ({ id: `t${i}`, text: `turn ${i} of the offsite chat`, thread: { id: 'chat', seq: i } }));
    await store.commitImport(turns, { importId: 'a', provenance: { from: 'import', trusted: false } });
    const progress: [number, number][] = [];
    await store.embedPending((done, total) => progress.push([done, total]), 4);
    expect(own.batches.flat().length).toBeGreaterThan(10); // context vectors too
    expect(progress.every(([, total]) => total === 10)).toBe(true);
    expect(progress.at(-1)).toEqual([10, 10]);
    expect(progress.map(([d]) => d)).toEqual([...progress.map(([d]) => d)].sort((a, b) => a - b));
  });

  it('keeps the next batch queued at engines that take queued work, and stores each vector with its own note', async () => {
    const gates: (() => void)[] = [];
    const engine = recordingEmbedder('offscreen', { parallel: 2, gate: () => new Promise<void>((ok) => gates.push(ok)) });
    const db = freshDb();
    const store = new MemoryStore(db, async () => engine.embedder);
    const texts = Array.from({ length: 10 }, (_, i) => `note number ${'x'.repeat(i)}${i}`);
    await store.add(texts.map((text, i) => ({ id: `n${i}`, text })), { from: 'user' }, { deferEmbedding: true });
    const run = store.embedPending(undefined, 4);
    // The second batch is asked for before the first one came back (the engines never wait for a store)...
    await vi.waitFor(() => expect(gates).toHaveLength(2));
    gates[0]();
    // ...and the third as soon as the first is in.
    await vi.waitFor(() => expect(gates).toHaveLength(3));
    gates[1]();
    gates[2]();
    expect(await run).toBe(10);
    for (const [i, text] of texts.entries()) expect(Array.from((await db.vectors.get(`n${i}`))!.vector)).toEqual(Array.from(fakeVector(text)));
    expect(store.unembedded()).toEqual([]);
  });

  it('embeds a text once: a re-import of the same notes, a duplicate under another id and repeats in one import take the vector already made', async () => {
    const engine = recordingEmbedder('offscreen');
    const db = freshDb();
    const store = new MemoryStore(db, async () => engine.embedder);
    const notes = Array.from({ length: 6 }, (_, i) => ({ id: `n${i}`, text: `note about topic ${'z'.repeat(i)}${i}` }));
    await store.add(notes, { from: 'user' }, { deferEmbedding: true });
    expect(await store.embedPending(undefined, 4)).toBe(6);
    expect(engine.batches.flat()).toHaveLength(6);
    const before = await db.vectors.toArray();

    // The same export imported again: nothing to embed, every vector kept as it was.
    await store.add(notes, { from: 'user' }, { deferEmbedding: true });
    expect(store.unembedded()).toEqual([]);
    expect(await db.vectors.toArray()).toEqual(before);

    // One note edited, two copies of an existing note under new ids, and one new text twice in the same import.
    await store.add([{ id: 'n1', text: 'rewritten note' }, { id: 'copy-a', text: notes[3].text }, { id: 'copy-b', text: notes[3].text },
      { id: 'twin-a', text: 'brand new text' }, { id: 'twin-b', text: 'brand new text' }], { from: 'user' }, { deferEmbedding: true });
    engine.batches.length = 0;
    expect(await store.embedPending(undefined, 4)).toBe(5);
    expect(engine.batches.flat().sort()).toEqual(['brand new text', 'rewritten note']);
    const n3 = (await db.vectors.get('n3'))!.vector;
    expect((await db.vectors.get('copy-a'))!.vector).toEqual(n3);
    expect((await db.vectors.get('copy-b'))!.vector).toEqual(n3);
    expect((await db.vectors.get('twin-a'))!.vector).toEqual(fakeVector('brand new text'));
    expect((await db.vectors.get('twin-b'))!.vector).toEqual(fakeVector('brand new text'));
    expect((await db.vectors.get('n1'))!.vector).toEqual(fakeVector('rewritten note'));
    expect(store.unembedded()).toEqual([]);
  });

  it('rewrites the index pack only after indexing ends, and not while rankings keep coming', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let release!: () => void;
    const held = new Promise<void>((ok) => (release = ok));
    const engine = recordingEmbedder('offscreen', { gate: () => held });
    const db = freshDb();
    const store = new MemoryStore(db, async () => engine.embedder);
    await store.add(Array.from({ length: 100 }, (_, i) => ({ id: `n${i}`, text: `note ${i}` })), { from: 'user' }, { deferEmbedding: true });
    const run = store.embedPending(undefined, 50);
    await vi.advanceTimersByTimeAsync(6000); // the rewrite the import scheduled comes due while the first batch runs
    expect(await db.packs.count()).toBe(0);
    release();
    expect(await run).toBe(100);
    // Due now, but a ranking every few seconds holds it back…
    for (let i = 0; i < 4; i++) {
      await vi.advanceTimersByTimeAsync(3000);
      store.notePressure();
    }
    expect(await db.packs.count()).toBe(0);
    // …and once they pause it is written, with every vector in it.
    await vi.advanceTimersByTimeAsync(6000);
    await vi.waitFor(async () => expect(await db.packs.count()).toBe(1));
    const pack = (await db.packs.get('index'))!;
    expect(pack.ids).toHaveLength(100);
    expect(Array.from(pack.slots).every((s) => s >= 0)).toBe(true);
  });
});

describe('the engine pool splits each batch between its engines', () => {
  it('gives every engine its share at once and returns the vectors in the order of the texts', async () => {
    const { EnginePool } = await import('../../lib/embed/engine-pool');
    const running: number[] = [];
    let most = 0;
    const engine = (k: number) => ({
      async embed(texts: string[]) {
        running.push(k);
        most = Math.max(most, running.length);
        await new Promise((ok) => setTimeout(ok, 5));
        running.splice(running.indexOf(k), 1);
        return texts.map(fakeVector);
      },
    });
    const pool = new EnginePool([engine(0), engine(1), engine(2)]);
    const texts = Array.from({ length: 7 }, (_, i) => `text ${'y'.repeat(i)}${i}`);
    expect((await pool.embed(texts)).map((v) => Array.from(v))).toEqual(texts.map((t) => Array.from(fakeVector(t))));
    expect(most).toBe(3);
    const failing = new EnginePool([engine(0), { embed: () => Promise.reject(new Error('engine 1 crashed')) }]);
    await expect(failing.embed(texts)).rejects.toThrow('engine 1 crashed');
  });

  it('hands the next share to whichever engine is free, so a slowed engine does not hold the others back', async () => {
    const { EnginePool } = await import('../../lib/embed/engine-pool');
    // Engine 1 is slowed (another program on its core): its shares wait until released; engine 0 answers at once.
    const ran = [0, 0];
    const held: (() => void)[] = [];
    const engine = (k: number) => ({
      async embed(texts: string[]) {
        ran[k]++;
        if (k === 1) await new Promise<void>((ok) => held.push(ok));
        return texts.map(fakeVector);
      },
    });
    const pool = new EnginePool([engine(0), engine(1)]);
    const batches = Array.from({ length: 3 }, (_, b) => Array.from({ length: 4 }, (_, i) => `batch ${b} text ${i}`));
    // Three batches outstanding, as the store keeps the next ones queued while it stores the last.
    const made = batches.map((texts) => pool.embed(texts));
    for (let i = 0; i < 20; i++) await new Promise((ok) => setTimeout(ok, 0));
    // Engine 0 took every share engine 1 was not already running: five of the six.
    expect(ran).toEqual([5, 1]);
    held.forEach((ok) => ok());
    for (const [b, texts] of batches.entries()) expect((await made[b]).map((v) => Array.from(v))).toEqual(texts.map((t) => Array.from(fakeVector(t))));
  });

  it("gives each engine runtime bytes of its own that still compile to the same module", async () => {
    const { engineRuntimeBytes } = await import('../../lib/embed/engine-pool');
    const { readFileSync } = await import('node:fs');
    const wasm = new Uint8Array(readFileSync(new URL('../../node_modules/onnxruntime-web/dist/ort-wasm-simd-threaded.wasm', import.meta.url)));
    const [a, b] = [engineRuntimeBytes(wasm, 0), engineRuntimeBytes(wasm, 1)];
    expect(Buffer.compare(Buffer.from(a), Buffer.from(b))).not.toBe(0);
    const [ma, mb] = [await WebAssembly.compile(a), await WebAssembly.compile(b)];
    expect(new Uint8Array(WebAssembly.Module.customSections(mb, 'backstory-engine')[0])).toEqual(new Uint8Array([1]));
    const shape = (m: WebAssembly.Module) => JSON.stringify([WebAssembly.Module.imports(m), WebAssembly.Module.exports(m)]);
    expect(shape(ma)).toBe(shape(await WebAssembly.compile(wasm)));
    expect(shape(mb)).toBe(shape(ma));
  });

  it('runs one engine per core, two to four, and gives each a contiguous, even share', async () => {
    const { engineCount, shares } = await import('../../lib/embed/engine-pool');
    expect([1, 2, 4, 8, 16].map((c) => engineCount(c))).toEqual([2, 2, 3, 4, 4]);
    expect(shares(16, 2)).toEqual([[0, 8], [8, 16]]);
    expect(shares(5, 3)).toEqual([[0, 2], [2, 4], [4, 5]]);
    expect(shares(1, 2)).toEqual([[0, 1]]);
  });
});
