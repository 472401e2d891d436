import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it, vi } from 'vitest';
import { openMemoryDB, type BackstoryDB } from '../../lib/memory/db';
import Dexie from 'dexie';
import { LexicalIndex } from '../../lib/memory/index/lexical-index';
import { MemoryStore } from '../../lib/memory/store';
import { ITEM_FIELDS, parseOps, SyncFormatError } from '../../lib/sync/fields';
import { HybridClock } from '../../lib/sync/hlc';
import { SyncLedger } from '../../lib/sync/ledger';
import { applyOps, mergedRecord, MergeState } from '../../lib/sync/merge';
import { stateHash } from '../../lib/sync/merge-json';
import { applyMerged, commitLocal, localChanges } from '../../lib/sync/replica';
import type { SyncOp } from '../../lib/sync/types';
import { textHashEmbedder } from './sync-fixtures';

const T0 = 1_780_000_000_000;

const embedder = textHashEmbedder;

/** One device: its memory, its ledger, its clock, its merged state and its log. */
class Device {
  readonly db: BackstoryDB;
  readonly store: MemoryStore;
  readonly ledger: SyncLedger;
  readonly clock: HybridClock;
  readonly state = new MergeState();
  readonly log: SyncOp[][] = [];
  /** How many segments of each other device it applied. */
  readonly applied = new Map<Device, number>();
  now = T0;
  constructor(readonly id: string) {
    this.db = openMemoryDB('memory', { indexedDB: new IDBFactory(), IDBKeyRange });
    this.store = new MemoryStore(this.db, async () => embedder);
    this.ledger = new SyncLedger(this.db);
    this.clock = new HybridClock(id);
  }

  /** Its own changes as a segment, kept and applied. */
  async writeLocal(): Promise<SyncOp[]> {
    const local = await localChanges(this.store, this.ledger, this.clock, (this.now += 1000));
    if (local.ops.length) {
      this.log.push(local.ops);
      applyOps(this.state, local.ops, { device: this.id, seq: this.log.length });
    }
    await commitLocal(this.ledger, local);
    return local.ops;
  }

  /** Reads what others wrote (as JSON, checked), merges, and writes the merged records into memory. */
  async readFrom(...others: Device[]): Promise<string[]> {
    const touched = new Set<string>();
    for (const other of others) {
      for (let seq = (this.applied.get(other) ?? 0) + 1; seq <= other.log.length; seq++) {
        const ops = parseOps(JSON.parse(JSON.stringify(other.log[seq - 1])), `segment ${seq} of ${other.id}`);
        for (const id of applyOps(this.state, ops, { device: other.id, seq })) touched.add(id);
        this.applied.set(other, seq);
      }
    }
    return applyMerged(this.store, this.ledger, this.state, touched, this.now);
  }
}

const fieldsOf = (ops: SyncOp[]) => ops.map((o) => `${o.id}.${o.field}`).sort();
const found = (d: Device, words: string) => d.store.view.lexicalIndex.search(LexicalIndex.queryTerms(words), 5).map((h) => h.id);

describe('a device\'s own changes as operations', () => {
  it('makes operations for what was added, changed, imported and removed, and none when nothing changed', async () => {
    const a = new Device('a');
    await a.store.add([{ id: 'n1', text: 'The boiler service is due in March.', tags: ['home'] }], { from: 'user' });
    const first = await a.writeLocal();
    // A first sync says every field, with no base.
    expect(fieldsOf(first)).toEqual(ITEM_FIELDS.map((f) => `n1.${f}`).sort());
    expect(first.every((o) => o.base.length === 0)).toBe(true);
    expect(await a.writeLocal()).toEqual([]);

    const textStamp = first.find((o) => o.field === 'text')!.stamp;
    await a.store.update('n1', { text: 'The boiler service is due in April.' }, T0 + 5);
    const edit = await a.writeLocal();
    expect(edit.find((o) => o.field === 'text')).toMatchObject({ value: 'The boiler service is due in April.', base: [textStamp] });
    expect(fieldsOf(edit)).not.toContain('n1.tags');

    // A change of tags alone reads no text.
    await a.store.update('n1', { tags: ['home', 'boiler'] }, T0 + 6);
    const reads = vi.spyOn(a.store, 'readMany');
    const tags = await a.writeLocal();
    expect(reads).toHaveBeenCalledWith([]);
    expect(fieldsOf(tags)).toEqual(['n1.tags', 'n1.updatedAt']);

    await a.store.commitImport([{ id: 'note:trip.md', text: 'Packing list for Lisbon.', source: { format: 'markdown' } }], { importId: 'imp1', provenance: { from: 'import', trusted: false } });
    const imported = await a.writeLocal();
    expect(imported.find((o) => o.id === 'note:trip.md' && o.field === 'source')!.value).toEqual({ format: 'markdown', importId: 'imp1' });

    const heads = [...tags, ...edit, ...first].filter((o, i, all) => all.findIndex((p) => p.field === o.field) === i).map((o) => o.stamp);
    await a.store.remove(['n1']);
    const [del] = await a.writeLocal();
    expect(del).toMatchObject({ id: 'n1', field: 'deleted', value: true });
    expect(del.base.sort()).toEqual(heads.sort());
    expect(await a.writeLocal()).toEqual([]);
    expect(await a.ledger.clock()).toBe(a.clock.last);
  });
});

describe('merged records into memory', () => {
  it('arrive searchable, embedded in the background, held items held, and do not come back as local changes', async () => {
    const a = new Device('a');
    const b = new Device('b');
    await a.store.add([{ id: 'n1', text: 'Our sync worker retries with exponential backoff and jitter.', pinned: true }], { from: 'user' });
    const [held] = await a.store.add([{ id: 'n2', text: 'staging password: hunter2-Correct-Horse-99' }], { from: 'user' });
    expect(held.needsReview).toBeTruthy();
    await a.writeLocal();
    await b.readFrom(a);

    expect(b.store.size).toBe(2);
    expect(found(b, 'exponential backoff')).toEqual(['n1']);
    expect(b.store.head('n1')).toMatchObject({ pinned: true, kind: a.store.head('n1')!.kind });
    expect(b.store.head('n2')!.needsReview).toBe(held.needsReview);
    expect(found(b, 'hunter2')).toEqual([]);
    expect(b.store.unembedded()).toEqual(['n1']); // the held one is never embedded
    await b.store.embedPending();
    expect(b.store.view.hasVector('n1')).toBe(true);
    expect(await b.writeLocal()).toEqual([]);

    // A text edit drops the vector (embedded again later); a tag edit keeps it.
    await a.store.update('n1', { tags: ['infra'] });
    await a.writeLocal();
    await b.readFrom(a);
    expect(b.store.head('n1')!.tags).toEqual(['infra']);
    expect(b.store.view.hasVector('n1')).toBe(true);
    await a.store.update('n1', { text: 'Our sync worker retries with linear backoff.' });
    await a.writeLocal();
    await b.readFrom(a);
    expect(found(b, 'linear')).toEqual(['n1']);
    expect(b.store.view.hasVector('n1')).toBe(false);

    // A delete arrives: the item goes, and nothing comes back.
    await a.store.remove(['n1']);
    await a.writeLocal();
    await b.readFrom(a);
    expect(b.store.head('n1')).toBeUndefined();
    expect(found(b, 'backoff')).toEqual([]);
    expect(await b.writeLocal()).toEqual([]);
    expect(await stateHash(a.state)).toBe(await stateHash(b.state));
  });

  it('a first sync of two memories is a union, and the same import on both merges without doubling', async () => {
    const a = new Device('a');
    const b = new Device('b');
    const mail = { id: 'mail:<42@x>', text: 'Invoice 42 is attached.', title: 'Invoice 42', source: { format: 'mbox' }, createdAt: T0 - 1e9 };
    await a.store.commitImport([mail, { id: 'mail:<1@x>', text: 'Lunch on Friday?', source: { format: 'mbox' } }], { importId: 'ia', provenance: { from: 'import', trusted: false } });
    await b.store.commitImport([mail], { importId: 'ib', provenance: { from: 'import', trusted: false } });
    await b.store.add([{ id: 'b1', text: 'Call the plumber about the leak.' }], { from: 'user' });
    await a.writeLocal();
    await b.writeLocal();
    await a.readFrom(b);
    await b.readFrom(a);
    for (const d of [a, b]) {
      expect([...d.store.items()].map((it) => it.id).sort()).toEqual(['b1', 'mail:<1@x>', 'mail:<42@x>']);
      expect(mergedRecord(d.state, 'mail:<42@x>')!.revisions).toEqual([]);
    }
    expect(await stateHash(a.state)).toBe(await stateHash(b.state));
    // The import id differs between the devices: one value wins on both.
    expect(a.store.head('mail:<42@x>')!.source.importId).toBe(b.store.head('mail:<42@x>')!.source.importId);
  });

  it('carries an item kept whole from a trusted memory file capped as an import is, and keeps it whole here', async () => {
    const a = new Device('a');
    const b = new Device('b');
    const tags = Array.from({ length: 60 }, (_, i) => `tag${i}`);
    await a.store.commitImport([{ id: 'k1', text: 'Exported from my laptop.', tags, source: { format: 'memory-file' } }], { importId: 'f', provenance: { from: 'import', trusted: true } });
    expect(a.store.head('k1')!.tags).toHaveLength(60);
    await a.writeLocal();
    await b.readFrom(a);
    expect(b.store.head('k1')!.tags).toEqual(tags.slice(0, 50));
    expect(a.store.head('k1')!.tags).toHaveLength(60);
    expect(await a.writeLocal()).toEqual([]);
    expect(await b.writeLocal()).toEqual([]);
  });

  it('a delete concurrent with an edit elsewhere brings the item back where it was deleted; Undo brings it back everywhere', async () => {
    const a = new Device('a');
    const b = new Device('b');
    await a.store.add([{ id: 'n1', text: 'Renew the passport before June.' }], { from: 'user' });
    await a.writeLocal();
    await b.readFrom(a);
    const [removed] = await a.store.remove(['n1']);
    await a.writeLocal();
    await b.store.update('n1', { tags: ['travel'] });
    await b.writeLocal();
    await a.readFrom(b);
    await b.readFrom(a);
    for (const d of [a, b]) expect(d.store.head('n1')).toMatchObject({ tags: ['travel'] });
    expect((await a.store.read('n1'))!.text).toBe('Renew the passport before June.');
    expect(await a.writeLocal()).toEqual([]);

    // Deleted on both; then Undo on a.
    await b.store.remove(['n1']);
    await b.writeLocal();
    await a.readFrom(b);
    expect(a.store.head('n1')).toBeUndefined();
    await a.store.add([{ ...removed, tags: ['travel'] }], { from: 'restore' });
    const back = await a.writeLocal();
    expect(back.length).toBeGreaterThan(1);
    await b.readFrom(a);
    expect((await b.store.read('n1'))!.text).toBe('Renew the passport before June.');
    expect(await stateHash(a.state)).toBe(await stateHash(b.state));
  });

  it('leaves an item the user changed meanwhile as it is, and the next pass keeps both texts', async () => {
    const a = new Device('a');
    const b = new Device('b');
    await a.store.add([{ id: 'n1', text: 'Meet at the station.' }], { from: 'user' });
    await a.writeLocal();
    await b.readFrom(a);
    await a.store.update('n1', { text: 'Meet at the station at noon.' });
    await a.writeLocal();
    await b.store.update('n1', { text: 'Meet at the north entrance.' }); // not yet seen by sync on b
    expect(await b.readFrom(a)).toEqual(['n1']);
    expect((await b.store.read('n1'))!.text).toBe('Meet at the north entrance.');
    await b.writeLocal();
    await b.readFrom(a);
    await a.readFrom(b);
    const texts = (d: Device) => {
      const r = mergedRecord(d.state, 'n1')!;
      return [r.values.text, ...r.revisions.map((x) => x.text)].sort();
    };
    expect(texts(a)).toEqual(['Meet at the north entrance.', 'Meet at the station at noon.']);
    expect(texts(b)).toEqual(texts(a));
    expect((await a.store.read('n1'))!.text).toBe(mergedRecord(a.state, 'n1')!.values.text);
    expect((await b.store.read('n1'))!.text).toBe(mergedRecord(b.state, 'n1')!.values.text);
  });

  it('writes memory and the ledger together: when the ledger cannot be written, memory is not changed either', async () => {
    const a = new Device('a');
    const b = new Device('b');
    await a.store.add([{ id: 'n1', text: 'Water the ferns on Sunday.' }], { from: 'user' });
    await a.writeLocal();
    await b.readFrom(a);
    await a.store.update('n1', { text: 'Water the ferns on Saturday.' });
    await a.writeLocal();
    const failing = vi.spyOn(b.db.syncLedger, 'bulkPut').mockRejectedValueOnce(new Error('disk gone'));
    await expect(b.readFrom(a)).rejects.toThrow('disk gone');
    failing.mockRestore();
    expect((await b.store.read('n1'))!.text).toBe('Water the ferns on Sunday.');
    // Memory and ledger still agree: b has no change of its own to report.
    expect(await b.writeLocal()).toEqual([]);
  });

  it('refuses a segment with a malformed operation, in words, and changes nothing', async () => {
    const a = new Device('a');
    const b = new Device('b');
    await a.store.add([{ id: 'n1', text: 'Gate code is on the fridge.' }], { from: 'user' });
    await a.writeLocal();
    await b.readFrom(a);
    const before = await stateHash(b.state);
    const stamp = a.clock.next(T0 + 9e6);
    a.log.push([
      { id: 'n2', field: 'text', value: 'A fine new note.', stamp, base: [] },
      { id: 'n1', field: 'tags', value: [{ html: '<img onerror=x>' }], stamp: a.clock.next(T0 + 9e6), base: [] },
    ]);
    await expect(b.readFrom(a)).rejects.toThrow(SyncFormatError);
    await expect(b.readFrom(a)).rejects.toThrow(/Change 2 of segment 2 of a "tags" must be a list of tags/);
    expect(await stateHash(b.state)).toBe(before);
    expect(b.store.size).toBe(1);
    expect(b.store.head('n1')!.tags).toEqual([]);
  });
});

describe('the memory database', () => {
  it('upgrades a v6 database without losing items or vectors, and adds the tables of sync\'s ledger', async () => {
    const factory = new IDBFactory();
    const v6 = new Dexie('upgrade', { indexedDB: factory, IDBKeyRange });
    v6.version(6).stores({
      items: 'id', vectors: 'id', packs: 'key', contexts: 'id', importJobs: 'id, createdAt', importFiles: '[job+n], job',
      importStaged: '[job+batch], job', removedImports: 'importId, at', handovers: 'job',
    });
    const item = { id: 'x', text: 'Kept across the upgrade', title: 'Kept', kind: 'evidence', tags: [], people: [], sites: [], pinned: false, createdAt: 1, updatedAt: 1, source: {}, tokens: 4 };
    await v6.table('items').put(item);
    await v6.table('vectors').put({ id: 'x', model: 'm', vector: new Float32Array([1, 0]) });
    v6.close();
    const db = openMemoryDB('upgrade', { indexedDB: factory, IDBKeyRange });
    await db.open();
    expect(await db.items.get('x')).toEqual(item);
    expect((await db.vectors.get('x'))!.vector).toEqual(new Float32Array([1, 0]));
    const ledger = new SyncLedger(db);
    expect((await ledger.brief()).size).toBe(0);
    expect(await ledger.pending()).toEqual([]);
  });
});
