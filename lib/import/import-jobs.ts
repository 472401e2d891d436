import type { ImportFile, ImportFormat, ImportOffer } from './types';
import type { BackstoryDB } from '../memory/db';
import type { MemoryInput } from '../memory/types';

export type ImportJobState = 'queued' | 'reading' | 'committing' | 'indexing' | 'done' | 'failed' | 'cancelled';

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
}

/** What `update` may change: everything but the identity and the files. */
export type ImportJobPatch = Partial<Omit<ImportJob, 'id' | 'createdAt' | 'fileNames' | 'bytes'>>;

declare module '../memory/db' {
  /** The import jobs table holds `ImportJob`s. */
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface ImportJobRow extends ImportJob {}
}

function newJobId(): string {
  return `import-${globalThis.crypto?.randomUUID?.() ?? `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`}`;
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
    await this.db.transaction('rw', this.db.importFiles, this.db.importStaged, async () => {
      await this.db.importFiles.where('job').equals(id).delete();
      await this.db.importStaged.where('job').equals(id).delete();
    });
  }
}
