import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchExtension, type Harness } from './harness';

type Status = { unembedded: number; memorySize: number; indexBackend?: string };

const notes = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => ({ id: `${prefix}${i}`, text: `${prefix} note ${i}: the shipping crate ${i % 9} goes to the warehouse on pier ${i % 5} after the customs check.` }));

async function offscreenDocuments(h: Harness): Promise<number> {
  const sw = await h.serviceWorker();
  return sw.evaluate(async () => (await chrome.runtime.getContexts({ contextTypes: ['OFFSCREEN_DOCUMENT' as chrome.runtime.ContextType] })).length);
}

describe('background indexing in Chromium', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await launchExtension();
  });
  afterAll(async () => h?.close());

  it('indexes an import in the offscreen document, and opens it again when Chrome closed it mid-import', { timeout: 300_000 }, async () => {
    await h.seed(notes('crate', 160));
    await expect.poll(async () => (await h.call<Status>('model:status', {})).indexBackend, { timeout: 120_000 }).toMatch(/^offscreen\/wasm\/q8x[2-4]$/);
    const sw = await h.serviceWorker();
    await sw.evaluate(() => chrome.offscreen.closeDocument().catch(() => undefined));
    await expect.poll(async () => (await h.call<Status>('model:status', {})).unembedded, { timeout: 180_000 }).toBe(0);
    expect((await h.call<Status>('model:status', {})).indexBackend).toMatch(/^offscreen\//);
    expect(await offscreenDocuments(h)).toBe(1);
    // Every item has exactly its vector: ranking finds a crate note by meaning.
    const { items } = await h.call<{ items: { id: string }[] }>('memory:list', {});
    expect(items.filter((i) => i.id.startsWith('crate'))).toHaveLength(160);
  });

  it('answers rankings while an import is still being indexed', { timeout: 300_000 }, async () => {
    const { tabId, page } = await h.openPage('/fixtures/textarea.html');
    await page.locator('#field').fill('when does the shipping crate reach the warehouse?');
    // The page is read first (the content script reports the field after a pause), so what follows times the ranking,
    // not the reading: with a warm model the import below is quick enough to beat it.
    await expect.poll(async () => (await h.call<{ status: string }>('panel:get', { tabId })).status, { timeout: 30_000 }).not.toBe('watching');
    await h.seed(notes('pallet', 240));
    const state = await h.call<{ status: string; indexing?: { done: number; total: number } }>('panel:get', { tabId });
    // The ranking came back before indexing finished (it did not wait behind the import's batches).
    expect(state.indexing).toBeDefined();
    expect(state.indexing!.done).toBeLessThan(state.indexing!.total);
    expect(['found', 'empty']).toContain(state.status);
    await expect.poll(async () => (await h.call<Status>('model:status', {})).unembedded, { timeout: 180_000 }).toBe(0);
    await page.close();
  });

  it('resumes indexing after the service worker is stopped mid-import, and every item ends with its vector', { timeout: 300_000 }, async () => {
    await h.seed(notes('box', 80));
    await expect.poll(async () => (await h.call<Status>('model:status', {})).unembedded, { timeout: 120_000 }).toBeLessThan(80);
    await h.restartServiceWorker();
    await expect.poll(async () => (await h.call<Status>('model:status', {})).unembedded, { timeout: 180_000 }).toBe(0);
    const page = await h.extensionPage();
    const counts = await page.evaluate(
      () =>
        new Promise<{ items: number; vectors: number }>((ok, no) => {
          const r = indexedDB.open('backstory');
          r.onerror = () => no(r.error);
          r.onsuccess = () => {
            const tx = r.result.transaction(['items', 'vectors']);
            const a = tx.objectStore('items').count();
            const b = tx.objectStore('vectors').count();
            tx.oncomplete = () => {
              r.result.close();
              ok({ items: a.result, vectors: b.result });
            };
          };
        }),
    );
    expect(counts.vectors).toBe(counts.items);
    expect(counts.items).toBe(480);
  });

  it('refuses an embedding request to the offscreen document from anything but the service worker', async () => {
    await h.seed(notes('probe', 10)); // makes sure the document is open
    await expect.poll(() => offscreenDocuments(h), { timeout: 60_000 }).toBe(1);
    const page = await h.extensionPage();
    const reply = await page.evaluate(() => chrome.runtime.sendMessage({ type: 'offscreen:embed', payload: { texts: ['hello'] } }));
    expect(reply).toEqual({ ok: false, error: 'Message "offscreen:embed" refused from this sender.' });
  });
});
