import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import type { WebdavServer } from '../webdav-server';

/** The folder on the test's WebDAV server that the profiles sync to. */
export const SYNC_FOLDER = 'Backstory';
export const syncFolderUrl = (dav: WebdavServer) => `${dav.base}/${SYNC_FOLDER}/`;

/** Every file of the synced memory on the server's disk. */
export function syncFolderFiles(dav: WebdavServer): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d)) {
      const p = join(d, e);
      if (statSync(p).isDirectory()) walk(p);
      else out.push(p);
    }
  };
  walk(join(dav.dir, SYNC_FOLDER));
  return out;
}

/** Fills the options page's WebDAV form in Chromium (address, user, app password, passphrase) and clicks Connect. */
export async function connectWebdav(page: Page, dav: WebdavServer, passphrase: string): Promise<void> {
  const sync = page.getByTestId('sync');
  await sync.getByTestId('sync-webdav-url').fill(syncFolderUrl(dav));
  await sync.getByTestId('sync-webdav-user').fill(dav.user);
  await sync.getByTestId('sync-webdav-password').fill(dav.password);
  await sync.getByTestId('sync-passphrase').fill(passphrase);
  await sync.getByTestId('sync-connect').click();
}
