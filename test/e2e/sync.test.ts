import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebdav, type WebdavServer } from '../webdav-server';
import { launchExtension, type Harness } from './harness';
import { connectWebdav, SYNC_FOLDER, syncFolderFiles } from './sync-webdav-helpers';

// Two browser profiles syncing through a real WebDAV server (rclone) on 127.0.0.1, driven through the options page
// as a user would: connect, see each other's memories, edit, delete, a wrong passphrase, a tampered file, a replayed
// old segment, the folder removed.
const PASSPHRASE = 'a long passphrase for both profiles';
let dav: WebdavServer;
let laptop: Harness;
let desktop: Harness;
const pages = new Map<Harness, Page>();

type Item = { id: string; text: string };
const list = async (h: Harness) => (await h.call<{ items: Item[] }>('memory:list', {})).items.map((i) => [i.id, i.text]).sort();

async function options(h: Harness): Promise<Page> {
  let page = pages.get(h);
  if (!page || page.isClosed()) {
    page = await h.context.newPage();
    await page.goto(`chrome-extension://${h.extensionId}/options.html`);
    pages.set(h, page);
  }
  return page;
}

async function connect(h: Harness, passphrase: string): Promise<Page> {
  const page = await options(h);
  await connectWebdav(page, dav, passphrase);
  return page;
}

const status = (page: Page) => page.getByTestId('sync-status');

/** "Sync now" on the options page, and waits for that pass to finish. */
async function syncNow(h: Harness): Promise<void> {
  const page = await options(h);
  const before = (await h.call<{ lastSyncedAt?: number; problem?: string }>('sync:status', {})).lastSyncedAt ?? 0;
  await page.getByTestId('sync-now').click();
  await expect
    .poll(async () => {
      const s = await h.call<{ state: string; lastSyncedAt?: number }>('sync:status', {});
      return s.state === 'error' || (s.state !== 'syncing' && (s.lastSyncedAt ?? 0) > before);
    }, { timeout: 30_000 })
    .toBe(true);
}

const files = () => syncFolderFiles(dav);
/** The laptop's browser profile, kept on disk so that it can be copied while its browser is closed. */
const laptopDir = mkdtempSync(join(tmpdir(), 'backstory-e2e-laptop-'));

beforeAll(async () => {
  dav = await startWebdav();
  mkdirSync(join(dav.dir, SYNC_FOLDER));
  laptop = await launchExtension({ userDataDir: laptopDir });
  desktop = await launchExtension();
  await laptop.seed([{ id: 'dana', text: 'Dana wants the status update on Fridays, three bullet points at most.' }]);
  await desktop.seed([{ id: 'vendor', text: 'The vendor contract with Acme renews on 1 March; Priya signs it.' }]);
}, 180_000);

afterAll(async () => {
  await laptop?.close();
  await desktop?.close();
  dav?.stop();
  rmSync(laptopDir, { recursive: true, force: true });
});

describe('sync through a WebDAV folder', () => {
  it('makes a new synced memory with the first profile and shows its recovery key once', async () => {
    const page = await connect(laptop, PASSPHRASE);
    await expect.poll(() => page.getByTestId('sync-recovery-key').textContent({ timeout: 60_000 }), { timeout: 60_000 }).toMatch(/^[A-Z2-7]{4}(-[A-Z2-7]{4}){7}$/);
    await expect.poll(() => status(page).getAttribute('data-state'), { timeout: 60_000 }).toBe('synced');
    // Read until it says so: a pass that follows at once (the one the connect's change asks for) shows "Syncing…".
    await expect.poll(() => status(page).textContent(), { timeout: 60_000 }).toContain('Synced');
    // Nothing the user wrote is in the folder in the clear.
    for (const f of files()) expect(readFileSync(f).toString('latin1')).not.toMatch(/Dana|status update|Fridays/);
  });

  it('refuses a wrong passphrase in words on the second profile, and joins with the right one', async () => {
    const before = files().length;
    const page = await connect(desktop, 'not the right passphrase');
    await expect.poll(() => page.getByTestId('sync-error').textContent({ timeout: 60_000 }), { timeout: 60_000 }).toContain('That passphrase does not open the synced memory in this folder');
    expect(await status(page).getAttribute('data-state')).toBe('off');
    expect(files().length).toBe(before);

    await page.getByTestId('sync-passphrase').fill(PASSPHRASE);
    await page.getByTestId('sync-connect').click();
    await expect.poll(() => status(page).getAttribute('data-state'), { timeout: 60_000 }).toBe('synced');
    expect(await page.getByTestId('sync-recovery-key').count()).toBe(0);
    await syncNow(laptop);
    const both = [
      ['dana', 'Dana wants the status update on Fridays, three bullet points at most.'],
      ['vendor', 'The vendor contract with Acme renews on 1 March; Priya signs it.'],
    ];
    await expect.poll(() => list(laptop), { timeout: 30_000 }).toEqual(both);
    await expect.poll(() => list(desktop), { timeout: 30_000 }).toEqual(both);
    const laptopPage = await options(laptop);
    await expect.poll(() => status(laptopPage).textContent(), { timeout: 30_000 }).toContain('2 devices');
  });

  it('carries an edit one way and a delete the other', async () => {
    await laptop.call('memory:update', { id: 'dana', patch: { text: 'Dana wants the status update on Thursdays now.' } });
    await desktop.call('memory:delete', { ids: ['vendor'] });
    await syncNow(laptop);
    await syncNow(desktop);
    await syncNow(laptop);
    const want = [['dana', 'Dana wants the status update on Thursdays now.']];
    expect(await list(laptop)).toEqual(want);
    expect(await list(desktop)).toEqual(want);
  });

  it('two concurrent edits of one memory end the same on both profiles', async () => {
    await laptop.call('memory:update', { id: 'dana', patch: { text: 'Laptop: Dana moved the update to Mondays.' } });
    await desktop.call('memory:update', { id: 'dana', patch: { text: 'Desktop: Dana moved the update to Tuesdays.' } });
    await syncNow(laptop);
    await syncNow(desktop);
    await syncNow(laptop);
    const a = await list(laptop);
    expect(await list(desktop)).toEqual(a);
    expect(a[0][1]).toMatch(/^(Laptop|Desktop): Dana moved/);
  });

  it('a browser profile copied to another computer while closed syncs on there as a device of its own, and nothing either writes is lost', async () => {
    await laptop.close();
    const copyDir = `${laptopDir}-copy`;
    cpSync(laptopDir, copyDir, { recursive: true });
    laptop = await launchExtension({ userDataDir: laptopDir });
    const copy = await launchExtension({ userDataDir: copyDir });
    try {
      const said: [Harness, string][] = [];
      const pass = async (h: Harness) => said.push([h, (await syncNow(h), (await h.call<{ problem?: string }>('sync:status', {})).problem ?? '')]);
      await laptop.call('memory:add', { items: [{ id: 'fromLaptop', text: 'Written on the laptop after its profile was copied.' }] });
      await pass(laptop);
      await copy.call('memory:add', { items: [{ id: 'fromCopy', text: 'Written on the computer the profile was copied to.' }] });
      for (const h of [copy, desktop, laptop, copy, desktop]) await pass(h);
      // The copy alone joins again, and says so: its status shows the words after each of its passes (they stay ten
      // minutes, so a pass that follows at once does not clear them); the other profiles never show them.
      const copied = (p: string) => p.includes('a copied profile, or one restored from a backup');
      expect(said.filter(([h]) => h === copy).map(([, p]) => copied(p))).toEqual([true, true]);
      expect(said.filter(([h]) => h !== copy).some(([, p]) => copied(p))).toBe(false);
      const all = await list(desktop);
      expect(all.map(([id]) => id)).toEqual(expect.arrayContaining(['fromLaptop', 'fromCopy']));
      expect(await list(laptop)).toEqual(all);
      expect(await list(copy)).toEqual(all);
      // Laptop, desktop and the copy under an id of its own.
      expect((await copy.call<{ devices?: number }>('sync:status', {})).devices).toBe(3);
    } finally {
      await copy.close();
      rmSync(copyDir, { recursive: true, force: true });
    }
  });

  it('refuses a tampered segment and a replayed old one, says so once, and applies neither', async () => {
    await laptop.call('memory:add', { items: [{ id: 'plan', text: 'The offsite is in Lisbon.' }] });
    await syncNow(laptop);
    const laptopLog = files().filter((f) => f.includes('/log/')).sort((x, y) => statSync(y).mtimeMs - statSync(x).mtimeMs)[0];
    const bytes = readFileSync(laptopLog);
    bytes[bytes.length - 3] ^= 0x55;
    writeFileSync(laptopLog, bytes);
    const before = await list(desktop);
    await syncNow(desktop);
    const page = await options(desktop);
    await expect.poll(() => status(page).textContent(), { timeout: 30_000 }).toContain('was not read');
    expect(await list(desktop)).toEqual(before);

    // An old segment put back under a later name.
    const first = files().filter((f) => /\/log\/[^/]+\/00000001\.bin$/.test(f))[0];
    cpSync(first, first.replace('00000001.bin', '00000099.bin'));
    await syncNow(desktop);
    expect(await list(desktop)).toEqual(before);
  });

  it('takes a changed app password on the options page, and each profile goes on as the same device', async () => {
    const devices = () => readdirSync(join(dav.dir, SYNC_FOLDER), { recursive: true }).filter((f) => String(f).includes('devices/')).length;
    const before = devices();
    await dav.changePassword('the app password made after the old one was revoked');
    for (const h of [desktop, laptop]) {
      await syncNow(h);
      const page = await options(h);
      await expect.poll(() => status(page).getAttribute('data-state'), { timeout: 30_000 }).toBe('error');
      await expect.poll(() => status(page).textContent(), { timeout: 30_000 }).toContain('Change the app password');
      const login = page.getByTestId('sync-login');
      await login.getByTestId('sync-login-password').fill('still not it');
      await login.getByTestId('sync-login-save').click();
      await expect.poll(() => page.getByTestId('sync-error').textContent()).toContain('did not accept the user name and app password');
      await login.getByTestId('sync-login-password').fill(dav.password);
      await login.getByTestId('sync-login-save').click();
      await expect.poll(() => status(page).getAttribute('data-state'), { timeout: 30_000 }).toBe('synced');
    }
    await desktop.call('memory:add', { items: [{ id: 'after', text: 'Written after the app password changed.' }] });
    await syncNow(desktop);
    await syncNow(laptop);
    expect((await list(laptop)).find(([id]) => id === 'after')).toEqual(['after', 'Written after the app password changed.']);
    // No device joined anew: the folder holds the same device files, and nothing was sent whole again.
    expect(devices()).toBe(before);
  });

  it('says in words when the folder was removed, and keeps the memory', async () => {
    const before = await list(desktop);
    rmSync(join(dav.dir, SYNC_FOLDER), { recursive: true, force: true });
    await syncNow(desktop);
    const page = await options(desktop);
    await expect.poll(() => status(page).getAttribute('data-state'), { timeout: 30_000 }).toBe('error');
    await expect.poll(() => status(page).textContent(), { timeout: 30_000 }).toMatch(/no longer/);
    expect(await list(desktop)).toEqual(before);
  });
});
