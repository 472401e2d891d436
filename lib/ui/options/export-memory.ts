import { openMemoryDB } from '../../memory/db';
import { memoryFileChunks } from '../../memory/memory-file';
import { callBackground } from '../../messaging/rpc';

/**
 * The memory file, built in the page from IndexedDB (the truth the worker writes first) one item at a time into a
 * Blob: a large memory never travels as one message, which the browser caps (Chrome: 64 MiB).
 */
export async function exportMemoryFile(): Promise<Blob> {
  const db = openMemoryDB();
  try {
    const [items, { feedback }] = await Promise.all([db.items.toArray(), callBackground('memory:export-feedback', {})]);
    return new Blob([...memoryFileChunks(items, { feedback })], { type: 'application/json' });
  } finally {
    db.close();
  }
}
