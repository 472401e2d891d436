import type { DBCore } from 'dexie';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Embedder } from '../../lib/embed/embedder';
import { openMemoryDB, type BackstoryDB } from '../../lib/memory/db';
import { MemoryStore } from '../../lib/memory/store';

// A start takes the heads of rows not written since the index pack from the pack, by the rows' revisions
// (lib/memory/item-revs.ts), and reads only the others whole. These tests hold it to what a start that reads every
// row whole finds.

/** While set, the model fails (vectors are left to be made later, and stale context vectors stay in their table). */
let modelDown = false;

/** A deterministic fake model: the vector is a hash of the text. */
const fakeEmbedder: Embedder = {
  modelId: 'fake',
  dim: 8,
  backend: 'test',
  async embed(texts) {
    if (modelDown) throw new Error('The model is not available.');
    return texts.map((t) => {
      const v = new Float32Array(8);
      for (let i = 0; i < t.length; i++) v[i % 8] += ((t.charCodeAt(i) * 31) % 17) - 8;
      const n = Math.hypot(...v) || 1;
      return v.map((x) => x / n);
    });
  },
};

/** One browser profile: each `connect` is a new worker's (or a page's) connection to the same database. */
function profile() {
  const indexedDB = new IDBFactory();
  const name = 'revs';
  return {
    connect: (): BackstoryDB => openMemoryDB(name, { indexedDB, IDBKeyRange }),
    /** A worker's start: a new connection and store, loaded; `rows` counts the rows it read whole. */
    async start() {
      const db = this.connect();
      const rows = countRowsRead(db);
      const store = new MemoryStore(db, async () => fakeEmbedder);
      await store.load();
      return { db, store, rows: rows.n };
    },
  };
}

/** Counts the item rows read whole through `db` from here on (IndexedDB gets and value queries on `items`). */
function countRowsRead(db: BackstoryDB): { readonly n: number } {
  const count = { n: 0 };
  db.use({
    stack: 'dbcore',
    name: 'countRowsRead',
    create: (down: DBCore) => ({
      ...down,
      table: (name: string) => {
        const t = down.table(name);
        if (name !== 'items') return t;
        return {
          ...t,
          getMany: async (req) => {
            const out = await t.getMany(req);
            count.n += out.filter(Boolean).length;
            return out;
          },
          get: async (req) => {
            const out = await t.get(req);
            if (out) count.n++;
            return out;
          },
          query: async (req) => {
            const out = await t.query(req);
            if (req.values) count.n += out.result.length;
            return out;
          },
        };
      },
    }),
  });
  return count;
}

/** Everything a start puts in memory for each item: its head, text, print, vector, words, decision, context vector. */
async function loaded(store: MemoryStore) {
  const out: Record<string, unknown> = {};
  for (const head of store.items()) {
    const whole = (await store.read(head.id))!;
    const v = store.view.vector(head.id);
    const c = store.view.contextVector(head.id);
    out[head.id] = {
      head: { ...head, rev: undefined },
      text: whole.text,
      title: whole.title,
      print: store.view.contentPrint(head.id),
      v: v ? Array.from(v).map((x) => x.toFixed(4)) : null,
      terms: [...(store.view.lexicalIndex.termsOf(head.id) ?? [])].sort(),
      decision: store.view.isDecision(head.id),
      context: c ? Array.from(c).map((x) => x.toFixed(4)) : null,
    };
  }
  return out;
}

/** What a start that reads every row whole and builds every index from the tables finds (the pack deleted). */
async function truth(p: ReturnType<typeof profile>) {
  const db = p.connect();
  await db.packs.clear();
  const store = new MemoryStore(db, async () => fakeEmbedder);
  await store.load();
  return loaded(store);
}

describe('a start by the rows written since the pack', () => {
  it('reads whole only the rows written since the pack, and finds every change', async () => {
    const p = profile();
    const first = await p.start();
    const notes = Array.from({ length: 40 }, (_, i) => ({ id: `n${i}`, text: `Note ${i}: the greenhouse vents open at ${i} degrees.` }));
    await first.store.add(notes, { from: 'user' });
    await first.store.add([{ id: 'rule', text: 'Always sign off with Cheers.', kind: 'instruction' }], { from: 'user' });
    await first.store.savePack();
    // Since the pack: an edit, a use (the words unchanged), a change of kind, a deletion and a new note.
    await first.store.update('n3', { text: 'Note 3: the greenhouse vents now open at 18 degrees.' });
    await first.store.touch(['n7'], 12345);
    await first.store.update('rule', { kind: 'evidence' });
    await first.store.remove(['n9']);
    await first.store.add([{ id: 'new', text: 'We decided on oak flooring for the kitchen.' }], { from: 'user' });

    const next = await p.start();
    expect(next.rows).toBe(4); // n3, n7, rule and new: not the 37 others
    expect(await loaded(next.store)).toEqual(await truth(p));
    expect(next.store.head('n7')?.lastUsedAt).toBe(12345);
    expect(next.store.head('rule')?.kind).toBe('evidence');
    expect(next.store.head('n9')).toBeUndefined();
    expect(next.store.view.lexicalIndex.termsOf('n3')?.has('18')).toBe(true);
    expect(next.store.view.isDecision('new')).toBe(true);
  });

  it('reads a row a page wrote (without a revision) whole, then stamps it so the next start need not', async () => {
    const p = profile();
    const first = await p.start();
    await first.store.add(Array.from({ length: 20 }, (_, i) => ({ id: `n${i}`, text: `Note ${i} about seedlings.` })), { from: 'user' });
    await first.store.savePack();
    // Another page's connection writes a row: it can keep no revision, even one the row had.
    const page = p.connect();
    const row = (await page.items.get('n5'))!;
    expect(row.rev).toBeGreaterThan(0);
    await page.items.put({ ...row, text: 'Note 5 rewritten: tomatoes need hardening off.' });
    expect((await page.items.get('n5'))!.rev).toBeUndefined();

    const second = await p.start();
    expect(second.rows).toBe(20); // one row has no revision: every row is read whole
    expect(second.store.view.lexicalIndex.termsOf('n5')?.has('tomato')).toBe(true);
    // The worker stamps it, and the pack is rewritten with it.
    await expect.poll(async () => (await page.items.get('n5'))!.rev).toBeGreaterThan(0);
    await second.store.savePack();
    const third = await p.start();
    expect(third.rows).toBe(0);
    expect(await loaded(third.store)).toEqual(await truth(p));
  });

  it('stamps above the revision of a pack that could not be read at a start, should it be read again later', async () => {
    const p = profile();
    const first = await p.start();
    await first.store.add([{ id: 'a', text: 'Alpha note.' }, { id: 'b', text: 'Bravo note.' }], { from: 'user' });
    await first.store.savePack();
    await first.store.remove(['b']);
    const pack = (await first.db.packs.get('index'))!;
    await first.db.packs.delete('index'); // unreadable at the next start; its info row remains
    const second = await p.start();
    await second.store.add([{ id: 'b', text: 'Bravo again, about the harvest.' }], { from: 'user' });
    await second.db.packs.put(pack); // readable again, with b's old head
    const third = await p.start();
    expect((await third.store.read('b'))?.text).toBe('Bravo again, about the harvest.');
    expect(await loaded(third.store)).toEqual(await truth(p));
  });

  it('takes the revision from the pack itself when the row about it says another, or is missing', async () => {
    const p = profile();
    const first = await p.start();
    await first.store.add(Array.from({ length: 10 }, (_, i) => ({ id: `n${i}`, text: `Note ${i} about the allotment.` })), { from: 'user' });
    await first.store.savePack();
    await first.store.update('n2', { text: 'Note 2: the allotment rent is due in April.' });
    const info = (await first.db.packInfo.get('index'))!;
    const pack = (await first.db.packs.get('index'))!;
    expect(info.rev).toBe(pack.rev);
    for (const row of [{ ...info, rev: info.rev + 100 }, { ...info, rev: 0 }, undefined]) {
      await first.db.packs.put(pack);
      if (row) await first.db.packInfo.put(row);
      else await first.db.packInfo.delete('index');
      const next = await p.start();
      expect(next.store.view.lexicalIndex.termsOf('n2')?.has('april')).toBe(true);
      expect(await loaded(next.store)).toEqual(await truth(p));
    }
  });

  it('stamps above a deleted row whose revision only the pack still holds, so a new row is never taken for an old one', async () => {
    const p = profile();
    const first = await p.start();
    await first.store.add([{ id: 'a', text: 'Alpha note.' }, { id: 'b', text: 'Bravo note.' }], { from: 'user' });
    await first.store.savePack(); // b has the highest revision, and the pack holds it
    await first.store.remove(['b']);
    const second = await p.start(); // the table's highest revision is now a's
    await second.store.add([{ id: 'b', text: 'Bravo again, about the harvest.' }], { from: 'user' });
    const third = await p.start();
    expect(third.store.view.lexicalIndex.termsOf('b')?.has('harvest')).toBe(true);
    expect((await third.store.read('b'))?.text).toBe('Bravo again, about the harvest.');
    expect(await loaded(third.store)).toEqual(await truth(p));
  });

  it('drops a context vector made stale while the model was down, from the pack as from the table', async () => {
    const p = profile();
    const first = await p.start();
    await first.store.add([
      { id: 'x', text: 'Can you book the venue for Friday?', thread: { id: 't', seq: 0 } },
      { id: 'y', text: 'Done, it is booked.', thread: { id: 't', seq: 1 } },
      ...Array.from({ length: 10 }, (_, i) => ({ id: `n${i}`, text: `Unrelated note ${i}.` })),
    ], { from: 'user' });
    expect(first.store.view.hasContextVector('y')).toBe(true);
    await first.store.savePack();
    modelDown = true;
    try {
      // y's context vector read x as it was: it is stale now, and its row stays until it is made again.
      await first.store.update('x', { text: 'Can you book the venue for Saturday instead?' });
      expect(first.store.view.hasContextVector('y')).toBe(false);
      const next = await p.start();
      expect(next.rows).toBeLessThan(12);
      expect(next.store.view.hasContextVector('y')).toBe(false);
      expect(await loaded(next.store)).toEqual(await truth(p));
    } finally {
      modelDown = false;
    }
  });

  it('takes a context vector made again since the pack from the table, not the stale one the pack holds', async () => {
    const p = profile();
    const first = await p.start();
    await first.store.add([
      { id: 'x', text: 'Should we repaint the shed?', thread: { id: 't', seq: 0 } },
      { id: 'y', text: 'Yes, in green.', thread: { id: 't', seq: 1 } },
    ], { from: 'user' });
    await first.store.savePack(); // y's context vector reads x as it was
    await first.store.add([{ id: 'x', text: 'Should we replace the shed roof?', thread: { id: 't', seq: 0 } }], { from: 'user' });
    const made = first.store.view.contextVector('y'); // made again, reading x as it is now
    const next = await p.start();
    expect(next.store.view.contextVector('y')).toEqual(made);
    expect(await loaded(next.store)).toEqual(await truth(p));
  });

  it('drops the context vector of the next item at once when an item leaves its thread', async () => {
    const p = profile();
    const { store } = await p.start();
    await store.add([
      { id: 'x', text: 'Lunch on Thursday?', thread: { id: 't', seq: 0 } },
      { id: 'y', text: 'Thursday works.', thread: { id: 't', seq: 1 } },
    ], { from: 'user' });
    expect(store.view.hasContextVector('y')).toBe(true);
    await store.add([{ id: 'x', text: 'Lunch on Thursday?' }], { from: 'user' }); // x is no longer in the thread
    expect(store.view.hasContextVector('y')).toBe(false); // y is first in its thread now: it reads no item before it
    await store.savePack();
    expect(await loaded((await p.start()).store)).toEqual(await truth(p));
  });

  it('loads the context vectors the table holds when they are as many as the pack holds but not the same', async () => {
    const p = profile();
    const first = await p.start();
    await first.store.add([
      { id: 'x', text: 'Where shall we meet?', thread: { id: 't', seq: 0 } },
      { id: 'v', text: 'The cafe by the station.', thread: { id: 't', seq: 1 } },
      { id: 'y', text: 'Fine, see you at noon.', thread: { id: 't', seq: 2 } },
    ], { from: 'user' });
    await first.store.savePack(); // context vectors of v and y
    await first.store.remove(['v']); // and with it y's, which read v
    await first.store.add([
      { id: 'z', text: 'Is the report ready?', thread: { id: 'u', seq: 0 } },
      { id: 'w', text: 'Yes, sent this morning.', thread: { id: 'u', seq: 1 } },
      { id: 'q', text: 'Did the invoice go out?', thread: { id: 'r', seq: 0 } },
      { id: 'r1', text: 'It went out on Monday.', thread: { id: 'r', seq: 1 } },
    ], { from: 'user' });
    expect(await first.db.contexts.count()).toBe(2); // w's and r1's: as many as the pack holds
    const next = await p.start();
    expect(next.store.view.hasContextVector('w')).toBe(true);
    expect(next.store.view.hasContextVector('r1')).toBe(true);
    expect(await loaded(next.store)).toEqual(await truth(p));
  });

  it('after any sequence of writes, pack rewrites, page writes and restarts, a start finds what reading every row finds', async () => {
    const id = fc.constantFrom('a', 'b', 'c', 'd', 'e');
    const words = fc.constantFrom('greenhouse vents', 'we decided on oak', 'budget review', 'tomato seedlings', 'call the plumber');
    const op = fc.oneof(
      fc.record({ t: fc.constant('add' as const), id, text: words, seq: fc.option(fc.integer({ min: 0, max: 4 }), { nil: undefined }) }),
      fc.record({ t: fc.constant('edit' as const), id, text: words }),
      fc.record({ t: fc.constant('kind' as const), id }),
      fc.record({ t: fc.constant('touch' as const), id, at: fc.integer({ min: 1, max: 1e6 }) }),
      fc.record({ t: fc.constant('remove' as const), id }),
      fc.record({ t: fc.constant('page' as const), id, text: words }),
      fc.record({ t: fc.constant('pack' as const) }),
      fc.record({ t: fc.constant('embed' as const) }),
      fc.record({ t: fc.constant('restart' as const) }),
      fc.record({ t: fc.constant('clear' as const) }),
      fc.record({ t: fc.constant('model' as const), down: fc.boolean() }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 14 }), async (ops) => {
        const p = profile();
        modelDown = false;
        let { store } = await p.start();
        for (const o of ops) {
          const has = !!store.head('id' in o ? o.id : '');
          if (o.t === 'add') await store.add([{ id: o.id, text: `${o.text} (${o.id})`, thread: o.seq === undefined ? undefined : { id: 'thread', seq: o.seq } }], { from: 'user' });
          else if (o.t === 'edit' && has) await store.update(o.id, { text: `${o.text}, edited` });
          else if (o.t === 'kind' && has) await store.update(o.id, { kind: store.head(o.id)!.kind === 'instruction' ? 'evidence' : 'instruction' });
          else if (o.t === 'touch' && has) await store.touch([o.id], o.at);
          else if (o.t === 'remove' && has) await store.remove([o.id]);
          else if (o.t === 'pack') await store.savePack();
          else if (o.t === 'embed' && !modelDown) await store.embedPending();
          else if (o.t === 'clear') await store.clear();
          else if (o.t === 'model') modelDown = o.down;
          else if (o.t === 'page' && has) {
            // A page's write behind the worker's back; the worker restarts before it writes again.
            const page = p.connect();
            await page.items.put({ ...(await page.items.get(o.id))!, text: `${o.text}, from a page` });
            page.close();
            ({ store } = await p.start());
          } else if (o.t === 'restart') {
            await store.touch([]); // the turns queued before it (the background stamping) are done
            ({ store } = await p.start());
          }
        }
        await store.touch([]);
        const last = await p.start();
        modelDown = false;
        expect(await loaded(last.store)).toEqual(await truth(p));
      }),
      { numRuns: 100 },
    );
  }, 120_000);
});
