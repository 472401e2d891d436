import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page as FirefoxPage } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebdav, type WebdavServer } from '../webdav-server';
import { launchExtension, type Harness } from './harness';
import { FIREFOX_BUILD_DIR, launchFirefoxExtension, type FirefoxHarness } from './firefox-harness';
import { connectWebdav, SYNC_FOLDER, syncFolderFiles, syncFolderUrl } from './sync-webdav-helpers';

// One memory across two browsers: the Firefox build in Firefox ESR and the Chrome build in Chromium, syncing through
// a real WebDAV server (rclone) on 127.0.0.1, each connected on its own options page as a user would.
const PASSPHRASE = 'one passphrase for both browsers';
let dav: WebdavServer;
let firefox: FirefoxHarness;
let chromium: Harness;

type Item = { id: string; text: string };
type Status = { state: string; lastSyncedAt?: number; devices?: number; problem?: string };
const list = async (h: { call<T>(type: string, payload: unknown): Promise<T> }) =>
  (await h.call<{ items: Item[] }>('memory:list', {})).items.map((i) => [i.id, i.text]).sort();

/** Fills the options page's WebDAV form and clicks Connect, in Firefox (typed, as a user types). */
async function connectFirefox(passphrase: string): Promise<FirefoxPage> {
  const page = await firefox.openExtensionPage('/options.html');
  const type = async (id: string, text: string) => {
    await page.click(`[data-testid="sync"] [data-testid="${id}"]`);
    await page.keyboard.type(text);
  };
  await type('sync-webdav-url', syncFolderUrl(dav));
  await type('sync-webdav-user', dav.user);
  await type('sync-webdav-password', dav.password);
  await type('sync-passphrase', passphrase);
  await page.click('[data-testid="sync"] [data-testid="sync-connect"]');
  return page;
}

/** A pass now (what "Sync now" asks for), and its status once it ended. */
async function syncNow(h: { call<T>(type: string, payload: unknown): Promise<T> }): Promise<Status> {
  const before = (await h.call<Status>('sync:status', {})).lastSyncedAt ?? 0;
  await h.call('sync:now', {});
  let s: Status = { state: 'syncing' };
  await expect
    .poll(async () => {
      s = await h.call<Status>('sync:status', {});
      return s.state === 'error' || (s.state !== 'syncing' && (s.lastSyncedAt ?? 0) > before);
    }, { timeout: 60_000 })
    .toBe(true);
  return s;
}

beforeAll(async () => {
  dav = await startWebdav();
  mkdirSync(join(dav.dir, SYNC_FOLDER));
  firefox = await launchFirefoxExtension();
  chromium = await launchExtension();
  await chromium.seed([{ id: 'dana', text: 'Dana wants the status update on Fridays, three bullet points at most.' }]);
  await firefox.seed([{ id: 'vendor', text: 'The vendor contract with Acme renews on 1 March; Priya signs it.' }]);
}, 240_000);

afterAll(async () => {
  await firefox?.close();
  await chromium?.close();
  dav?.stop();
});

describe('one synced memory in Firefox and Chromium through WebDAV', () => {
  it('Firefox joins the memory Chromium made there, and each then holds both memories', async () => {
    const made = await chromium.context.newPage();
    await made.goto(`chrome-extension://${chromium.extensionId}/options.html`);
    await connectWebdav(made, dav, PASSPHRASE);
    await expect.poll(() => made.getByTestId('sync-status').getAttribute('data-state'), { timeout: 60_000 }).toBe('synced');

    const page = await connectFirefox(PASSPHRASE);
    await expect.poll(async () => (await firefox.call<Status>('sync:status', {})).state, { timeout: 90_000 }).toBe('synced');
    // No recovery key in Firefox: it joined the memory Chromium made rather than making one.
    expect(await page.$('[data-testid="sync-recovery-key"]')).toBeNull();
    await syncNow(chromium);
    const both = [
      ['dana', 'Dana wants the status update on Fridays, three bullet points at most.'],
      ['vendor', 'The vendor contract with Acme renews on 1 March; Priya signs it.'],
    ];
    await expect.poll(() => list(chromium), { timeout: 30_000 }).toEqual(both);
    await expect.poll(() => list(firefox), { timeout: 30_000 }).toEqual(both);
    expect((await firefox.call<Status>('sync:status', {})).devices).toBe(2);
    // What Firefox wrote is sealed like what Chromium wrote: nothing of either memory in the clear.
    for (const f of syncFolderFiles(dav)) expect(readFileSync(f).toString('latin1')).not.toMatch(/Acme|Priya|Dana|Fridays/);
    await page.close();
    await made.close();
  });

  it('carries an edit made in Firefox and a delete made in Chromium to the other browser', async () => {
    await firefox.call('memory:update', { id: 'dana', patch: { text: 'Dana wants the status update on Thursdays now.' } });
    await chromium.call('memory:delete', { ids: ['vendor'] });
    for (const h of [firefox, chromium, firefox]) expect((await syncNow(h)).state).toBe('synced');
    const want = [['dana', 'Dana wants the status update on Thursdays now.']];
    expect(await list(firefox)).toEqual(want);
    expect(await list(chromium)).toEqual(want);
  });

  it('syncs on after Firefox stops its event page (the vault key read back from IndexedDB)', async () => {
    const id = JSON.parse(readFileSync(join(FIREFOX_BUILD_DIR, 'manifest.json'), 'utf8')).browser_specific_settings.gecko.id as string;
    // What about:debugging's "Terminate background script" does, and Firefox does to an idle event page.
    const policy = `WebExtensionPolicy.getByID(${JSON.stringify(id)}).extension`;
    await firefox.chrome(`await ${policy}.terminateBackground(); return true;`);
    expect(await firefox.chrome(`return ${policy}.backgroundState`)).toBe('stopped');
    await chromium.call('memory:add', { items: [{ id: 'offsite', text: 'The offsite is in Lisbon in May.' }] });
    await syncNow(chromium);
    // The message wakes the event page; it reads its sync state and key again to apply what Chromium sent.
    expect((await syncNow(firefox)).state).toBe('synced');
    expect(await list(firefox)).toEqual(await list(chromium));
    expect((await list(firefox)).map(([key]) => key)).toEqual(['dana', 'offsite']);
  });
});
