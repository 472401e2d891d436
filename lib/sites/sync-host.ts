import { browser } from 'wxt/browser';

/**
 * Where the origin granted for sync's WebDAV server alone is noted: held so that sync reaches the server, its pages
 * not read. A server's site the user already let Backstory read is not noted here, and stays read.
 */
export const SYNC_ORIGINS_KEY = 'syncOrigins';

/** The origins granted for sync alone. */
export async function syncOrigins(): Promise<string[]> {
  const got = (await browser.storage.local.get(SYNC_ORIGINS_KEY))[SYNC_ORIGINS_KEY];
  return Array.isArray(got) ? got.filter((x): x is string => typeof x === 'string') : [];
}

/** The service worker's copy: it alone writes them (`setSyncOrigins`), and it asks at each page update and ranking. */
let held: Promise<string[]> | undefined;

/** The origins granted for sync alone, as the service worker holds them (read once per worker start). */
export function heldSyncOrigins(): Promise<string[]> {
  return (held ??= syncOrigins());
}

/** In the service worker only: its copy changes with what it writes. */
export async function setSyncOrigins(patterns: string[]): Promise<void> {
  held = Promise.resolve(patterns);
  if (patterns.length) await browser.storage.local.set({ [SYNC_ORIGINS_KEY]: patterns });
  else await browser.storage.local.remove(SYNC_ORIGINS_KEY);
}
