import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { launchExtension, type Harness } from './harness';

// A local folder synced by the extension's service worker. Headless Chromium has no folder picker, so a folder of the
// extension's Origin Private File System stands in for the picked one: the same FileSystemDirectoryHandle, kept in
// IndexedDB by the page exactly as the options page keeps a picked folder (lib/sync/folder-pick.ts), and used by the
// worker. Whether Chrome asks again for a picked folder after a restart cannot be driven here (docs/sync.md).
let h: Harness;
let page: Page;
const PASSPHRASE = 'folder sync passphrase here';
type Status = { state: string; problem?: string; devices?: number; place?: { kind: string; name?: string } };

/** Keeps an OPFS folder as the sync folder, as the options page keeps a picked one. */
async function keepFolder(name: string): Promise<void> {
  await page.evaluate(async (n) => {
    const root = await navigator.storage.getDirectory();
    const dir = await root.getDirectoryHandle(n, { create: true });
    await new Promise<void>((ok, fail) => {
      const req = indexedDB.open('backstory-sync-folder');
      req.onupgradeneeded = () => req.result.createObjectStore('folders', { keyPath: 'key' });
      req.onsuccess = () => {
        const db = req.result;
        if (!db.objectStoreNames.contains('folders')) return fail(new Error('no folders store'));
        const tx = db.transaction('folders', 'readwrite');
        tx.objectStore('folders').put({ key: 'folder', handle: dir });
        tx.oncomplete = () => (db.close(), ok());
        tx.onerror = () => fail(tx.error);
      };
      req.onerror = () => fail(req.error);
    });
  }, name);
}

/** Every file under the OPFS folder, with its bytes as latin1 text. */
async function folderFiles(name: string): Promise<Record<string, string>> {
  return page.evaluate(async (n) => {
    const out: Record<string, string> = {};
    const walk = async (dir: FileSystemDirectoryHandle, prefix: string) => {
      for await (const [k, e] of (dir as unknown as { entries(): AsyncIterable<[string, FileSystemHandle]> }).entries()) {
        if (e.kind === 'directory') await walk(e as FileSystemDirectoryHandle, `${prefix}${k}/`);
        else {
          const bytes = new Uint8Array(await (await (e as FileSystemFileHandle).getFile()).arrayBuffer());
          out[`${prefix}${k}`] = Array.from(bytes, (b) => String.fromCharCode(b)).join('');
        }
      }
    };
    await walk(await (await navigator.storage.getDirectory()).getDirectoryHandle(n), '');
    return out;
  }, name);
}

beforeAll(async () => {
  h = await launchExtension();
  page = await h.extensionPage(); // options.html: its IndexedDB and OPFS are the worker's
  await h.seed([{ id: 'note', text: 'The quarterly review moved to Thursday afternoon.' }]);
}, 180_000);
afterAll(async () => {
  await h?.close();
});

describe('sync through a local folder, run by the service worker', () => {
  it('connects, writes only sealed files into the folder, and joins again without doubling anything', async () => {
    await keepFolder('Backstory');
    const got = await h.call<{ status: Status; recoveryKey?: string }>('sync:connect', { place: { kind: 'folder' }, passphrase: PASSPHRASE });
    expect(got.recoveryKey).toMatch(/^[A-Z2-7]{4}(-[A-Z2-7]{4}){7}$/);
    expect(got.status).toMatchObject({ state: 'synced', place: { kind: 'folder', name: 'Backstory' } });
    const files = await folderFiles('Backstory');
    expect(Object.keys(files).some((p) => p.includes('/log/'))).toBe(true);
    for (const bytes of Object.values(files)) expect(bytes).not.toMatch(/quarterly|Thursday/);

    await h.call('sync:disconnect', {});
    expect((await h.call<Status>('sync:status', {})).state).toBe('off');
    await keepFolder('Backstory');
    const again = await h.call<{ status: Status; recoveryKey?: string }>('sync:connect', { place: { kind: 'folder' }, passphrase: PASSPHRASE });
    expect(again.recoveryKey).toBeUndefined();
    expect(again.status.state).toBe('synced');
    const items = (await h.call<{ items: { id: string }[] }>('memory:list', {})).items;
    expect(items.map((i) => i.id)).toEqual(['note']);
  });

  it('says in words when the folder is gone, and keeps the memory', async () => {
    await page.evaluate(async () => (await navigator.storage.getDirectory()).removeEntry('Backstory', { recursive: true }));
    const s = await h.call<Status>('sync:now', {});
    expect(s.state).toBe('error');
    expect(s.problem).toMatch(/no longer there|no longer in this folder/);
    expect((await h.call<{ items: unknown[] }>('memory:list', {})).items.length).toBe(1);
  });
});
