import { browser } from 'wxt/browser';
import type { ImportFile } from '../../import/types';
import { openMemoryDB, type BackstoryDB } from '../../memory/db';
import { newJobId, storeHandover, type HandoverRow, type ImportJob } from '../../import/import-jobs';
import { HANDOVER_PORT } from '../../messaging/protocol';

/** Names an announcement carries at most (a port's name is no place for a vault's 10,000 paths; the stored mark has all). */
const ANNOUNCED_NAMES = 50;

/** The memory database, opened while the import section shows, so a picked file is written the moment it is picked. */
let ready: BackstoryDB | undefined;
let users = 0;

/** Opens the database ahead of a pick (`onReady` once open); the returned function closes it (the section unmounts). */
export function prepareHandover(onReady?: () => void): () => void {
  users++;
  ready ??= openMemoryDB();
  void ready.open().then(() => onReady?.(), () => undefined); // a failure shows when a file is picked
  return () => {
    if (--users > 0 || !ready) return;
    ready.close();
    ready = undefined;
  };
}

async function storeOnFreshConnection(mark: HandoverRow, files: ImportFile[]): Promise<void> {
  const db = openMemoryDB();
  try {
    await db.open();
    await storeHandover(db.backendDB(), mark, files);
  } finally {
    db.close();
  }
}

/**
 * Picked or dropped files are handed to the worker in three steps: the page tells the worker (a port whose name
 * says which files come), writes the files into IndexedDB, then asks the worker to run them. The worker takes the job
 * up when the port closes, so the import goes on if the page closes right after writing, and a page closed while
 * writing is reported, not lost. The file never travels in a message. `done` closes the port.
 */
export function handOver(files: ImportFile[]): { job: ImportJob; stored: Promise<void>; done(): void } {
  const mark: HandoverRow = {
    job: newJobId(),
    createdAt: Date.now(),
    fileNames: files.map((f) => f.path ?? f.name),
    bytes: files.reduce((n, f) => n + f.blob.size, 0),
  };
  const job: ImportJob = { id: mark.job, createdAt: mark.createdAt, fileNames: mark.fileNames, bytes: mark.bytes, state: 'queued', read: 0 };
  let port: ReturnType<typeof browser.runtime.connect> | undefined;
  try {
    port = browser.runtime.connect({ name: HANDOVER_PORT + JSON.stringify({ ...mark, fileNames: mark.fileNames.slice(0, ANNOUNCED_NAMES) }) });
  } catch {
    // No worker to tell right now: the files are still stored, and the next worker start takes them up.
  }
  // On the connection opened ahead the writes go out now, before the page can be closed; otherwise once one opens.
  const stored = ready?.isOpen() ? storeHandover(ready.backendDB(), mark, files) : storeOnFreshConnection(mark, files);
  return { job, stored, done: () => port?.disconnect() };
}
