import { useEffect, useState } from 'preact/hooks';
import './import.css';
import type { ImportFile } from '../../import/types';
import type { ImportJob } from '../../import/import-jobs';
import { callBackground, NoReceiverError } from '../../messaging/rpc';
import { filesFromDrop, filesFromInput } from './collect-files';
import { handOver, prepareHandover } from './handover';
import { ImportFormatsHelp } from './import-formats-help';
import { ImportOffers } from './import-offers';
import { activeJob, lastOutcome } from './import-state';
import { filesOf, indexingText, outcomeText, trustQuestion, workingText } from './import-text';
import { useImportJobs } from './use-import-jobs';

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

/** The jobs as the worker reports them, with the one this page stored shown as waiting until the worker has taken it. */
function withHanded(jobs: ImportJob[], handed: ImportJob | undefined): ImportJob[] {
  if (!handed) return jobs;
  const known = jobs.find((j) => j.id === handed.id);
  if (known && known.state !== 'handing') return jobs;
  return [handed, ...jobs.filter((j) => j.id !== handed.id)];
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
  /** The job this page has just stored: waiting to import, until the worker reports it (it may be busy a while). */
  const [handed, setHanded] = useState<ImportJob>();
  const jobs = withHanded(view.jobs, handed);
  // Once committed, the indexing line below says how far it got.
  const active = [activeJob(jobs)].find((j) => j && j.state !== 'indexing');
  const outcome = lastOutcome(view.jobs);

  /** A job the worker did not take when asked (stopped, not answering); it goes once the worker reports it. */
  const [unstarted, setUnstarted] = useState<Unstarted>();
  const taken = unstarted && jobs.some((j) => j.id === unstarted.job.id && j.state !== 'queued');
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
    const handing = handOver(files);
    handing.stored
      .then(
        () => {
          // Handed over: the worker has the files, whatever it is busy with; its answer is not waited for here.
          setHanding('');
          setHanded(handing.job);
          view.refresh();
          return ask(handing.job);
        },
        (e: Error) => setProblem(`Not imported: ${e.message} Nothing was changed.`),
      )
      .finally(() => {
        setHanding('');
        handing.done();
      });
  };
  const onInput = (e: Event) => {
    const input = e.target as HTMLInputElement;
    run(filesFromInput(input.files));
    input.value = '';
  };

  /** Set once a picked file can be stored the moment it is picked (the page may be closed right after). */
  const [ready, setReady] = useState(false);
  useEffect(() => prepareHandover(() => setReady(true)), []);

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

  /** Memory files from elsewhere waiting for the user's answer (lib/memory/import-trust.ts). */
  const asking = view.jobs.filter((j) => j.state === 'confirm');
  const answer = (jobId: string, keep: boolean) =>
    void callBackground('import:trust', { jobId, keep }).then(view.refresh, (e: Error) => setProblem(e.message));

  const cancel = (jobId: string) =>
    void callBackground('import:cancel', { jobId }).then((r) => !r.ok && r.reason && setProblem(r.reason), (e: Error) => setProblem(e.message));

  return (
    <div class="import" data-testid="import" data-ready={ready ? 'true' : undefined}>
      <p class="muted">
        Drop files or folders anywhere on this page, or choose them. Backstory tells the kind of file from its content.
        An import is all or nothing, and importing the same export again adds only what is new.
      </p>
      <ImportFormatsHelp />
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
      {asking.map((job) => (
        <div class="progress-note" role="alert" data-testid="import-trust" data-job={job.id} key={job.id}>
          <span data-testid="import-trust-text">{trustQuestion(job)}</span>{' '}
          <button data-testid="import-trust-keep" onClick={() => answer(job.id, true)}>
            Keep them
          </button>{' '}
          <button class="primary" data-testid="import-trust-evidence" onClick={() => answer(job.id, false)}>
            Import as evidence
          </button>{' '}
          <button data-testid="import-trust-cancel" onClick={() => cancel(job.id)}>
            Cancel
          </button>
        </div>
      ))}
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
