import { launchExtension } from '../../test/e2e/harness';
import { createItem } from '../../lib/memory/normalize';
import { embedText } from '../../lib/rank/lexical-index';
import { createOrtWebEmbedder } from '../../lib/embed/ort-web-embedder';
import { NODE_MODEL_ROOT } from '../../lib/embed/node-embedder';
import { SyntheticCorpus, percentile } from './synthetic';
import { DEBOUNCE_MS } from '../../lib/sites/index';

export const SEED_SRC = `async ([its, tps, centroids, real]) => {
  const db = await new Promise((ok, no) => {
    const r = indexedDB.open('backstory');
    r.onsuccess = () => ok(r.result);
    r.onerror = () => no(r.error);
  });
  let s = 12345 + its.length;
  const rand = () => ((s = (s * 1103515245 + 12345) >>> 0) / 4294967296) - 0.5;
  const tx = db.transaction(['items', 'vectors'], 'readwrite');
  its.forEach((it, k) => {
    tx.objectStore('items').put(it);
    const c = centroids[tps[k]];
    let v = new Float32Array(c.length);
    let nn = 0;
    for (let d = 0; d < c.length; d++) nn += (v[d] = c[d] + 0.2 * rand()) ** 2;
    for (let d = 0; d < c.length; d++) v[d] /= Math.sqrt(nn);
    if (real[it.id]) v = new Float32Array(real[it.id]);
    tx.objectStore('vectors').put({ id: it.id, model: 'all-MiniLM-L6-v2/q4', vector: v });
  });
  await new Promise((ok, no) => { tx.oncomplete = ok; tx.onerror = () => no(tx.error); });
  db.close();
}`;

/**
 * panel_update_ms_p50 and cold_start_ms in headless Chromium with the built extension (`npm run build` first).
 *
 * Seeding, clearly a bench shortcut: 10k synthetic items and topic-derived vectors are written straight into the
 * extension's IndexedDB from one of its own pages (embedding 10k notes would take minutes), then the service
 * worker is stopped so it loads them the way it always does. Everything measured after that is the product path.
 *
 * The items the panel-update rounds type about get their real embedding (the same int8 model, in Node): with only
 * topic-derived vectors, the real query embedding matches no item, the ranker sees no dense evidence and reports
 * `empty` with fallback cards, which is why the first version of this bench never saw its target card.
 */
const ROUNDS = 12;

export async function browserFigures(log: (s: string) => void, n = 10_000) {
  const h = await launchExtension();
  try {
    const corpus = new SyntheticCorpus();
    const { inputs, topics } = corpus.inputs(n, 2024);
    const now = Date.now();
    // No pinned notes: the synthetic corpus pins 0.2% (20 notes of ~170 tokens at 10k), and pinned notes are always
    // included, which fills the 800-token budget before anything relevant fits (the second reason the first version
    // of this bench never saw its target). A memory with a few pinned notes behaves the same; twenty long ones do not.
    const items = inputs.map((inp, i) => {
      const it = createItem({ ...inp, pinned: false }, now);
      return { ...it, text: `${it.text} marker${i}zz` };
    });
    const targets = [17, ...Array.from({ length: ROUNDS }, (_, k) => 100 + k * 37)];
    // Targets are evidence notes, so the expected top card is the note the text is about (instructions and pinned
    // notes may still be guaranteed a place; the figure waits for the target to be the first card).
    for (const i of targets) Object.assign(items[i], { kind: 'evidence', pinned: false, sites: [] });
    log(`embedding the ${targets.length} target notes with the int8 model (Node, WASM)`);
    const e8 = await createOrtWebEmbedder({ modelRoot: NODE_MODEL_ROOT, dtype: 'q8', threads: 1 });
    const tv = await e8.embed(targets.map((i) => embedText(items[i])));
    await e8.close();
    const real: Record<string, number[]> = {};
    targets.forEach((i, k) => (real[items[i].id] = Array.from(tv[k])));
    const page = await h.extensionPage();
    await h.call('settings:get', {}); // the worker has opened (and created) the database
    log(`seeding ${n} items straight into IndexedDB (bench shortcut)`);
    for (let i = 0; i < items.length; i += 2000) {
      const slice = items.slice(i, i + 2000);
      const tslice = topics.slice(i, i + 2000);
      // A string, not a function: the bench runs under tsx, whose name helpers do not exist in the page.
      await page.evaluate(`(${SEED_SRC})(${JSON.stringify([slice, tslice, corpus.centroids.map((c) => Array.from(c)), real])})`);
    }

    const { page: tab, tabId } = await h.openPage('/fixtures/textarea.html');
    await tab.locator('#field').fill(items[17].text.split(' ').slice(0, 12).join(' ') + ' marker17zz');
    await h.restartServiceWorker();
    // Cold start: stop the worker, then open the panel; the worker starts, loads 10k items and the model, ranks.
    const cold: number[] = [];
    for (let round = 0; round < 3; round++) {
      await h.restartServiceWorker(); // leaves it running; stop it again below
      const ext = await h.extensionPage();
      const cdp = await h.context.newCDPSession(ext);
      await cdp.send('ServiceWorker.enable');
      await cdp.send('ServiceWorker.stopAllWorkers');
      await new Promise((r) => setTimeout(r, 500));
      await cdp.detach();
      const t0 = Date.now();
      const panel = await h.openPanel(tabId);
      await panel.locator('[data-testid="card"]').first().waitFor({ timeout: 120_000 });
      cold.push(Date.now() - t0);
      log(`cold start round ${round + 1}: ${cold.at(-1)} ms`);
      await panel.close();
    }

    // Panel update: the focused field's text changes -> the panel's first card is the note that text is about.
    // Timed from just before Playwright types the change to the first frame where the first card is the target; the
    // content script's debounce, the message, query embedding, ranking, the push and rendering all count.
    // The panel in a window of its own, as the real side panel sits beside the page: a panel opened as a second tab
    // of the page's window is hidden while the page is in front, and a hidden page's timers and frames are throttled
    // to about once a second (that is what a first version of this figure measured: ~1,040 ms every round).
    const sw = await h.serviceWorker();
    const opened = h.context.waitForEvent('page', { timeout: 30_000 });
    await sw.evaluate(async (url) => void (await chrome.windows.create({ url, type: 'normal', focused: false })), `chrome-extension://${h.extensionId}/sidepanel.html?tab=${tabId}`);
    const panel = await opened;
    await panel.locator('[data-testid="card"]').first().waitFor({ timeout: 120_000 });
    const upd: number[] = [];
    const firstOnly: number[] = [];
    let updError = '';
    for (let k = 0; k < ROUNDS; k++) {
      const i = 100 + k * 37;
      const text = items[i].text.split(' ').slice(0, 10).join(' ') + ` marker${i}zz`;
      await tab.bringToFront();
      await new Promise((r) => setTimeout(r, 300)); // let the previous round settle
      const t0 = Date.now();
      await tab.locator('#field').fill(text);
      try {
        // requestAnimationFrame polling: the time the panel first paints the target as its first card.
        await panel.waitForFunction((id) => document.querySelector('[data-testid="card"]')?.getAttribute('data-id') === id, items[i].id, { timeout: 15_000, polling: 'raf' });
        upd.push(Date.now() - t0);
      } catch (e) {
        const first: string = await panel.evaluate(() => [...document.querySelectorAll('[data-testid="card"]')].slice(0, 3).map((c) => c.getAttribute('data-id')).join(','));
        const has = first.split(',').includes(items[i].id);
        updError = `round ${k}: first cards ${first}, target ${items[i].id}${has ? ' (shown, not first)' : ''}`;
        log(`panel update round ${k} missed: ${updError}`);
        if (has) firstOnly.push(k);
      }
    }
    log(`panel updates: ${upd.join(', ')} ms`);
    const rows = [
      { name: 'panel_update_ms_p50', what: 'field text changes -> new top card in the panel, 10k items, headless Chromium', value: percentile(upd, 50), target: '<= 150 ms', ok: percentile(upd, 50) <= 150, note: `${upd.length}/${ROUNDS} rounds; p95 ${percentile(upd, 95)} ms; debounce ${DEBOUNCE_MS} ms included${updError ? `; last miss: ${updError}` : ''}` },
      { name: 'cold_start_ms', what: 'worker stopped -> panel opened -> first ranked cards (10k items, model load)', value: percentile(cold, 50), target: '<= 1500 ms', ok: percentile(cold, 50) <= 1500, note: `rounds ${cold.join(', ')} ms` },
    ];
    return { rows, extra: { panel_update_ms_p95: percentile(upd, 95) } as Record<string, number> };
  } finally {
    await h.close();
  }
}
