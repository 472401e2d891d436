import type { Page } from 'playwright-core';
import { launchExtension, type Harness } from '../../../test/e2e/harness';
import { createItem } from '../../../lib/memory/normalize';
import { PACK_SIZE_SRC, SEED_SRC } from './browser';
import { SyntheticCorpus, percentile } from './synthetic';

/**
 * The memory browser in the real side panel page (headless Chromium, built extension): time from clicking the
 * Memory tab to its first rows, time from typing a filter to the filtered list, and the panel page's JS heap with
 * the list shown. Memory is seeded straight into IndexedDB (the bench shortcut of browser.ts), then the worker is
 * restarted and loads it the way it always does; everything timed is the product path.
 */
const ROUNDS = 5;
/** The first rows / filtered list of a build that cannot show them this fast is cut off here (and reported so). */
const WAIT_MS = 120_000;

export interface MemoryBrowserFigures {
  n: number;
  firstRowsMs: number;
  firstRowsFirstMs: number;
  filterMs: number;
  heapMb: number;
  domRows: number;
  note: string;
}

async function seed(h: Harness, n: number, log: (s: string) => void): Promise<string[]> {
  const corpus = new SyntheticCorpus();
  const { inputs, topics } = corpus.inputs(n, 2024);
  const now = Date.now();
  const items = inputs.map((inp, i) => {
    const it = createItem({ ...inp, pinned: false }, now - i * 1000);
    return { ...it, text: `${it.text} marker${i}zz` };
  });
  const page = await h.extensionPage();
  await h.call('settings:get', {}); // the worker has opened (and created) the database
  log(`seeding ${n} items straight into IndexedDB (bench shortcut)`);
  const centroids = corpus.centroids.map((c) => Array.from(c));
  for (let i = 0; i < items.length; i += 2000) {
    await page.evaluate(`(${SEED_SRC})(${JSON.stringify([items.slice(i, i + 2000), topics.slice(i, i + 2000), centroids, {}])})`);
  }
  await h.restartServiceWorker();
  // The worker rewrites its index pack a few seconds after loading memory it had no pack for; that holds its thread
  // for seconds at 100k, so the bench waits for it as a user's next start would find it done.
  const ext = await h.extensionPage();
  await h.call('model:status', {}); // the worker loads memory
  for (let t = 0; (await ext.evaluate(PACK_SIZE_SRC)) !== n; t++) {
    if (t > 3000) throw new Error('the index pack was not written within 300 s');
    await new Promise((r) => setTimeout(r, 100));
  }
  return items.map((it) => it.id);
}

/** Resolves when the page shows the state `check` looks for in a frame; the time it took, or WAIT_MS when it did not. */
async function timeUntil(page: Page, act: () => Promise<void>, check: (arg: string) => boolean, arg: string, log: (s: string) => void): Promise<number> {
  const t0 = Date.now();
  await act();
  try {
    await page.waitForFunction(check, arg, { timeout: WAIT_MS, polling: 'raf' });
    return Date.now() - t0;
  } catch (e) {
    log(`not seen after ${Date.now() - t0} ms: ${(e as Error).message.split('\n')[0]}`);
    return WAIT_MS;
  }
}

// Functions, not strings: an extension page's CSP refuses to evaluate strings. No named helpers inside (tsx would
// add a name helper the page does not have).
const ROWS_SHOWN = (_: string) => document.querySelectorAll('[data-testid="memory-item"]').length > 0;
/** The list holds exactly the one item whose marker was typed. */
const ONLY_ROW = (id: string) =>
  document.querySelectorAll('[data-testid="memory-item"]').length === 1 && document.querySelector('[data-testid="memory-item"]')?.getAttribute('data-id') === id;

export async function memoryBrowserFigures(log: (s: string) => void, sizes: number[], buildDir?: string): Promise<MemoryBrowserFigures[]> {
  const out: MemoryBrowserFigures[] = [];
  for (const n of sizes) {
    const h = await launchExtension(buildDir ? { buildDir } : {});
    try {
      const ids = await seed(h, n, log);
      const { page: tab, tabId } = await h.openPage('/fixtures/textarea.html');
      // The panel in a window of its own, as the real side panel is on screen: a page behind another tab of its
      // window gets no animation frames, and the figures wait for frames (see browser.ts).
      const sw = await h.serviceWorker();
      const opened = h.context.waitForEvent('page', { timeout: 30_000 });
      await sw.evaluate(async (url) => void (await chrome.windows.create({ url, type: 'normal', focused: false })), `chrome-extension://${h.extensionId}/sidepanel.html?tab=${tabId}`);
      const panel = await opened;
      await panel.locator('[data-testid="status"]').waitFor();
      const first: number[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        await panel.locator('[data-testid="tab-context"]').click();
        await panel.waitForFunction(() => !document.querySelector('[data-testid="memory-view"]'));
        first.push(await timeUntil(panel, () => panel.locator('[data-testid="tab-memory"]').click(), ROWS_SHOWN, '', log));
        if (first.at(-1) === WAIT_MS) break;
      }
      const domRows = await panel.locator('[data-testid="memory-item"]').count();
      const filter: number[] = [];
      if (first.at(-1) !== WAIT_MS) {
        const box = panel.locator('[data-testid="memory-filter-text"]');
        for (let r = 0; r < ROUNDS; r++) {
          const i = Math.floor(((r + 1) * n) / (ROUNDS + 2));
          filter.push(await timeUntil(panel, () => box.fill(`marker${i}zz`), ONLY_ROW, ids[i], log));
          await box.fill('');
          await panel.waitForFunction(() => document.querySelectorAll('[data-testid="memory-item"]').length > 1, undefined, { timeout: WAIT_MS });
          if (filter.at(-1) === WAIT_MS) break;
        }
      }
      // The heap read is the renderer's, and every extension page in that renderer shares it: the harness's helper
      // page (options.html, which seeded memory and calls the worker) is closed first, so the figure is the panel's.
      await (await h.extensionPage()).close();
      const others = h.context.pages().filter((p) => p !== panel && p.url().startsWith('chrome-extension://')).map((p) => new URL(p.url()).pathname);
      const cdp = await panel.context().newCDPSession(panel);
      await cdp.send('HeapProfiler.collectGarbage');
      const heap = (await cdp.send('Runtime.getHeapUsage')) as { usedSize: number };
      const fig: MemoryBrowserFigures = {
        n, firstRowsMs: percentile(first.slice(1).length ? first.slice(1) : first, 50), firstRowsFirstMs: first[0], filterMs: filter.length ? percentile(filter, 50) : WAIT_MS,
        heapMb: Math.round((heap.usedSize / 2 ** 20) * 10) / 10, domRows,
        note: `first rows ${first.join(', ')} ms (median of the rounds after the first); filter ${filter.join(', ') || 'not reached'} ms; ${domRows} rows in the DOM${others.length ? `; other extension pages open when the heap was read: ${others.join(', ')}` : ''}`,
      };
      log(`memory browser at ${n}: ${JSON.stringify(fig)}`);
      out.push(fig);
      await panel.close();
      await tab.close();
    } finally {
      await h.close();
    }
  }
  return out;
}

/**
 * The worker's side of the memory browser in Node: `MemoryCatalog.query` over `n` synthetic items in the ranker's
 * IndexedMemory (what the service worker holds), for the first page unfiltered, a word typed, a half-typed word,
 * and a kind filter. Medians of `rounds` after a first query that sorts.
 */
export async function catalogQueryTimes(n: number, rounds = 15): Promise<{ sortMs: number; pageMs: number; wordMs: number; prefixMs: number; kindMs: number }> {
  const { MemoryCatalog } = await import('../../../lib/memory-browse/memory-query');
  const { arrayMemoryView } = await import('../../../lib/memory/index/memory-index');
  const corpus = new SyntheticCorpus();
  const { inputs } = corpus.inputs(n, 2024);
  const now = Date.now();
  const mem = arrayMemoryView(inputs.map((inp, i) => {
    const it = createItem(inp, now - i * 1000);
    return { ...it, text: `${it.text} marker${i}zz` };
  }), new Map());
  const cat = new MemoryCatalog();
  const time = async (filter: Record<string, string>) => {
    const t0 = performance.now();
    await cat.query(mem, { filter, offset: 0, limit: 50 });
    return performance.now() - t0;
  };
  const sortMs = await time({});
  const med = async (f: (k: number) => Record<string, string>) => {
    const ts: number[] = [];
    for (let k = 0; k < rounds; k++) ts.push(await time(f(k)));
    return percentile(ts, 50);
  };
  return {
    sortMs,
    pageMs: await med(() => ({})),
    wordMs: await med((k) => ({ text: `marker${(k * 7919) % n}zz` })),
    prefixMs: await med((k) => ({ text: `marker${(k * 31) % 97}` })),
    kindMs: await med(() => ({ kind: 'instruction' })),
  };
}
