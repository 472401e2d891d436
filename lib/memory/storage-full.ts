/** IndexedDB refused a write because the browser's storage quota is used up. */
export class StorageFullError extends Error {
  constructor() {
    super("Backstory's storage is full, so nothing was saved. Delete or export old memories, or free disk space, and try again.");
  }
}

/** Whether a failed write was the quota (Dexie wraps the browser's error in `inner`). */
export function isQuotaError(e: unknown): boolean {
  const err = e as { name?: string; inner?: { name?: string } } | undefined;
  return err?.name === 'QuotaExceededError' || err?.inner?.name === 'QuotaExceededError';
}
