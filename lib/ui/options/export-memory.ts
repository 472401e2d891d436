import { openMemoryDB } from '../../memory/db';
import { profileKey, signedMemoryFileChunks } from '../../memory/file-signature';
import { callBackground } from '../../messaging/rpc';

/**
 * The memory file, built in the page from IndexedDB (the truth the worker writes first) one item at a time into a
 * Blob: a large memory never travels as one message, which the browser caps (Chrome: 64 MiB).
 */
export async function exportMemoryFile(): Promise<Blob> {
  const db = openMemoryDB();
  try {
    const [items, { feedback }, key] = await Promise.all([db.items.toArray(), callBackground('memory:export-feedback', {}), profileKey(true)]);
    // Signed with this profile's key: importing it here again is the user's own memory, exactly as it was.
    return new Blob(await signedMemoryFileChunks(items, { feedback }, key!), { type: 'application/json' });
  } finally {
    db.close();
  }
}
