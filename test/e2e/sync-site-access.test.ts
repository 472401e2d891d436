// The WebDAV server sync reaches and the sites Backstory reads, in Chromium with a real WebDAV server (rclone) on
// 127.0.0.1, the host the harness's test pages are served from too: a grant made for sync alone does not make its
// pages read, and connecting or disconnecting sync never changes whether the user reads that site.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { PanelState } from '../../lib/messaging/protocol';
import { launchExtension, type Harness } from './harness';
import { connectWebdav, SYNC_FOLDER, syncFolderUrl } from './sync-webdav-helpers';
import { scriptAnswers } from './tab-probes';
import { startWebdav, type WebdavServer } from '../webdav-server';

const HOST = 'http://127.0.0.1/*';
const PASSPHRASE = 'a long passphrase for the site access test';
let dav: WebdavServer;
let h: Harness | undefined;

beforeAll(async () => {
  dav = await startWebdav();
  mkdirSync(join(dav.dir, SYNC_FOLDER));
});
afterEach(async () => {
  await h?.close();
  h = undefined;
});
afterAll(() => dav?.stop());

async function optionsPage(x: Harness): Promise<Page> {
  const page = await x.context.newPage();
  await page.goto(`chrome-extension://${x.extensionId}/options.html`);
  return page;
}

const synced = (page: Page) => expect.poll(() => page.getByTestId('sync-status').getAttribute('data-state'), { timeout: 60_000 }).toBe('synced');
/** Whether the browser still grants the server's origin. */
const granted = async (x: Harness) => (await x.serviceWorker()).evaluate((o) => chrome.permissions.contains({ origins: [o] }), HOST);

describe('the WebDAV server’s site and the sites Backstory reads', () => {
  it('granted for sync alone, the server’s site is not read (also when the grant reaches the worker first); allowed in the panel it is, and Disconnect leaves it read', async () => {
    h = await launchExtension({ grantSites: [] });
    const options = await optionsPage(h);
    const sync = options.getByTestId('sync');
    await sync.getByTestId('sync-webdav-url').fill(syncFolderUrl(dav));
    await sync.getByTestId('sync-webdav-user').fill(dav.user);
    await sync.getByTestId('sync-webdav-password').fill(dav.password);
    await sync.getByTestId('sync-passphrase').fill(PASSPHRASE);
    expect(await h.contentScriptMatches()).not.toContain(HOST);
    // The browser's dialog, which headless Chromium cannot show: the page's request waits for the test's answer (the
    // grant), and returns once the grant has reached the worker, which registered the content script for it: the
    // order that left the server's pages read.
    await options.evaluate((host) => {
      const w = window as unknown as { answer?: () => void };
      const real = chrome.permissions.request.bind(chrome.permissions);
      const dialog = new Promise<void>((ok) => (w.answer = ok));
      chrome.permissions.request = (async (q: chrome.permissions.Permissions) => {
        await dialog;
        const granted = await real(q);
        for (let i = 0; i < 100 && !(await chrome.scripting.getRegisteredContentScripts()).some((c) => c.matches?.includes(host)); i++) {
          await new Promise((ok) => setTimeout(ok, 50));
        }
        return granted;
      }) as typeof chrome.permissions.request;
    }, HOST);
    await sync.getByTestId('sync-connect').click();
    await h.allowInBrowserSettings(HOST);
    await options.evaluate(() => (window as unknown as { answer: () => void }).answer());
    await synced(options);
    await expect.poll(() => h!.contentScriptMatches(), { timeout: 15_000 }).not.toContain(HOST);
    expect(await options.getByTestId('site-access-sync').textContent()).toContain('127.0.0.1');
    expect(await options.locator(`[data-testid="site-access-item"][data-origin="${HOST}"]`).count()).toBe(0);

    const { page, tabId } = await h.openPage('/fixtures/textarea.html');
    await page.waitForTimeout(500);
    expect(await scriptAnswers(h, tabId)).toBe(false);
    expect((await h.call<PanelState>('panel:get', { tabId })).access).toEqual({ state: 'ask', host: '127.0.0.1', pattern: HOST });

    const panel = await h.openPanel(tabId);
    await panel.getByTestId('allow-site').click();
    await expect.poll(() => h!.contentScriptMatches(), { timeout: 15_000 }).toContain(HOST);
    await expect.poll(() => scriptAnswers(h!, tabId), { timeout: 15_000 }).toBe(true);

    await options.getByTestId('sync-disconnect').click();
    await expect.poll(() => options.getByTestId('sync-status').getAttribute('data-state'), { timeout: 15_000 }).toBe('off');
    expect(await granted(h)).toBe(true);
    expect(await h.contentScriptMatches()).toContain(HOST);
    expect(await scriptAnswers(h, tabId)).toBe(true);
  });

  it('a server whose site the user reads stays read when sync connects, and after Disconnect', async () => {
    h = await launchExtension(); // the test pages' host, 127.0.0.1, is read
    expect(await h.contentScriptMatches()).toContain(HOST);
    const options = await optionsPage(h);
    await connectWebdav(options, dav, PASSPHRASE);
    await synced(options);
    const { tabId } = await h.openPage('/fixtures/textarea.html');
    await expect.poll(() => scriptAnswers(h!, tabId), { timeout: 15_000 }).toBe(true);
    expect(await h.contentScriptMatches()).toContain(HOST);
    expect(await options.getByTestId('site-access-sync').count()).toBe(0);

    await options.getByTestId('sync-disconnect').click();
    await expect.poll(() => options.getByTestId('sync-status').getAttribute('data-state'), { timeout: 15_000 }).toBe('off');
    expect(await granted(h)).toBe(true);
    expect(await h.contentScriptMatches()).toContain(HOST);
  });
});
