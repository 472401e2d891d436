import { useEffect, useState } from 'preact/hooks';
import './import.css';
import type { ImportFile } from '../../import/types';
import { ImportJobs, type ImportJob } from '../../import/import-jobs';
import { openMemoryDB } from '../../memory/db';
import { callBackground, NoReceiverError } from '../../messaging/rpc';
import { filesFromDrop, filesFromInput } from './collect-files';
import { ImportOffers } from './import-offers';
import { activeJob, lastOutcome } from './import-state';
import { filesOf, indexingText, outcomeText, workingText } from './import-text';
import { useImportJobs } from './use-import-jobs';

/**
 * Picked or dropped files are handed to the worker in two steps: the page writes them into IndexedDB as a job
 * (here), then asks the worker to run it (runImport). The file never travels in a message, and the import goes on if
 * this page closes; its outcome shows whenever the options page or the panel next opens.
 */
async function storeImport(files: ImportFile[]): Promise<ImportJob> {
  const db = openMemoryDB();
  try {
    return await new ImportJobs(db).create(files);
  } finally {
    db.close();
  }
}

/**
 * Asks the worker to run a stored job. A worker stopped before it answered is asked once more: the message starts a
 * fresh one, and asking twice for one job runs it once.
 */
async function runImport(jobId: string): Promise<void> {
  try {
    await callBackground('import:start', { jobId });
  } catch (e) {
    if (!(e instanceof NoReceiverError)) throw e;
    await callBackground('import:start', { jobId });
  }
}

/** A stored job the worker has not taken yet: its files are kept, and the worker's next start runs it. */
interface Unstarted {
  job: ImportJob;
  reason: string;
}

/** Only a drag that carries files is an import (not text or a link dragged across the page). */
const carriesFiles = (e: DragEvent) => !!e.dataTransfer && Array.from(e.dataTransfer.types).includes('Files');

/** The options page's import: file and folder inputs, drop anywhere on the page, progress, cancel, outcome, offers. */
export function ImportSection(props: { onChanged?: () => void }) {
  const view = useImportJobs();
  const [problem, setProblem] = useState('');
  const [dragging, setDragging] = useState(false);
  /** Files being written into IndexedDB for the worker (a large export takes a moment); the page must stay open. */
  const [handing, setHanding] = useState('');
  // Once committed, the indexing line below says how far it got.
  const active = [activeJob(view.jobs)].find((j) => j && j.state !== 'indexing');
  const outcome = lastOutcome(view.jobs);

  /** A job the worker did not take when asked (stopped, not answering); it goes once the worker reports it. */
  const [unstarted, setUnstarted] = useState<Unstarted>();
  const taken = unstarted && view.jobs.some((j) => j.id === unstarted.job.id && j.state !== 'queued');
  const ask = (job: ImportJob) =>
    runImport(job.id).then(
      () => (setUnstarted(undefined), view.refresh()),
      (e: Error) => {
        if (e instanceof NoReceiverError) return setUnstarted({ job, reason: e.message });
        setUnstarted(undefined);
        setProblem(`Not imported: ${e.message} Nothing was changed.`);
      },
    );

  const run = (files: ImportFile[]) => {
    if (!files.length) return;
    setProblem('');
    setHanding(files.length === 1 ? files[0].name : `${files.length} files`);
    storeImport(files)
      .then(ask, (e: Error) => setProblem(`Not imported: ${e.message} Nothing was changed.`))
      .finally(() => setHanding(''));
  };
  const onInput = (e: Event) => {
    const input = e.target as HTMLInputElement;
    run(filesFromInput(input.files));
    input.value = '';
  };

  useEffect(() => {
    if (!handing) return;
    const warn = (e: BeforeUnloadEvent) => e.preventDefault();
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [handing]);

  useEffect(() => {
    let depth = 0; // dragenter/dragleave fire for every child element crossed
    const enter = (e: DragEvent) => {
      if (!carriesFiles(e)) return;
      depth++;
      setDragging(true);
    };
    const leave = (e: DragEvent) => {
      if (carriesFiles(e) && --depth <= 0) {
        depth = 0;
        setDragging(false);
      }
    };
    const over = (e: DragEvent) => {
      if (!carriesFiles(e)) return;
      e.preventDefault(); // allows the drop
      e.dataTransfer!.dropEffect = 'copy';
    };
    const drop = (e: DragEvent) => {
      if (!carriesFiles(e)) return;
      e.preventDefault(); // the browser would open the file instead
      depth = 0;
      setDragging(false);
      void filesFromDrop(e.dataTransfer!).then(run, (err: Error) => setProblem(`Not imported: ${err.message}`));
    };
    window.addEventListener('dragenter', enter);
    window.addEventListener('dragleave', leave);
    window.addEventListener('dragover', over);
    window.addEventListener('drop', drop);
    return () => {
      window.removeEventListener('dragenter', enter);
      window.removeEventListener('dragleave', leave);
      window.removeEventListener('dragover', over);
      window.removeEventListener('drop', drop);
    };
  }, []);

  // Memory changed once an import is committed: the page's lists reload.
  const committed = view.jobs.filter((j) => j.counts).length;
  useEffect(() => {
    if (committed) props.onChanged?.();
  }, [committed]);

  const cancel = (jobId: string) =>
    void callBackground('import:cancel', { jobId }).then((r) => !r.ok && r.reason && setProblem(r.reason), (e: Error) => setProblem(e.message));

  return (
    <div class="import" data-testid="import">
      <p class="muted">
        Drop files or folders anywhere on this page, or choose them: a Backstory memory file (.json), a ChatGPT data
        export (the .zip as mailed, or its conversations.json), a Claude data export, mail (.mbox from Google Takeout,
        or .eml), a Notion export (.zip), Markdown notes or an Obsidian vault, plain text. An import is all or
        nothing, and importing the same export again adds only what is new.
      </p>
      <div class="io-row">
        <label class="file">
          <span>Files</span>
          <input data-testid="import-file" type="file" multiple onChange={onInput} />
        </label>
        <label class="file">
          <span>A folder of notes</span>
          <input data-testid="import-folder" type="file" multiple onChange={onInput} ref={(el) => el?.setAttribute('webkitdirectory', '')} />
        </label>
      </div>
      {dragging ? (
        <div class="drop-target" data-testid="import-drop" aria-hidden="true">
          Drop to import
        </div>
      ) : null}
      {handing ? (
        <div class="progress-note" role="status" data-testid="import-handing">
          <span>Handing {handing} to Backstory…</span>
          <progress aria-label="Handing the files over" />
        </div>
      ) : null}
      {active ? (
        <div class="progress-note" role="status" data-testid="import-progress" data-state={active.state} data-job={active.id}>
          <span>{workingText(active, view.reading[active.id], view.indexing)}</span>
          {active.state === 'reading' && view.reading[active.id]?.bytesTotal ? (
            <progress max={view.reading[active.id].bytesTotal} value={view.reading[active.id].bytesRead} aria-label="Reading progress" />
          ) : (
            <progress aria-label="Import progress" />
          )}
          {active.state === 'queued' || active.state === 'reading' ? (
            <button data-testid="import-cancel" onClick={() => cancel(active.id)}>
              Cancel
            </button>
          ) : null}
        </div>
      ) : null}
      {unstarted && !taken ? (
        <p class="error" role="alert" data-testid="import-unstarted">
          Backstory did not take {filesOf(unstarted.job)} yet: {unstarted.reason} The files are kept, and the import
          starts the next time Backstory runs, or now.{' '}
          <button data-testid="import-retry" onClick={() => void ask(unstarted.job)}>
            Try again
          </button>
        </p>
      ) : null}
      {view.indexing ? (
        <p role="status" data-testid="indexing">
          {indexingText(view.indexing)}
          {' '}
          <progress max={view.indexing.total} value={view.indexing.done} aria-label="Indexing progress" />
        </p>
      ) : null}
      {problem ? (
        <p class="error" role="alert">
          <span data-testid="import-message">{problem}</span>
        </p>
      ) : outcome ? (
        <p class={outcome.state === 'failed' ? 'error' : 'ok'} role={outcome.state === 'failed' ? 'alert' : 'status'}>
          <span data-testid="import-message" data-state={outcome.state} data-job={outcome.id}>{outcomeText(outcome)}</span>{' '}
          <button class="link" data-testid="import-dismiss" onClick={() => void callBackground('import:dismiss', { jobId: outcome.id }).then(view.refresh)}>
            Dismiss
          </button>
        </p>
      ) : null}
      <ImportOffers jobs={view.jobs} onChanged={() => {
        view.refresh();
        props.onChanged?.();
      }} />
    </div>
  );
}
