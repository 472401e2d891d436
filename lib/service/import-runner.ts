import { ImportFileError, type ImportBatch, type ImportFile, type ImportOffer, type ReadOptions, type ReadProgress } from '../import/types';
import { trustAsks } from '../memory/import-trust';
import type { HandoverRow, ImportJob, ImportJobs } from '../import/import-jobs';
import type { ImportCounts } from '../memory/import-plan';
import type { MemoryInput } from '../memory/types';
import { readFeedbackBlock, type FeedbackBlock } from '../learn/feedback-file';

/** What the runner needs from the rest of the worker; tests hand it the real store and job table on fake-indexeddb. */
export interface ImportRunnerDeps {
  jobs: Pick<ImportJobs, 'get' | 'list' | 'update' | 'stage' | 'staged' | 'unstage' | 'files' | 'discard' | 'expect' | 'takeHandover' | 'handedOver'>;
  read(files: ImportFile[], opts: ReadOptions): AsyncIterable<ImportBatch>;
  /**
   * All or nothing (MemoryStore.commitImport). `trusted`: the memory files in it are this profile's own, or the user
   * kept what they ask for (lib/memory/intake.ts).
   */
  commit(inputs: MemoryInput[], importId: string, trusted: boolean): Promise<ImportCounts>;
  /**
   * Background embedding of what the commit stored (the service's indexing, which reports its own progress);
   * resolves once nothing the model can embed is left waiting.
   */
  index(): Promise<unknown>;
  /** Tells every open page (push `{type: 'import', job}`). */
  push(job: ImportJob, progress?: ReadProgress): void;
  /** The commit landed: memory changed, panels re-rank (lexical search works on it at once). */
  committed?(job: ImportJob): void;
  /**
   * A memory file's feedback (lib/learn), checked and capped while the file was read and stored once its items have
   * landed; its phrase counts only from a trusted file.
   */
  feedback?(block: FeedbackBlock, trusted: boolean): Promise<unknown>;
  /** An extension API call that resets the browser's idle timer (MV3 stops a worker after 30 s without one). */
  keepAlive?(): Promise<unknown>;
  keepAliveMs?: number;
}

/** States in which the job's work is not finished: a worker start resumes them. */
const UNFINISHED: ReadonlySet<ImportJob['state']> = new Set(['queued', 'reading', 'committing', 'indexing']);
/** States before the commit: cancelling them leaves memory as it was. */
const CANCELLABLE: ReadonlySet<ImportJob['state']> = new Set(['handing', 'queued', 'reading', 'confirm']);
/**
 * Runs of one job's reading that may start: a run that never ended means the worker stopped under it, and a file that
 * stops it twice (too large for memory, or a reader caught on it) would otherwise be read again at every start.
 */
const MAX_ATTEMPTS = 2;
/** Read progress is pushed at most this often (a big export reports thousands of times). */
const PUSH_EVERY_MS = 250;

class Cancelled extends Error {}

/**
 * Runs import jobs in the service worker (Firefox: the event page): read the job's files from IndexedDB with the
 * importers, stage each batch, commit everything in one transaction, then index in the background. The job row holds
 * the state, so a worker stopped at any point resumes at its next start (`resume`): before the commit it reads the
 * files again (the stopped run's staged batches dropped first; the commit is all or nothing, so nothing landed
 * twice), after it only the indexing goes on. Jobs run one at a time, in the order they were started.
 */
export class ImportRunner {
  private queue: Promise<void> = Promise.resolve();
  private active = new Map<string, AbortController>();
  /** Hand-overs announced to this worker whose page has not gone yet. */
  private handing = new Set<string>();

  constructor(private readonly deps: ImportRunnerDeps) {}

  /**
   * A page is about to store picked files (it tells the worker first): the job is recorded as being handed over, and
   * the worker stays alive until the page is done (`handedOver`), so the import never depends on the page asking.
   */
  async expect(meta: HandoverRow): Promise<() => void> {
    this.handing.add(meta.job);
    const job = await this.deps.jobs.expect(meta);
    if (job.state === 'handing') this.deps.push(job);
    return this.keepAlive();
  }

  /**
   * The page that announced a hand-over is gone (closed, or done): the job runs if its files are all stored, and is
   * failed with a message if the page closed before they were.
   */
  async handedOver(jobId: string): Promise<void> {
    this.handing.delete(jobId);
    const job = (await this.take(jobId)) ?? (await this.deps.jobs.get(jobId));
    if (job?.state === 'queued' && !this.active.has(jobId)) this.enqueue(job);
    if (job?.state === 'handing') await this.finish(job, { state: 'failed', error: notHandedText(job), handoverCut: true }, false); // nothing stored to drop; files stored late still run
  }

  /** takeHandover, dropping the files of a job that ended meanwhile (cancelled while its page was storing them). */
  private async take(jobId: string): Promise<ImportJob | undefined> {
    const job = await this.deps.jobs.takeHandover(jobId);
    if (job && !UNFINISHED.has(job.state)) await this.deps.jobs.discard(jobId);
    return job;
  }

  /** Queues a job the page created; resolves once it is queued (the work goes on in the background). */
  async start(jobId: string): Promise<void> {
    const job = (await this.take(jobId)) ?? (await this.deps.jobs.get(jobId));
    if (!job) throw new Error('That import is no longer there: choose the files again.');
    if (this.active.has(jobId) || !UNFINISHED.has(job.state)) return;
    this.enqueue(job);
  }

  /**
   * At every worker start: picks up the jobs a stopped worker left unfinished, and the hand-overs stored meanwhile. A
   * hand-over still unfinished was cut off (its page would have finished storing by now, or was closed): it is failed
   * with a message; should its page still finish and ask, `start` runs it after all.
   */
  async resume(): Promise<void> {
    for (const id of await this.deps.jobs.handedOver()) await this.take(id);
    for (const job of await this.deps.jobs.list()) {
      if (job.state === 'handing' && !this.handing.has(job.id)) await this.finish(job, { state: 'failed', error: notHandedText(job), handoverCut: true }, false); // nothing stored to drop; files stored late still run
    }
    const jobs = (await this.deps.jobs.list()).filter((j) => UNFINISHED.has(j.state) && !this.active.has(j.id));
    for (const job of jobs.sort((a, b) => a.createdAt - b.createdAt)) this.enqueue(job);
  }

  /**
   * Before the commit, cancel drops the job's files and staged items: memory is as it was. Once committed the import
   * has landed; cancelling then would have to delete what it brought in, which is "remove this import", not cancel.
   */
  async cancel(jobId: string): Promise<{ ok: boolean; reason?: string }> {
    const job = await this.deps.jobs.get(jobId);
    if (!job) return { ok: false, reason: 'That import is no longer there.' };
    if (!CANCELLABLE.has(job.state)) {
      return { ok: false, reason: job.state === 'committing' || job.state === 'indexing' ? 'The import has already been saved.' : 'The import has already ended.' };
    }
    const running = this.active.get(jobId);
    if (running) running.abort(new Cancelled());
    else await this.finish(job, { state: 'cancelled' });
    return { ok: true };
  }

  /** The user has read the outcome; the row stays (the memory browser names imports by it). */
  async dismiss(jobId: string): Promise<void> {
    const job = await this.deps.jobs.get(jobId);
    if (job) await this.patch(job, { dismissed: true });
  }

  /**
   * The user's answer to what a memory file from elsewhere asks for: `keep` commits it as their own, `evidence`
   * drops its wide instructions, pins and feedback (lib/memory/intake.ts). The job is read again and committed.
   */
  async answer(jobId: string, keep: boolean): Promise<void> {
    const job = await this.deps.jobs.get(jobId);
    if (!job || job.state !== 'confirm') throw new Error('That import is no longer waiting for an answer.');
    // The run that asked ended (it paused for the answer), so it does not count against the attempt limit.
    this.enqueue(await this.patch(job, { state: 'queued', trust: keep ? 'keep' : 'evidence', attempts: 0 }));
  }

  /** Removes the offer at `index` from the job (saving it as an instruction is the caller's). */
  async takeOffer(jobId: string, index: number): Promise<ImportOffer | undefined> {
    const job = await this.deps.jobs.get(jobId);
    const offer = job?.offers?.[index];
    if (!job || !offer) return undefined;
    await this.patch(job, { offers: job.offers!.filter((_, i) => i !== index) });
    return offer;
  }

  private enqueue(job: ImportJob): void {
    const abort = new AbortController();
    this.active.set(job.id, abort);
    this.queue = this.queue
      .then(() => this.run(job.id, abort.signal))
      // An unexpected failure (storage gone) leaves the job unfinished: the next worker start tries it again.
      .catch(() => undefined)
      .finally(() => this.active.delete(job.id));
  }

  /** Reading and the commit, one job at a time; the indexing that follows does not hold up the next job. */
  private async run(jobId: string, signal: AbortSignal): Promise<void> {
    const stopKeepAlive = this.keepAlive();
    try {
      let job = await this.deps.jobs.get(jobId);
      if (!job) return;
      if (signal.aborted) return void (await this.finish(job, { state: 'cancelled' }));
      if (job.state !== 'indexing') {
        const attempts = job.attempts ?? 0;
        if (attempts >= MAX_ATTEMPTS) return void (await this.finish(job, { state: 'failed', error: stoppedText(job) }));
        job = await this.patch(job, { attempts: attempts + 1 }, false);
        job = await this.readAndCommit(job, signal);
      }
      if (job) void this.indexThen(job).catch(() => undefined); // unfinished: the next worker start resumes it
    } finally {
      stopKeepAlive();
    }
  }

  private async indexThen(job: ImportJob): Promise<void> {
    const stopKeepAlive = this.keepAlive();
    try {
      await this.deps.index();
      await this.finish(job, { state: 'done' }, false);
    } finally {
      stopKeepAlive();
    }
  }

  /** Reading, staging and the commit; returns the job as committed, or undefined when it failed or was cancelled. */
  private async readAndCommit(queued: ImportJob, signal: AbortSignal): Promise<ImportJob | undefined> {
    let job = queued;
    try {
      // A run stopped midway left some batches staged: they are read again below, so they go first.
      await this.deps.jobs.unstage(job.id);
      job = await this.patch(job, { state: 'reading', read: 0, offers: [], error: undefined });
      const files = await this.deps.jobs.files(job.id);
      if (!files.length) throw new Error('its files are no longer stored; choose them again.');
      const offers: ImportOffer[] = [];
      let lastPush = 0;
      let batchNo = 0;
      let read = 0;
      let format = job.format;
      const onProgress = (p: ReadProgress) => {
        const now = Date.now();
        if (now - lastPush < PUSH_EVERY_MS) return;
        lastPush = now;
        this.deps.push({ ...job, read: p.items }, p);
      };
      // Checked as it is read, before anything is committed: a bad block is a warning, never a failed import.
      let feedback: FeedbackBlock | undefined;
      const onFeedback = (raw: unknown) => (feedback = readFeedbackBlock(raw));
      // Memory files read, and whether this profile signed each.
      const memoryFiles: boolean[] = [];
      const onMemoryFile = (v: { signed: boolean }) => memoryFiles.push(v.signed);
      const opts: ReadOptions = { signal, onProgress, onOffer: (o) => offers.push(o), onFeedback, onMemoryFile };
      for await (const batch of this.deps.read(files, opts)) {
        if (signal.aborted) break;
        await this.deps.jobs.stage(job.id, batchNo++, batch.items);
        read += batch.items.length;
        format ??= batch.format;
        job = await this.patch(job, { read, format }, false);
      }
      if (signal.aborted) throw signal.reason;
      if (!read) throw new Error('nothing to import was found in it.');
      const own = memoryFiles.length > 0 && memoryFiles.every(Boolean);
      if (memoryFiles.length && !own && !job.trust) {
        // A memory file this profile did not sign: what it asks for beyond evidence waits for the user's answer.
        const asks = trustAsks(await this.deps.jobs.staged(job.id), feedback);
        if (asks) {
          await this.deps.jobs.unstage(job.id); // read again once answered: the files stay, and the answer is in the row
          await this.patch(job, { state: 'confirm', asks, offers });
          return undefined;
        }
      }
      const trusted = own || job.trust === 'keep';
      job = await this.patch(job, { state: 'committing', offers, asks: undefined });
      const counts = await this.deps.commit(await this.deps.jobs.staged(job.id), job.id, trusted);
      // "Import as evidence" drops the file's feedback; so does a file nobody vouched for.
      if (!trusted && feedback && (feedback.events.length || feedback.phrases.length)) feedback = { ...feedback, events: [], phrases: [] };
      const warnings = [...(feedback?.warnings ?? []), ...(await this.storeFeedback(feedback, trusted))];
      // The files and staged copies are no longer needed (they can be hundreds of megabytes).
      await this.deps.jobs.discard(job.id);
      job = await this.patch(job, { state: 'indexing', counts, ...(warnings.length ? { warnings } : {}) });
      this.deps.committed?.(job);
      return job;
    } catch (e) {
      const cancelled = signal.aborted || e instanceof Cancelled;
      await this.finish(job, cancelled ? { state: 'cancelled' } : { state: 'failed', error: failureText(job, e) });
      return undefined;
    }
  }

  /** Stores a committed file's feedback; a failure is a warning (the items have landed). */
  private async storeFeedback(block: FeedbackBlock | undefined, trusted: boolean): Promise<string[]> {
    if (!block || !this.deps.feedback || (!block.events.length && !block.phrases.length)) return [];
    try {
      await this.deps.feedback(block, trusted);
      return [];
    } catch (e) {
      return [`The file's feedback could not be stored (${e instanceof Error ? e.message : String(e)}); its memories were imported.`];
    }
  }

  private async finish(job: ImportJob, patch: Partial<ImportJob>, discard = true): Promise<void> {
    if (discard) await this.deps.jobs.discard(job.id).catch(() => undefined);
    await this.patch(job, { ...patch, finishedAt: Date.now() });
  }

  private async patch(job: ImportJob, patch: Partial<ImportJob>, push = true): Promise<ImportJob> {
    await this.deps.jobs.update(job.id, patch);
    const next = { ...job, ...patch };
    if (push) this.deps.push(next);
    return next;
  }

  /** Keeps the worker alive while a job runs; a stop anyway is survived through `resume`. */
  private keepAlive(): () => void {
    const ping = this.deps.keepAlive;
    if (!ping) return () => undefined;
    const timer = setInterval(() => void ping().catch(() => undefined), this.deps.keepAliveMs ?? 20_000);
    return () => clearInterval(timer);
  }
}

/** A hand-over the page did not finish, in the user's words. */
function notHandedText(job: ImportJob): string {
  const one = job.fileNames.length === 1;
  return `${job.fileNames.join(', ')}: the page was closed before Backstory had ${one ? 'the whole file' : 'all of them'}, so ${one ? 'it was' : 'they were'} not imported. Choose ${one ? 'it' : 'them'} again and keep the page open until it says “Waiting to import” or “Reading”`;
}

/** A job whose runs never ended, in the user's words. */
function stoppedText(job: ImportJob): string {
  const one = job.fileNames.length === 1;
  return `${job.fileNames.join(', ')}: Backstory stopped twice while importing ${one ? 'it' : 'them'}; ${one ? 'it' : 'they'} may be too large or damaged. Try ${one ? 'it' : 'them'} in smaller parts or export again`;
}

/** The message a failed job keeps: the importers' errors already name the file; anything else gets the names here. */
function failureText(job: ImportJob, e: unknown): string {
  if (e instanceof ImportFileError) return e.message;
  const what = e instanceof Error ? e.message : String(e);
  return `${job.fileNames.join(', ')}: ${what}`;
}
