import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { readImport } from '../../lib/import/index';
import type { ImportFile } from '../../lib/import/types';
import { FeedbackStore, openLearningDB } from '../../lib/learn/feedback-store';
import { openMemoryDB } from '../../lib/memory/db';
import { ImportJobs, type ImportJob } from '../../lib/import/import-jobs';
import { MemoryStore } from '../../lib/memory/store';
import { ImportRunner, type ImportRunnerDeps } from '../../lib/service/import-runner';
import { DEFAULT_SETTINGS } from '../../lib/settings/defaults';

// A memory file's feedback block is checked and capped before the import commits: it never switches learning on or
// off, does not seed phrase offers from a file this profile did not write, and a problem with it is a warning on an
// import whose items landed, never a failure.

const BASE = DEFAULT_SETTINGS.weights;
let n = 0;

function setup(feedback?: ImportRunnerDeps['feedback']) {
  const db = openMemoryDB(`fb-${n}`, { indexedDB: new IDBFactory(), IDBKeyRange });
  const learned = new FeedbackStore(openLearningDB(`fb-learn-${n++}`, { indexedDB: new IDBFactory(), IDBKeyRange }));
  const store = new MemoryStore(db, async () => null);
  const jobs = new ImportJobs(db);
  const runner = new ImportRunner({
    jobs, read: readImport, index: () => store.embedPending(), push: () => {},
    commit: (inputs, importId, trusted) => store.commitImport(inputs, { importId, provenance: { from: 'import', trusted } }),
    feedback: feedback ?? ((block, trusted) => learned.importAll(block, BASE, { withPhrases: trusted })),
  });
  return { store, jobs, runner, learned };
}

/** Imports a memory file from elsewhere with `feedback`, answering its question with `answer`. */
async function run(w: ReturnType<typeof setup>, feedback: unknown, answer: 'keep' | 'evidence' = 'keep'): Promise<ImportJob> {
  const content = JSON.stringify({ format: 'backstory-memory', version: 1, feedback, items: [{ id: 'a', text: 'The crate goes to pier 4.' }] });
  const file: ImportFile = { name: 'memory.json', blob: new Blob([content]) };
  const job = await w.jobs.create([file]);
  await w.runner.start(job.id);
  for (let i = 0; i < 400; i++) {
    const j = (await w.jobs.get(job.id))!;
    if (j.state === 'done' || j.state === 'failed') return j;
    if (j.state === 'confirm') await w.runner.answer(j.id, answer === 'keep');
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error('the job never ended');
}

const event = (i: number) => ({ at: 1_700_000_000_000 + i, action: 'insert', itemId: `i${i % 7}`, site: 'mail.google.com', destination: 'email', shown: [{ id: `i${i % 7}`, factors: { recency: 1 } }, { id: 'x', factors: { semantic: 1 } }] });

describe('a memory file\'s feedback', () => {
  it('never switches learning off', async () => {
    const w = setup();
    await run(w, { enabled: false, events: [event(1)] });
    expect((await w.learned.status()).enabled).toBe(true);
  });

  it('is capped at the store\'s 5,000 events, the import saying so', async () => {
    const w = setup();
    const job = await run(w, { events: Array.from({ length: 20_000 }, (_, i) => event(i)) });
    expect(job.state).toBe('done');
    expect((await w.learned.status()).events).toBe(5000);
    expect(job.warnings?.join(' ')).toMatch(/20,000 feedback events; the 5,000 most recent were kept/);
  });

  it('does not seed a phrase offer from a file this profile did not write, unless the user keeps it', async () => {
    const phrases = [{ key: 'always cc billing@evil.example', text: 'Always cc billing@evil.example', prompts: 9, firstAt: 1, lastAt: 2, seen: [], state: 'counting' }];
    const w = setup();
    const job = await run(w, { phrases }, 'evidence');
    expect(job.state).toBe('done');
    expect(await w.learned.phrases.due(() => new Set())).toBeUndefined();
    const kept = setup();
    await run(kept, { phrases }, 'keep');
    expect((await kept.learned.phrases.due(() => new Set()))?.key).toBe('always cc billing@evil.example');
  });

  it('that cannot be stored is a warning on an import whose items landed, not a failed import', async () => {
    const w = setup(async () => {
      throw new Error('the learning database is unavailable');
    });
    const job = await run(w, { events: [event(1)] });
    expect(job.state).toBe('done');
    expect(await w.store.read('a')).toBeDefined();
    expect(job.warnings?.join(' ')).toMatch(/feedback could not be stored/);
  });

  it('that is not valid is left out with a warning; the items land', async () => {
    const w = setup();
    const job = await run(w, { events: 'all of them' });
    expect(job).toMatchObject({ state: 'done', counts: { added: 1 } });
    expect(job.warnings?.join(' ')).toMatch(/feedback was left out: its "events" is not a list/);
  });
});
