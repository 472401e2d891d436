import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import type { Embedder } from '../../lib/embed/embedder';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { modelTag } from '../../lib/embed/model-tag';
import files from '../../lib/embed/model-files.json';
import { NODE_MODEL_ROOT, nodeEmbedder } from '../../lib/embed/node-embedder';
import { openMemoryDB } from '../../lib/memory/db';
import { MemoryStore } from '../../lib/memory/store';
import type { MemoryInput } from '../../lib/memory/types';
import { contextText } from '../../lib/memory/index/item-text';

/** A deterministic fake model named `modelId`: the vector is a hash of the text (and of the model's name). */
function fakeModel(modelId: string) {
  const seen: string[] = [];
  const vec = (t: string) => {
    const v = new Float32Array(8);
    const s = modelId + t;
    for (let i = 0; i < s.length; i++) v[i % 8] += ((s.charCodeAt(i) * 31) % 17) - 8;
    const n = Math.hypot(...v) || 1;
    return v.map((x) => x / n);
  };
  const embedder: Embedder = { modelId, dim: 8, backend: 'test', embed: async (texts) => (seen.push(...texts), texts.map(vec)) };
  return { embedder, seen, vec };
}

const close = (a: Float32Array | undefined, b: Float32Array) => !!a && a.every((x, i) => Math.abs(x - b[i]) < 0.02);

const session = (): MemoryInput[] =>
  ['Are you coming to the pottery class?', 'Yes, last Tuesday!', 'Great, bring the clay.'].map((text, seq) => ({
    id: `s1:${seq}`, text, title: seq % 2 ? 'Melanie' : 'Caroline', thread: { id: 's1', seq }, createdAt: Date.UTC(2023, 4, 8, 13, seq),
  }));

const fresh = (factory = new IDBFactory()) => openMemoryDB('ctx', { indexedDB: factory, IDBKeyRange });

describe('context vectors in the store', () => {
  it('embedPending makes each threaded item\'s context vector from the turn before it, and they survive a restart', async () => {
    const factory = new IDBFactory();
    const m = fakeModel('m');
    const store = new MemoryStore(fresh(factory), async () => m.embedder);
    await store.commitImport(session(), { importId: 'i', provenance: { from: 'import', trusted: false } });
    await store.embedPending();
    const [a, b, c] = await store.readMany(session().map((x) => x.id!));
    expect(store.view.contextVector(a.id)).toBeUndefined(); // first of its thread: no context
    expect(close(store.view.contextVector(b.id), m.vec(contextText(b, a)!))).toBe(true);
    expect(close(store.view.contextVector(c.id), m.vec(contextText(c, b)!))).toBe(true);

    // From the tables (no pack yet), then from the pack.
    for (const pack of [false, true]) {
      if (pack) await store.savePack();
      const reopened = new MemoryStore(fresh(factory), async () => m.embedder);
      await reopened.load();
      expect(close(reopened.view.contextVector(c.id), m.vec(contextText(c, b)!))).toBe(true);
      expect(reopened.view.contextVector(a.id)).toBeUndefined();
      m.seen.length = 0;
      expect(await reopened.embedPending()).toBe(0); // nothing stale: nothing embedded again
      expect(m.seen).toEqual([]);
    }
  });

  it('remakes a context vector when the turn before it is edited, and drops it when that turn is deleted', async () => {
    const m = fakeModel('m');
    const store = new MemoryStore(fresh(), async () => m.embedder);
    await store.add(session(), { from: 'user' }); // a small add embeds at once, context vectors included
    const b0 = (await store.read('s1:1'))!;
    expect(close(store.view.contextVector('s1:1'), m.vec(contextText(b0, (await store.read('s1:0'))!)!))).toBe(true);
    const a = await store.update('s1:0', { text: 'Are you coming to the sculpture class?' });
    expect(close(store.view.contextVector('s1:1'), m.vec(contextText((await store.read('s1:1'))!, a)!))).toBe(true);
    await store.remove(['s1:1']);
    expect(store.view.contextVector('s1:2')).toBeUndefined(); // its predecessor is gone
    expect(await store.embedPending()).toBe(0);
  });

  it('an import defers context vectors to embedPending and drops stale ones at once', async () => {
    const m = fakeModel('m');
    const store = new MemoryStore(fresh(), async () => m.embedder);
    await store.commitImport(session(), { importId: 'i', provenance: { from: 'import', trusted: false } });
    await store.embedPending();
    const later = session();
    later[0] = { ...later[0], text: 'Are you coming to the painting class?' };
    await store.commitImport(later, { importId: 'j', provenance: { from: 'import', trusted: false } });
    expect(store.view.contextVector('s1:1')).toBeUndefined(); // made from the old first turn: not used any more
    expect(store.view.contextVector('s1:2')).toBeDefined(); // its predecessor did not change
    await store.embedPending();
    expect(close(store.view.contextVector('s1:1'), m.vec(contextText((await store.read('s1:1'))!, (await store.read('s1:0'))!)!))).toBe(true);
  });
});

describe('model tag', () => {
  it('names the variant and the file: int8 and q4 vectors are told apart', () => {
    expect(modelTag('q8')).not.toBe(modelTag('q4'));
    expect(modelTag('q8')).toMatch(/^all-MiniLM-L6-v2\/q8\//);
    expect(modelTag('q4')).toMatch(/^all-MiniLM-L6-v2\/q4\/[0-9a-f]{16}$/);
  });

  it('is the tag of the vectors the loaded model makes, and its fingerprint is of the files installed', async () => {
    expect((await nodeEmbedder('q4')).modelId).toBe(modelTag('q4'));
    const installed = (file: string) => createHash('sha256').update(readFileSync(join(NODE_MODEL_ROOT, 'all-MiniLM-L6-v2', file))).digest('hex');
    for (const [file, sum] of Object.entries({ ...files.sha256, ...files.int8 })) expect(installed(file)).toBe(sum);
    for (const file of ['onnx/model_q4.onnx', 'onnx/model_q4.onnx_data'] as const) expect(modelTag('q4')).toContain(files.sha256[file].slice(0, 8));
    expect(modelTag('q8')).toContain(files.int8['onnx/model_quantized.onnx'].slice(0, 16));
  });

  it('vectors of another model are never mixed in: a changed model re-embeds everything through embedPending', async () => {
    const factory = new IDBFactory();
    const old = fakeModel('old');
    const first = new MemoryStore(fresh(factory), async () => old.embedder);
    await first.add(session(), { from: 'user' });
    await first.savePack();

    const now = fakeModel('new');
    const store = new MemoryStore(fresh(factory), async () => now.embedder);
    await store.load();
    expect(store.view.vectorCount).toBe(3); // the old model's, until a vector of the new one is asked for
    store.useModel('new'); // what ranking does before it embeds a query with the new model
    expect(store.view.vectorCount).toBe(0);
    expect(store.view.contextCount).toBe(0);
    expect(store.unembedded().length).toBe(3);
    expect(await store.embedPending()).toBe(5); // 3 items, 2 context vectors
    expect(close(store.view.vector('s1:0'), now.vec('Caroline: Are you coming to the pottery class?'))).toBe(true);

    const db = fresh(factory);
    expect((await db.vectors.toArray()).map((v) => v.model)).toEqual(['new', 'new', 'new']);
    expect((await db.contexts.toArray()).map((v) => v.model)).toEqual(['new', 'new']);
    const again = new MemoryStore(db, async () => now.embedder);
    await again.load();
    expect(again.view.vectorCount).toBe(3);
    expect(await again.embedPending()).toBe(0);
  });
});
