import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import type { ImportBatch, ImportFile, ReadOptions } from '../../lib/import/types';
import { openMemoryDB, type BackstoryDB } from '../../lib/memory/db';
import { ImportJobs, type ImportJob } from '../../lib/import/import-jobs';
import { MemoryStore } from '../../lib/memory/store';
import { readImport } from '../../lib/import/index';
import { ImportRunner, type ImportRunnerDeps } from '../../lib/service/import-runner';

// The import job in the worker, on the real job table and store (fake-indexeddb), with the real readers: what a user
// sees when the worker is stopped, the file is broken, the same export comes twice, or they cancel.

const memoryFile = (n: number, prefix = 'note') =>
  JSON.stringify({ format: 'backstory-memory', version: 1, items: Array.from({ length: n }, (_, i) => ({ id: `${prefix}-${i}`, text: `${prefix} ${i}: the crate goes to pier ${i % 5}.`, createdAt: '2025-03-0' + (1 + (i % 9)) + 'T10:00:00Z' })) });
const file = (name: string, text: string): ImportFile => ({ name, blob: new Blob([text]) });

/** One worker life: a store and a runner over the shared database. */
function worker(db: BackstoryDB, read: ImportRunnerDeps['read'] = readImport, extra: Partial<ImportRunnerDeps> = {}) {
  const store = new MemoryStore(db, async () => null);
  const jobs = new ImportJobs(db);
  const pushed: ImportJob[] = [];
  const runner = new ImportRunner({
    jobs, read, commit: (inputs, importId) => store.commitImport(inputs, { importId, provenance: { from: 'import', trusted: false } }), index: () => store.embedPending(),
    push: (job) => pushed.push(job), ...extra,
  });
  return { store, jobs, runner, pushed };
}

async function ended(jobs: ImportJobs, id: string): Promise<ImportJob> {
  for (let i = 0; i < 400; i++) {
    const job = (await jobs.get(id))!;
    if (job.state === 'done' || job.state === 'failed' || job.state === 'cancelled') return job;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error('the job never ended');
}

/** A reader that yields the real first batch, then waits for `release` (a worker stopped mid-read never gets it). */
function gatedReader() {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let reached!: () => void;
  const atGate = new Promise<void>((r) => (reached = r));
  async function* read(files: ImportFile[], opts: ReadOptions): AsyncGenerator<ImportBatch> {
    let first = true;
    for await (const batch of readImport(files, opts)) {
      yield batch;
      if (first) {
        first = false;
        reached();
        await gate;
      }
    }
  }
  return { read, release, atGate };
}

describe('import jobs in the worker', () => {
  it('stages, commits all at once, reports new / updated / unchanged, and drops the stored files', async () => {
    const db = openMemoryDB('runner-1', { indexedDB: new IDBFactory(), IDBKeyRange });
    const w = worker(db);
    const job = await w.jobs.create([file('a.json', memoryFile(30)), file('b.md', '# One\nFirst.\n\n# Two\nSecond.')]);
    await w.runner.start(job.id);
    const done = await ended(w.jobs, job.id);
    expect(done).toMatchObject({ state: 'done', read: 32, counts: { added: 32, updated: 0, unchanged: 0 } });
    expect(w.store.size).toBe(32);
    expect((await w.store.read('note-3'))!.source.importId).toBe(job.id);
    expect(await w.jobs.files(job.id)).toEqual([]);
    expect(await w.jobs.staged(job.id)).toEqual([]);
    expect(w.pushed.map((j) => j.state)).toEqual(expect.arrayContaining(['reading', 'committing', 'indexing', 'done']));

    // The same export again: nothing new.
    const again = await w.jobs.create([file('a.json', memoryFile(30))]);
    await w.runner.start(again.id);
    expect((await ended(w.jobs, again.id)).counts).toEqual({ added: 0, updated: 0, unchanged: 30 });
    expect(w.store.size).toBe(32);
  });

  it('a broken file fails with a message naming it, and memory is as it was', async () => {
    const db = openMemoryDB('runner-2', { indexedDB: new IDBFactory(), IDBKeyRange });
    const w = worker(db);
    await w.store.add([{ id: 'kept', text: 'Already here.' }], { from: 'user' });
    const good = memoryFile(5);
    const job = await w.jobs.create([file('fine.json', good), file('cut.json', memoryFile(20).slice(0, 300))]);
    await w.runner.start(job.id);
    const failed = await ended(w.jobs, job.id);
    expect(failed.state).toBe('failed');
    expect(failed.error).toMatch(/^cut\.json: /);
    expect([...w.store.items()].map((i) => i.id)).toEqual(['kept']);
    expect(await w.jobs.files(job.id)).toEqual([]);
    // A reopened store (the next worker) finds the same.
    const next = new MemoryStore(db, async () => null);
    await next.load();
    expect(next.size).toBe(1);
  });

  it('a worker stopped mid-read: the next worker start reads the stored files again and the import lands once', async () => {
    const db = openMemoryDB('runner-3', { indexedDB: new IDBFactory(), IDBKeyRange });
    const gated = gatedReader();
    const first = worker(db, gated.read);
    const job = await first.jobs.create([file('a.json', memoryFile(40, 'a')), file('b.json', memoryFile(25, 'b'))]);
    await first.runner.start(job.id);
    await gated.atGate; // a.json staged, b.json not read: the worker stops here and never continues
    expect((await first.jobs.get(job.id))!.state).toBe('reading');
    expect(await first.jobs.staged(job.id)).toHaveLength(40);
    expect(first.store.size).toBe(0);

    const second = worker(db);
    await second.runner.resume();
    const done = await ended(second.jobs, job.id);
    expect(done).toMatchObject({ state: 'done', read: 65, counts: { added: 65, updated: 0, unchanged: 0 } });
    const reopened = new MemoryStore(db, async () => null);
    await reopened.load();
    expect(reopened.size).toBe(65);
  });

  it('cancel before the commit drops the staged items and files; memory is as it was', async () => {
    const db = openMemoryDB('runner-4', { indexedDB: new IDBFactory(), IDBKeyRange });
    const gated = gatedReader();
    const w = worker(db, gated.read);
    const job = await w.jobs.create([file('a.json', memoryFile(10, 'a')), file('b.json', memoryFile(10, 'b'))]);
    await w.runner.start(job.id);
    await gated.atGate;
    expect(await w.runner.cancel(job.id)).toEqual({ ok: true });
    gated.release();
    expect((await ended(w.jobs, job.id)).state).toBe('cancelled');
    expect(w.store.size).toBe(0);
    expect(await w.jobs.staged(job.id)).toEqual([]);
    expect(await w.jobs.files(job.id)).toEqual([]);
    // Once ended, there is nothing to cancel.
    expect((await w.runner.cancel(job.id)).ok).toBe(false);
  });

  it('keeps the worker alive with an extension call while a job runs, and stops when it ends', async () => {
    const db = openMemoryDB('runner-5', { indexedDB: new IDBFactory(), IDBKeyRange });
    const gated = gatedReader();
    let pings = 0;
    const w = worker(db, gated.read, { keepAlive: async () => pings++, keepAliveMs: 5 });
    const job = await w.jobs.create([file('a.json', memoryFile(3, 'a')), file('b.json', memoryFile(3, 'b'))]);
    await w.runner.start(job.id);
    await gated.atGate;
    await new Promise((r) => setTimeout(r, 40));
    expect(pings).toBeGreaterThan(2);
    gated.release();
    await ended(w.jobs, job.id);
    const after = pings;
    await new Promise((r) => setTimeout(r, 40));
    expect(pings).toBe(after);
  });

  it('custom instructions in a ChatGPT export are offered on the job, never saved on their own', async () => {
    const db = openMemoryDB('runner-6', { indexedDB: new IDBFactory(), IDBKeyRange });
    const w = worker(db);
    const msg = (id: string, parent: string | null, message: unknown) => ({ id, parent, children: [], message });
    const conv = {
      id: 'c1', conversation_id: 'c1', title: 'Budget', create_time: 1735000000, current_node: 'm2',
      mapping: {
        root: msg('root', null, null),
        ctx: msg('ctx', 'root', { id: 'ctx', author: { role: 'user' }, content: { content_type: 'user_editable_context', user_profile: '', user_instructions: 'The user provided the additional info about how they would like you to respond:\n```Answer in British English, briefly.```' }, weight: 1, metadata: { is_visually_hidden_from_conversation: true } }),
        m1: msg('m1', 'ctx', { id: 'm1', author: { role: 'user' }, create_time: 1735000001, content: { content_type: 'text', parts: ['Trim the Q3 travel line by 10 percent?'] }, weight: 1, metadata: {}, recipient: 'all' }),
        m2: msg('m2', 'm1', { id: 'm2', author: { role: 'assistant' }, create_time: 1735000002, content: { content_type: 'text', parts: ['Yes: cut two offsites.'] }, weight: 1, metadata: {}, recipient: 'all' }),
      },
    };
    const job = await w.jobs.create([file('conversations.json', JSON.stringify([conv]))]);
    await w.runner.start(job.id);
    const done = await ended(w.jobs, job.id);
    expect(done.counts).toEqual({ added: 2, updated: 0, unchanged: 0 });
    expect(done.offers).toEqual([expect.objectContaining({ text: 'Answer in British English, briefly.' })]);
    expect((await w.store.all()).some((i) => i.text.includes('British English'))).toBe(false);
    expect(await w.runner.takeOffer(job.id, 0)).toMatchObject({ text: 'Answer in British English, briefly.' });
    expect((await w.jobs.get(job.id))!.offers).toEqual([]);
  });

  it('the next import is read and committed while the last one is still being indexed', async () => {
    const db = openMemoryDB('runner-7', { indexedDB: new IDBFactory(), IDBKeyRange });
    let finishIndexing!: () => void;
    const indexing = new Promise<void>((r) => (finishIndexing = r));
    const w = worker(db, readImport, { index: () => indexing });
    const a = await w.jobs.create([file('a.json', memoryFile(5, 'a'))]);
    const b = await w.jobs.create([file('b.json', memoryFile(7, 'b'))]);
    await w.runner.start(a.id);
    await w.runner.start(b.id);
    for (let i = 0; i < 200 && (await w.jobs.get(b.id))!.state !== 'indexing'; i++) await new Promise((r) => setTimeout(r, 5));
    expect((await w.jobs.get(a.id))!.state).toBe('indexing');
    expect((await w.jobs.get(b.id))).toMatchObject({ state: 'indexing', counts: { added: 7, updated: 0, unchanged: 0 } });
    expect(w.store.size).toBe(12);
    finishIndexing();
    expect((await ended(w.jobs, b.id)).state).toBe('done');
  });

  it('a file that stops the worker twice is failed with a message on the next start, not read a third time', async () => {
    const db = openMemoryDB('runner-8', { indexedDB: new IDBFactory(), IDBKeyRange });
    // Each worker life starts reading conv.json and never gets further: the browser stopped it (out of memory).
    const stops = async () => {
      const gated = gatedReader();
      const w = worker(db, gated.read);
      await w.runner.resume();
      await gated.atGate;
    };
    const first = worker(db, gatedReader().read);
    const job = await first.jobs.create([file('conv.json', memoryFile(3, 'a')), file('b.json', memoryFile(3, 'b'))]);
    await stops();
    await stops();

    let read = 0;
    const third = worker(db, (files, opts) => (read++, readImport(files, opts)));
    await third.runner.resume();
    const failed = await ended(third.jobs, job.id);
    expect(read).toBe(0);
    expect(failed.state).toBe('failed');
    expect(failed.error).toMatch(/^conv\.json, b\.json: Backstory stopped twice while importing (it|them); (it|they) may be too large or damaged/);
    expect(await third.jobs.files(job.id)).toEqual([]);
    expect(third.store.size).toBe(0);
    // Later starts leave it failed.
    await worker(db).runner.resume();
    expect((await third.jobs.get(job.id))!.state).toBe('failed');
  });

  it('a worker stopped once mid-read still finishes the import at its next start', async () => {
    const db = openMemoryDB('runner-9', { indexedDB: new IDBFactory(), IDBKeyRange });
    const gated = gatedReader();
    const first = worker(db, gated.read);
    const job = await first.jobs.create([file('a.json', memoryFile(4, 'a')), file('b.json', memoryFile(4, 'b'))]);
    await first.runner.start(job.id);
    await gated.atGate;
    const second = worker(db);
    await second.runner.resume();
    expect(await ended(second.jobs, job.id)).toMatchObject({ state: 'done', counts: { added: 8, updated: 0, unchanged: 0 } });
  });
});

describe('a picked file handed over by a page that may close at any moment', () => {
  const mark = (job: string, name: string, text: string) => ({ job, createdAt: Date.now(), fileNames: [name], bytes: text.length });

  it('the page closes after storing the file but before asking: the worker runs the import on its own', async () => {
    const db = openMemoryDB('handover-1', { indexedDB: new IDBFactory(), IDBKeyRange });
    const w = worker(db);
    const text = memoryFile(6, 'h');
    const m = mark('import-h1', 'conv.json', text);
    await w.runner.expect(m); // the page's port opens
    await w.jobs.handOver(m, [file('conv.json', text)]);
    await w.runner.handedOver(m.job); // the page closed: its port closes
    expect(await ended(w.jobs, m.job)).toMatchObject({ state: 'done', fileNames: ['conv.json'], counts: { added: 6, updated: 0, unchanged: 0 } });
    expect(w.store.size).toBe(6);
  });

  it('the page closes while storing the file: the job is failed with a message saying so, never left waiting', async () => {
    const db = openMemoryDB('handover-2', { indexedDB: new IDBFactory(), IDBKeyRange });
    const w = worker(db);
    const m = mark('import-h2', 'conv.json', memoryFile(6, 'h'));
    await w.runner.expect(m);
    expect((await w.jobs.get(m.job))!.state).toBe('handing');
    await w.runner.handedOver(m.job); // the write never committed
    const failed = (await w.jobs.get(m.job))!;
    expect(failed.state).toBe('failed');
    expect(failed.error).toMatch(/^conv\.json: the page was closed before Backstory had the whole file, so it was not imported\. Choose it again/);
    expect(w.pushed.at(-1)).toMatchObject({ id: m.job, state: 'failed' });
    expect(w.store.size).toBe(0);
  });

  it('a worker that stopped during the hand-over: its next start runs what was stored and reports what was not', async () => {
    const db = openMemoryDB('handover-3', { indexedDB: new IDBFactory(), IDBKeyRange });
    const first = worker(db);
    const text = memoryFile(4, 'k');
    const whole = mark('import-h3', 'whole.json', text);
    const cut = mark('import-h4', 'cut.json', text);
    await first.runner.expect(whole);
    await first.runner.expect(cut);
    await first.jobs.handOver(whole, [file('whole.json', text)]);
    // The worker stops here; cut.json's page was closed mid-write.
    const next = worker(db);
    await next.runner.resume();
    expect(await ended(next.jobs, whole.job)).toMatchObject({ state: 'done', counts: { added: 4, updated: 0, unchanged: 0 } });
    expect(await next.jobs.get(cut.job)).toMatchObject({ state: 'failed', error: expect.stringMatching(/^cut\.json: the page was closed/) });
  });

  it('a page still storing when the worker restarted: once it is done and asks, the import runs after all', async () => {
    const db = openMemoryDB('handover-4', { indexedDB: new IDBFactory(), IDBKeyRange });
    const first = worker(db);
    const text = memoryFile(3, 'late');
    const m = mark('import-h5', 'late.json', text);
    await first.runner.expect(m);
    const next = worker(db);
    await next.runner.resume(); // the page has not finished: reported
    expect((await next.jobs.get(m.job))!.state).toBe('failed');
    await next.jobs.handOver(m, [file('late.json', text)]);
    await next.runner.start(m.job);
    const done = await ended(next.jobs, m.job);
    expect(done).toMatchObject({ state: 'done', counts: { added: 3, updated: 0, unchanged: 0 } });
    expect(done.error).toBeUndefined();
  });

  it('cancelled while the page was storing the file: it stays cancelled and the files stored after are dropped', async () => {
    const db = openMemoryDB('handover-5', { indexedDB: new IDBFactory(), IDBKeyRange });
    const w = worker(db);
    const text = memoryFile(3, 'c');
    const m = mark('import-h6', 'c.json', text);
    await w.runner.expect(m);
    expect(await w.runner.cancel(m.job)).toEqual({ ok: true });
    await w.jobs.handOver(m, [file('c.json', text)]);
    await w.runner.handedOver(m.job);
    expect((await w.jobs.get(m.job))!.state).toBe('cancelled');
    expect(await w.jobs.files(m.job)).toEqual([]);
    await worker(db).runner.resume();
    expect((await w.jobs.get(m.job))!.state).toBe('cancelled');
    expect(w.store.size).toBe(0);
  });
});
