// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fakeBrowser } from 'wxt/testing';
import type { ImportJob } from '../../lib/import/import-jobs';

// The page stores the picked files (IndexedDB) before it asks the worker to run them: a stored job here.
const stored: ImportJob = { id: 'job-1', createdAt: 1, fileNames: ['notes.json'], bytes: 2, state: 'queued', read: 0 };
/** What the page did, in order: announced the hand-over (a port), stored the files, closed the port. */
const steps: string[] = [];
vi.mock('../../lib/memory/db', () => ({ openMemoryDB: () => ({ close() {}, async open() {}, isOpen: () => true, backendDB: () => ({}) }) }));
vi.mock('../../lib/import/import-jobs', () => ({
  newJobId: () => 'job-1',
  async storeHandover(_db: unknown, mark: { job: string; fileNames: string[] }) {
    steps.push(`stored ${mark.job} ${mark.fileNames.join(',')}`);
  },
}));

/** The worker as the page sees it: `import:start` fails while `stopped` says so, as a worker stopped before answering. */
const worker = {
  stopped: 0,
  /** import:start is never answered (a worker busy loading its model, or committing another import). */
  busy: false,
  starts: [] as string[],
  jobs: [] as ImportJob[],
  ports: [] as ((m: unknown) => void)[],
  push(m: unknown) {
    for (const deliver of this.ports) deliver(m);
  },
};
const chromeFake = Object.assign(fakeBrowser, {
  runtime: Object.assign(fakeBrowser.runtime, {
    sendMessage: async (msg: { type: string; payload: { jobId?: string } }) => {
      if (msg.type === 'import:status') return { ok: true, value: { jobs: worker.jobs } };
      if (msg.type !== 'import:start') return { ok: true, value: {} };
      worker.starts.push(msg.payload.jobId!);
      if (worker.busy) return new Promise(() => {});
      if (worker.stopped > 0) {
        worker.stopped--;
        throw new Error('The message port closed before a response was received.');
      }
      worker.jobs = [stored];
      return { ok: true, value: { ok: true } };
    },
    connect: ({ name }: { name?: string } = {}) => {
      const listeners: ((m: unknown) => void)[] = [];
      worker.ports.push((m) => listeners.forEach((l) => l(m)));
      if (name?.startsWith('backstory-import-handover:')) steps.push(`announced ${JSON.parse(name.slice('backstory-import-handover:'.length)).job}`);
      return { postMessage() {}, disconnect: () => name?.startsWith('backstory-import-handover:') && steps.push('port closed'), onMessage: { addListener: (l: (m: unknown) => void) => listeners.push(l) }, onDisconnect: { addListener() {} } };
    },
  }),
});

// The storage and messaging APIs the page sees, before wxt/browser is first imported (by the section, below).
(globalThis as { chrome?: unknown }).chrome = chromeFake;

const settle = () => new Promise((r) => setTimeout(r, 20));
let root: HTMLDivElement;
let unmount = () => {};
/** Opens the import section and picks one file in it. */
async function pick() {
  const preact = await import('preact');
  const { ImportSection } = await import('../../lib/ui/import/import-section');
  root = document.createElement('div');
  document.body.append(root);
  preact.render(preact.h(ImportSection, { onChanged: () => undefined }), root);
  unmount = () => preact.render(null, root);
  await settle();
  const input = root.querySelector<HTMLInputElement>('[data-testid="import-file"]')!;
  Object.defineProperty(input, 'files', { configurable: true, value: [new File(['{}'], 'notes.json')] });
  input.dispatchEvent(new Event('change'));
  await settle();
}
const text = () => root.textContent ?? '';
afterEach(() => {
  unmount();
  root.remove();
  Object.assign(worker, { stopped: 0, busy: false, starts: [], jobs: [] });
  steps.length = 0;
});

describe('handing an import to the worker', () => {
  it('tells the worker before it stores the files, so the worker takes them up even if the page closes before asking', async () => {
    await pick();
    expect(steps).toEqual(['announced job-1', 'stored job-1 notes.json', 'port closed']);
  });

  it('is over once the files are stored: a busy worker does not keep the page saying "Handing…"', async () => {
    worker.busy = true;
    await pick();
    expect(root.querySelector('[data-testid="import-handing"]')).toBeNull();
    expect(root.querySelector('[data-testid="import-progress"]')?.textContent).toContain('Waiting to import notes.json');
    expect(text()).not.toMatch(/Not imported/);
  });
});

describe('handing an import to a worker that was stopped right after the file was picked', () => {
  it('asks the fresh worker again, and the page says the import is under way, not that it failed', async () => {
    worker.stopped = 1;
    await pick();
    expect(worker.starts).toEqual(['job-1', 'job-1']);
    expect(text()).not.toMatch(/Not imported|Nothing was changed/);
    expect(root.querySelector('[data-testid="import-progress"]')?.textContent).toContain('Waiting to import notes.json');
  });

  it('never says "nothing was changed" of files it kept: it says they wait, offers to try again, and the retry runs it', async () => {
    worker.stopped = 2;
    await pick();
    const note = root.querySelector('[data-testid="import-unstarted"]');
    expect(note?.textContent).toMatch(/notes\.json yet: No answer from Backstory .* The files are kept, and the import starts/);
    expect(text()).not.toMatch(/Nothing was changed/);
    root.querySelector<HTMLButtonElement>('[data-testid="import-retry"]')!.click();
    await settle();
    expect(worker.starts).toEqual(['job-1', 'job-1', 'job-1']);
    expect(root.querySelector('[data-testid="import-unstarted"]')).toBeNull();
    expect(root.querySelector('[data-testid="import-progress"]')?.textContent).toContain('Waiting to import notes.json');
  });

  it('a kept job the worker picks up on its own (its next start resumes it) clears the note', async () => {
    worker.stopped = 2;
    await pick();
    expect(root.querySelector('[data-testid="import-unstarted"]')).not.toBeNull();
    worker.push({ type: 'import', job: { ...stored, state: 'reading' } });
    await settle();
    expect(root.querySelector('[data-testid="import-unstarted"]')).toBeNull();
    expect(root.querySelector('[data-testid="import-progress"]')?.textContent).toContain('Reading notes.json');
  });
});
