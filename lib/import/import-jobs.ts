import type { ImportFile, ImportFormat, ImportOffer } from './types';
import type { BackstoryDB, HandoverRow } from '../memory/db';
import type { TrustAsks } from '../memory/import-trust';
import type { MemoryInput } from '../memory/types';

/**
 * `handing`: a page said it is storing the files; the worker queues the job once they are all stored. `confirm`: read,
 * waiting for the user to say what a memory file from elsewhere may bring (`asks`).
 */
export type ImportJobState = 'handing' | 'queued' | 'reading' | 'confirm' | 'committing' | 'indexing' | 'done' | 'failed' | 'cancelled';

/** One import as the extension tracks it, from the files picked to the items indexed; kept in IndexedDB. */
export interface ImportJob {
  id: string;
  createdAt: number;
  fileNames: string[];
  bytes: number;
  state: ImportJobState;
  /** Items read so far. */
  read: number;
  counts?: { added: number; updated: number; unchanged: number };
  error?: string;
  offers?: ImportOffer[];
  format?: ImportFormat;
  finishedAt?: number;
  /** The user has read the outcome (the options page and the panel stop showing it). */
  dismissed?: boolean;
  /** What a memory file from elsewhere asks for, while the job waits for the user's answer (state `confirm`). */
  asks?: TrustAsks;
  /**
   * The user's answer: `keep` (the file counts as their own) or `evidence` (its wide instructions, pins and feedback
   * are dropped). Kept in the row, so a run after a worker stop commits as the user said.
   */
  trust?: 'keep' | 'evidence';
  /** What the import left out or could not do, though its items landed (e.g. a memory file's feedback that was not valid). */
  warnings?: string[];
  /** Failed because its page was closed before the files were all stored (a late hand-over still runs it). */
  handoverCut?: boolean;
  /** Runs of the reading and the commit started so far (counted before reading; a run that ends is not run again). */
  attempts?: number;
}

/** What `update` may change: everything but the identity and the files. */
export type ImportJobPatch = Partial<Omit<ImportJob, 'id' | 'createdAt' | 'fileNames' | 'bytes'>>;

export type { HandoverRow } from '../memory/db';

declare module '../memory/db' {
  /** The import jobs table holds `ImportJob`s. */
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface ImportJobRow extends ImportJob {}
}

export function newJobId(): string {
  return `import-${globalThis.crypto?.randomUUID?.() ?? `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`}`;
}

/**
 * The page's side of a hand-over: stores the picked files and, in the same transaction, the mark that they are all
 * there. Every write is issued before this returns (plain IndexedDB on an open connection, no await first), so a
 * page closed right after the pick has already sent them. It touches neither the job table nor anything the worker
 * reads while it works, so a busy worker never holds it up. A page closed before the commit leaves neither.
 */
export function storeHandover(idb: IDBDatabase, mark: HandoverRow, files: ImportFile[]): Promise<void> {
  return new Promise((done, fail) => {
    const tx = idb.transaction(['importFiles', 'handovers'], 'readwrite');
    const rows = tx.objectStore('importFiles');
    files.forEach((f, n) => rows.add({ job: mark.job, n, name: f.name, ...(f.path ? { path: f.path } : {}), blob: f.blob }));
    tx.objectStore('handovers').add(mark);
    tx.oncomplete = () => done();
    tx.onabort = () => fail(tx.error ?? new Error('The files could not be stored.'));
    tx.commit?.();
  });
}

/**
 * Import jobs in the memory database. The picked files are stored as Blobs with the job, so the background side reads
 * them whether or not the page that started the import is still open; items read are staged per batch and committed
 * to memory in one go (MemoryStore.commitImport), so an import lands whole or not at all.
 */
export class ImportJobs {
  constructor(private readonly db: BackstoryDB) {}

  /** A queued job holding the files (one transaction: the job exists with all its files or not at all). */
  async create(files: ImportFile[], now = Date.now()): Promise<ImportJob> {
    const job: ImportJob = {
      id: newJobId(),
      createdAt: now,
      fileNames: files.map((f) => f.path ?? f.name),
      bytes: files.reduce((n, f) => n + f.blob.size, 0),
      state: 'queued',
      read: 0,
    };
    await this.db.transaction('rw', this.db.importJobs, this.db.importFiles, async () => {
      await this.db.importJobs.add(job);
      await this.db.importFiles.bulkAdd(files.map((f, n) => ({ job: job.id, n, name: f.name, ...(f.path ? { path: f.path } : {}), blob: f.blob })));
    });
    return job;
  }

  /** The page's side of a hand-over (storeHandover), on this database. */
  async handOver(mark: HandoverRow, files: ImportFile[]): Promise<void> {
    await this.db.open();
    await storeHandover(this.db.backendDB(), mark, files);
  }

  /** The worker's record of a hand-over a page announced: a `handing` job (unless it is already known). */
  async expect(meta: HandoverRow): Promise<ImportJob> {
    return this.db.transaction('rw', this.db.importJobs, async () => {
      const known = await this.db.importJobs.get(meta.job);
      if (known) return known;
      const job: ImportJob = { id: meta.job, createdAt: meta.createdAt, fileNames: meta.fileNames, bytes: meta.bytes, state: 'handing', read: 0 };
      await this.db.importJobs.add(job);
      return job;
    });
  }

  /**
   * A hand-over whose files are all stored becomes a queued job (made here if the worker never heard of it, or
   * revived if it was failed as cut off); returns the job as it now is, or undefined when the page has not finished
   * (or never started) storing them. A job cancelled meanwhile stays cancelled (its files are the caller's to drop).
   */
  async takeHandover(id: string): Promise<ImportJob | undefined> {
    return this.db.transaction('rw', this.db.importJobs, this.db.handovers, async () => {
      const mark = await this.db.handovers.get(id);
      if (!mark) return undefined;
      const known = await this.db.importJobs.get(id);
      await this.db.handovers.delete(id);
      if (known && known.state !== 'handing' && !known.handoverCut) return known;
      // The mark's names are the whole list (the page's announcement may carry only the first ones).
      const job: ImportJob = { ...(known ?? { id, createdAt: mark.createdAt, read: 0 }), fileNames: mark.fileNames, bytes: mark.bytes, state: 'queued' };
      delete job.error;
      delete job.finishedAt;
      delete job.handoverCut;
      await this.db.importJobs.put(job);
      return job;
    });
  }

  /** Ids of hand-overs whose files are all stored and that no worker has taken yet. */
  async handedOver(): Promise<string[]> {
    return (await this.db.handovers.toCollection().primaryKeys()) as string[];
  }

  get(id: string): Promise<ImportJob | undefined> {
    return this.db.importJobs.get(id);
  }

  /** Every job, newest first. */
  async list(): Promise<ImportJob[]> {
    return (await this.db.importJobs.orderBy('createdAt').reverse().toArray());
  }

  /** Changes a job's state, counts or error; returns the job as stored. Throws if there is no such job. */
  async update(id: string, patch: ImportJobPatch): Promise<ImportJob> {
    return this.db.transaction('rw', this.db.importJobs, async () => {
      const job = await this.db.importJobs.get(id);
      if (!job) throw new Error(`No import job ${id}.`);
      const next = { ...job, ...patch };
      await this.db.importJobs.put(next);
      return next;
    });
  }

  /** Stores a batch of items read (batch numbers from 0, in reading order); staging a batch again replaces it. */
  async stage(id: string, batchNo: number, inputs: MemoryInput[]): Promise<void> {
    await this.db.importStaged.put({ job: id, batch: batchNo, inputs });
  }

  /** Every staged item of the job, in batch order. */
  async staged(id: string): Promise<MemoryInput[]> {
    const rows = await this.db.importStaged.where('[job+batch]').between([id, -Infinity], [id, Infinity]).toArray();
    return rows.flatMap((r) => r.inputs);
  }

  /** The job's files as they were picked, in order. */
  async files(id: string): Promise<ImportFile[]> {
    const rows = await this.db.importFiles.where('[job+n]').between([id, -Infinity], [id, Infinity]).toArray();
    return rows.map((r) => ({ name: r.name, ...(r.path ? { path: r.path } : {}), blob: r.blob }));
  }

  /** Drops the staged items of a run that stopped midway, keeping the files to read again. */
  async unstage(id: string): Promise<void> {
    await this.db.importStaged.where('job').equals(id).delete();
  }

  /** Drops the job's files and staged items (after a commit, a failure or a cancel); the job's record stays. */
  async discard(id: string): Promise<void> {
    await this.db.transaction('rw', this.db.importFiles, this.db.importStaged, this.db.handovers, async () => {
      await this.db.importFiles.where('job').equals(id).delete();
      await this.db.importStaged.where('job').equals(id).delete();
      await this.db.handovers.delete(id);
    });
  }
}
