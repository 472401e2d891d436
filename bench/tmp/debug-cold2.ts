import { launchExtension } from '../../test/e2e/harness';
import { createItem } from '../../lib/memory/normalize';
import { SyntheticCorpus } from '../perf-lib/synthetic';
import { SEED_SRC } from '../perf-lib/browser';
const n = 10000;
const h = await launchExtension();
try {
  const corpus = new SyntheticCorpus();
  const { inputs, topics } = corpus.inputs(n, 2024);
  const items = inputs.map((inp, i) => { const it = createItem({ ...inp, pinned: false }, Date.now()); return { ...it, text: `${it.text} marker${i}zz` }; });
  const page = await h.extensionPage();
  await h.call('settings:get', {});
  for (let i = 0; i < items.length; i += 2000)
    await page.evaluate(`(${SEED_SRC})(${JSON.stringify([items.slice(i, i + 2000), topics.slice(i, i + 2000), corpus.centroids.map((c) => Array.from(c)), {}])})`);
  const { page: tab, tabId } = await h.openPage('/fixtures/textarea.html');
  await tab.locator('#field').fill(items[17].text.split(' ').slice(0, 12).join(' '));
  for (let round = 0; round < 4; round++) {
    const sw = await h.restartServiceWorker();
    await new Promise((r) => setTimeout(r, 4000)); // pack write
    const cdp = await h.context.newCDPSession(page);
    await cdp.send('ServiceWorker.enable');
    await cdp.send('ServiceWorker.stopAllWorkers');
    await new Promise((r) => setTimeout(r, 500));
    await cdp.detach();
    const t0 = Date.now();
    const panel = await h.openPanel(tabId);
    const tPage = Date.now() - t0;
    await panel.locator('[data-testid="card"]').first().waitFor({ timeout: 60000 });
    console.log('round', round, 'panel page', tPage, 'first card', Date.now() - t0);
    const sw2 = await h.serviceWorker();
    console.log('  ', JSON.stringify(await sw2.evaluate(() => (globalThis as any).__t)));
    await panel.close();
  }
} finally { await h.close(); }
