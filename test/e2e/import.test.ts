import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { makeChatGPTExport } from '../fixtures/import/generate';
import { launchExtension, type Harness } from './harness';

// Imports as a user runs them: files picked on the options page, read and committed by the service worker, the
// outcome shown on the options page and in the panel. Big exports, a closed page, a stopped worker, a second
// import of the same export, a broken file, and cancel.

type Job = { id: string; state: string; fileNames: string[]; read: number; counts?: { added: number; updated: number; unchanged: number }; error?: string };
type Status = { memorySize: number; unembedded: number };

let h: Harness;
beforeAll(async () => {
  h = await launchExtension();
});
afterAll(async () => h?.close());

const zip = (name: string, bytes: Uint8Array) => ({ name, mimeType: 'application/zip', buffer: Buffer.from(bytes) });
const memorySize = async () => (await h.call<Status>('model:status', {})).memorySize;
const jobs = async () => (await h.call<{ jobs: Job[] }>('import:status', {})).jobs;
const jobFor = async (name: string) => (await jobs()).find((j) => j.fileNames.includes(name));
const message = (page: Page) => page.locator('[data-testid="import-message"]').innerText().catch(() => '');

async function optionsPage(): Promise<Page> {
  const page = await h.context.newPage();
  await page.goto(`chrome-extension://${h.extensionId}/options.html`);
  await page.locator('[data-testid="import-file"]').waitFor();
  return page;
}

/** How many files named `name` the page has stored for an import (read from the page's own IndexedDB). */
const storedFiles = (page: Page, name: string) =>
  page.evaluate(
    (n) =>
      new Promise<number>((ok) => {
        const open = indexedDB.open('backstory');
        open.onsuccess = () => {
          const db = open.result;
          const all = db.transaction('importFiles').objectStore('importFiles').getAll();
          all.onsuccess = () => {
            ok((all.result as { name: string }[]).filter((f) => f.name === n).length);
            db.close();
          };
        };
      }),
    name,
  );

/** Polls until the job for `name` reaches one of `states`; returns it. */
async function until(name: string, states: string[], timeout = 120_000): Promise<Job> {
  let job: Job | undefined;
  await expect.poll(async () => (job = await jobFor(name))?.state, { timeout, interval: 25 }).toSatisfy((s: string | undefined) => !!s && states.includes(s));
  return job!;
}

describe('imports through the options page', () => {
  it('a 20,000-message ChatGPT export: progress, counts, and a searchable card as soon as it is committed', { timeout: 600_000 }, async () => {
    const bytes = makeChatGPTExport({ conversations: 1000, turns: 20, seed: 17 });
    const { page, tabId } = await h.openPage('/fixtures/textarea.html');
    const panel = await h.openPanel(tabId);
    await page.locator('#field').click();
    await page.locator('#field').pressSequentially('How should I present the Q3 budget to Dana?', { delay: 5 });
    await panel.locator('[data-testid="status"][data-state="empty"], [data-testid="status"][data-state="watching"]').first().waitFor({ timeout: 60_000 });

    const options = await optionsPage();
    // Every progress line the page shows, with the time it appeared.
    await options.evaluate(() => {
      const seen: { at: number; text: string }[] = ((window as unknown as { seen: typeof seen }).seen = []);
      const last: Record<string, string> = {};
      new MutationObserver(() => {
        for (const id of ['import-progress', 'indexing', 'import-message']) {
          const text = (document.querySelector(`[data-testid="${id}"] > span`) ?? document.querySelector(`[data-testid="${id}"]`))?.textContent?.trim() ?? '';
          if (text && last[id] !== text) seen.push({ at: performance.now(), text: (last[id] = text) });
        }
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
      (window as unknown as { t0: number }).t0 = performance.now();
    });
    const t0 = Date.now();
    await options.locator('[data-testid="import-file"]').setInputFiles([zip('chatgpt-export.zip', bytes)]);
    const card = panel.locator('[data-testid="card"][data-id^="chatgpt:"]').first();
    await card.waitFor({ timeout: 300_000 });
    const firstCardMs = Date.now() - t0;
    // Found by its words: most of the import is still waiting for its vectors.
    const atCard = await h.call<Status>('model:status', {});
    expect(atCard.unembedded).toBeGreaterThan(10_000);

    await expect.poll(() => message(options), { timeout: 60_000 }).toBe('Imported chatgpt-export.zip: 20,000 new, 0 updated, 0 unchanged.');
    // The estimate appears once indexing has a rate to go by, on the options page and in the panel, with what indexes.
    await expect.poll(() => options.locator('[data-testid="indexing"]').innerText().catch(() => ''), { timeout: 120_000 }).toMatch(/^Indexing [\d,]+ of [\d,]+ on WASM — (about|a few)/);
    await expect.poll(() => panel.locator('[data-testid="indexing"]').innerText().catch(() => ''), { timeout: 60_000 }).toMatch(/^Indexing [\d,]+ of [\d,]+ on WASM — (about|a few)/);
    const indexed0 = { at: Date.now(), left: (await h.call<Status>('model:status', {})).unembedded };
    await new Promise((r) => setTimeout(r, 20_000));
    const indexed1 = { at: Date.now(), left: (await h.call<Status>('model:status', {})).unembedded };

    const seen = await options.evaluate(() => {
      const w = window as unknown as { seen: { at: number; text: string }[]; t0: number };
      return w.seen.map((s) => ({ ms: Math.round(s.at - w.t0), text: s.text }));
    });
    const reading = seen.filter((s) => s.text.startsWith('Reading'));
    const committed = seen.find((s) => s.text.startsWith('Imported'));
    console.log(
      [
        `20,000-message ChatGPT export (${(bytes.length / 2 ** 20).toFixed(1)} MB zip) through the options page:`,
        ...seen.filter((s, i) => !/^Indexing/.test(s.text) || i % 8 === 0).slice(0, 40).map((s) => `  ${String(s.ms).padStart(7)} ms  ${s.text}`),
        `  read: ${reading.length ? `${reading[0].ms}-${reading.at(-1)!.ms} ms` : 'n/a'}; committed (outcome shown) at ${committed?.ms ?? 'n/a'} ms`,
        `  first searchable card in the panel: ${firstCardMs} ms after picking the file (${Math.round(20_000 / (firstCardMs / 1000))} items/s end to end)`,
        `  background indexing: ${(((indexed0.left - indexed1.left) / (indexed1.at - indexed0.at)) * 1000).toFixed(1)} items/s over 20 s`,
      ].join('\n'),
    );
    await options.close();
    await panel.close();
    await page.close();
  });

  it('the options page closed right after picking the file: the import lands and the panel tells it', { timeout: 300_000 }, async () => {
    const before = await memorySize();
    const options = await optionsPage();
    await options.locator('[data-testid="import-file"]').setInputFiles([zip('closed-early.zip', makeChatGPTExport({ conversations: 40, turns: 10, seed: 23 }))]);
    await options.locator('[data-testid="import-progress"]').waitFor({ timeout: 30_000 }); // handed over
    await options.close();
    const job = await until('closed-early.zip', ['done', 'indexing', 'failed']);
    expect(job.counts).toEqual({ added: 400, updated: 0, unchanged: 0 });
    expect(await memorySize()).toBe(before + 400);
    // The panel opened afterwards shows what happened.
    const { page, tabId } = await h.openPage('/fixtures/textarea.html');
    const panel = await h.openPanel(tabId);
    await expect.poll(() => panel.locator('[data-testid="import-outcome"]').innerText().catch(() => ''), { timeout: 30_000 }).toBe('Imported closed-early.zip: 400 new, 0 updated, 0 unchanged.');
    // And so does the options page opened again.
    const again = await optionsPage();
    await expect.poll(() => message(again), { timeout: 30_000 }).toBe('Imported closed-early.zip: 400 new, 0 updated, 0 unchanged.');
    await again.close();
    await panel.close();
    await page.close();
  });

  it('files picked and the options page closed at once: each one is imported with no page open, or reported, never left waiting', { timeout: 300_000 }, async () => {
    const before = await memorySize();
    // Files on disk, as a user picks them.
    const dir = mkdtempSync(join(tmpdir(), 'backstory-at-once-'));
    const names = ['at-once-1.zip', 'at-once-2.zip', 'at-once-3.zip'];
    for (const [k, name] of names.entries()) {
      writeFileSync(join(dir, name), makeChatGPTExport({ conversations: 4, turns: 5, seed: 90 + k }));
      const options = await optionsPage();
      await options.locator('[data-testid="import"][data-ready]').waitFor();
      await options.locator('[data-testid="import-file"]').setInputFiles(join(dir, name));
      await options.close();
    }
    let landed = 0;
    for (const name of names) {
      // A write the browser cut off with the page is said so; anything else lands.
      const job = await until(name, ['done', 'indexing', 'failed'], 60_000);
      if (job.state === 'failed') expect(job.error).toMatch(new RegExp(`^${name.replace('.', '\\.')}: the page was closed before Backstory had the whole file`));
      else {
        expect(job.counts).toEqual({ added: 20, updated: 0, unchanged: 0 });
        landed++;
      }
    }
    expect(await memorySize()).toBe(before + 20 * landed);
    const again = await optionsPage();
    await expect.poll(() => message(again), { timeout: 30_000 }).toMatch(/^(Imported at-once-3\.zip: 20 new, 0 updated, 0 unchanged\.|Not imported: at-once-3\.zip: the page was closed)/);
    await again.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the options page closed after storing the file but before it could ask the worker: the import lands with no page open', { timeout: 300_000 }, async () => {
    const before = await memorySize();
    const options = await optionsPage();
    // The page closes between storing the file and asking the worker to run it: its request never goes out.
    await options.evaluate(() => {
      for (const api of [globalThis.chrome, (globalThis as { browser?: typeof chrome }).browser]) {
        const runtime = api?.runtime;
        if (!runtime) continue;
        const send = runtime.sendMessage.bind(runtime) as (m: unknown) => Promise<unknown>;
        (runtime as { sendMessage: unknown }).sendMessage = (m: { type?: string }) => (m?.type === 'import:start' ? new Promise(() => {}) : send(m));
      }
    });
    await options.locator('[data-testid="import-file"]').setInputFiles([zip('unasked.zip', makeChatGPTExport({ conversations: 6, turns: 5, seed: 83 }))]);
    await expect.poll(() => storedFiles(options, 'unasked.zip'), { timeout: 30_000 }).toBe(1);
    await options.close();
    const job = await until('unasked.zip', ['done', 'indexing', 'failed'], 60_000);
    expect(job).toMatchObject({ read: 30, counts: { added: 30, updated: 0, unchanged: 0 } });
    expect(await memorySize()).toBe(before + 30);
    const again = await optionsPage();
    await expect.poll(() => message(again), { timeout: 30_000 }).toBe('Imported unasked.zip: 30 new, 0 updated, 0 unchanged.');
    await again.close();
  });

  it('the options page closed while it was storing the file: the reopened page and the panel say it was not imported', { timeout: 300_000 }, async () => {
    const before = await memorySize();
    const options = await optionsPage();
    // A write that never finishes (a large file, a slow disk): the page is closed in the middle of it.
    await options.evaluate(() => {
      IDBTransaction.prototype.commit = function () {}; // the store keeps going until the page goes
      for (const method of ['add', 'put'] as const) {
        const original = IDBObjectStore.prototype[method];
        IDBObjectStore.prototype[method] = function (this: IDBObjectStore, ...args: [unknown, IDBValidKey?]) {
          if (this.name === 'importFiles') {
            const busy = () => (this.count().onsuccess = busy); // keeps the transaction open until the page goes
            busy();
          }
          return original.apply(this, args);
        };
      }
    });
    await options.locator('[data-testid="import-file"]').setInputFiles([{ name: 'cut-off.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify({ format: 'backstory-memory', version: 1, items: [{ text: 'Never stored.' }] })) }]);
    await options.locator('[data-testid="import-handing"]').waitFor();
    await options.close();
    const job = await until('cut-off.json', ['done', 'indexing', 'failed'], 60_000);
    expect(job.state).toBe('failed');
    const said = /^Not imported: cut-off\.json: the page was closed before Backstory had the whole file, so it was not imported\. Choose it again/;
    const again = await optionsPage();
    await expect.poll(() => message(again), { timeout: 30_000 }).toMatch(said);
    await again.close();
    const { page, tabId } = await h.openPage('/fixtures/textarea.html');
    const panel = await h.openPanel(tabId);
    await expect.poll(() => panel.locator('[data-testid="import-outcome"]').innerText().catch(() => ''), { timeout: 30_000 }).toMatch(said);
    await panel.close();
    await page.close();
    expect(await memorySize()).toBe(before);
  });

  it('an export dropped onto the options page is imported like a picked one', { timeout: 120_000 }, async () => {
    const before = await memorySize();
    const options = await optionsPage();
    const bytes = Array.from(makeChatGPTExport({ conversations: 3, turns: 4, seed: 61 }));
    // The drag a user makes from their file manager, as the page receives it.
    await options.evaluate((data) => {
      const dt = new DataTransfer();
      dt.items.add(new File([new Uint8Array(data)], 'dropped.zip', { type: 'application/zip' }));
      for (const type of ['dragenter', 'dragover', 'drop']) document.body.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }));
    }, bytes);
    await expect.poll(() => message(options), { timeout: 60_000 }).toBe('Imported dropped.zip: 12 new, 0 updated, 0 unchanged.');
    expect(await memorySize()).toBe(before + 12);
    await options.close();
  });

  it('the same export imported twice: 0 new, all unchanged, nothing added', { timeout: 300_000 }, async () => {
    const before = await memorySize();
    const options = await optionsPage();
    await options.locator('[data-testid="import-file"]').setInputFiles([zip('closed-early.zip', makeChatGPTExport({ conversations: 40, turns: 10, seed: 23 }))]);
    await expect.poll(() => message(options), { timeout: 120_000 }).toBe('Imported closed-early.zip: 0 new, 0 updated, 400 unchanged.');
    expect(await memorySize()).toBe(before);
    await options.close();
  });

  it('the service worker stopped mid-import: the import lands after the restart, without duplicates', { timeout: 300_000 }, async () => {
    const before = await memorySize();
    const options = await optionsPage();
    await options.locator('[data-testid="import-file"]').setInputFiles([zip('stopped.zip', makeChatGPTExport({ conversations: 300, turns: 20, seed: 31 }))]);
    const atStop = await until('stopped.zip', ['reading', 'committing', 'indexing', 'done'], 60_000);
    expect(['reading', 'committing']).toContain(atStop.state);
    await options.close();
    await h.restartServiceWorker();
    const job = await until('stopped.zip', ['done', 'indexing', 'failed']);
    expect(job).toMatchObject({ read: 6000, counts: { added: 6000, updated: 0, unchanged: 0 } });
    expect(await memorySize()).toBe(before + 6000);
  });

  it('the service worker stopped right after the file is picked: the import lands, and the page says so', { timeout: 300_000 }, async () => {
    const before = await memorySize();
    const options = await optionsPage();
    await options.locator('[data-testid="import-file"]').setInputFiles([zip('picked.zip', makeChatGPTExport({ conversations: 15, turns: 20, seed: 71 }))]);
    await h.restartServiceWorker(); // while the page hands the file over and asks the worker to run it
    const job = await until('picked.zip', ['done', 'indexing', 'failed']);
    expect(job).toMatchObject({ read: 300, counts: { added: 300, updated: 0, unchanged: 0 } });
    expect(await memorySize()).toBe(before + 300);
    await expect.poll(() => message(options), { timeout: 60_000 }).toBe('Imported picked.zip: 300 new, 0 updated, 0 unchanged.');
    await options.close();
  });

  it('a truncated export: the message names the file, and nothing changes', { timeout: 120_000 }, async () => {
    const before = await memorySize();
    const whole = makeChatGPTExport({ conversations: 30, turns: 10, seed: 41 });
    const options = await optionsPage();
    await options.locator('[data-testid="import-file"]').setInputFiles([zip('cut-short.zip', whole.subarray(0, Math.floor(whole.length * 0.6)))]);
    await expect.poll(() => message(options), { timeout: 60_000 }).toMatch(/^Not imported: cut-short\.zip: .+ Nothing was changed\.$/);
    expect(await memorySize()).toBe(before);
    await options.close();
  });

  it('cancel while the export is read leaves memory as it was', { timeout: 300_000 }, async () => {
    const before = await memorySize();
    const options = await optionsPage();
    await options.locator('[data-testid="import-file"]').setInputFiles([zip('cancelled.zip', makeChatGPTExport({ conversations: 2000, turns: 20, seed: 53 }))]);
    await options.locator('[data-testid="import-cancel"]').click({ timeout: 30_000 });
    await expect.poll(() => message(options), { timeout: 60_000 }).toBe('Import of cancelled.zip cancelled. Nothing was changed.');
    expect((await jobFor('cancelled.zip'))?.state).toBe('cancelled');
    expect(await memorySize()).toBe(before);
    await options.close();
  });
});
