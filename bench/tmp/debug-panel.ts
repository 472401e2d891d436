import { launchExtension } from '../../test/e2e/harness';
import { createItem } from '../../lib/memory/normalize';
import { SyntheticCorpus } from '../perf-lib/synthetic';
import { SEED_SRC } from '../perf-lib/browser';

const n = Number(process.argv[2] ?? 2000);
const h = await launchExtension();
try {
  const corpus = new SyntheticCorpus();
  const { inputs, topics } = corpus.inputs(n, 2024);
  const now = Date.now();
  const items = inputs.map((inp, i) => { const it = createItem(inp, now); return { ...it, text: `${it.text} marker${i}zz` }; });
  const page = await h.extensionPage();
  await h.call('settings:get', {});
  for (let i = 0; i < items.length; i += 2000)
    await page.evaluate(`(${SEED_SRC})(${JSON.stringify([items.slice(i, i + 2000), topics.slice(i, i + 2000), corpus.centroids.map((c) => Array.from(c))])})`);
  await h.restartServiceWorker();
  const { page: tab, tabId } = await h.openPage('/fixtures/textarea.html');
  const panel = await h.openPanel(tabId);
  panel.on('console', (m) => console.log('[panel]', m.text()));
  await tab.bringToFront();
  await tab.locator('#field').fill('hello world');
  await new Promise((r) => setTimeout(r, 3000));
  const dump = async () => panel.evaluate(() => ({
    status: document.querySelector('[data-testid="status"]')?.getAttribute('data-state'),
    cards: [...document.querySelectorAll('[data-testid="card"]')].slice(0, 5).map((c) => c.getAttribute('data-id') + ' ' + (c.textContent ?? '').slice(0, 80)),
    vis: document.visibilityState,
  }));
  console.log(await dump());
  for (let k = 0; k < 3; k++) {
    const i = 100 + k * 37;
    const text = items[i].text.split(' ').slice(0, 10).join(' ') + ` marker${i}zz`;
    await tab.bringToFront();
    const t0 = Date.now();
    await tab.locator('#field').fill(text);
    console.log('target', items[i].id, text);
    const sw0 = await h.serviceWorker();
    for (let j = 0; j < 40; j++) {
      const got = await sw0.evaluate(async (id) => ((await chrome.storage.session.get(`task:${id}`))[`task:${id}`] as { at: number; field?: { text: string } }) ?? { at: 0 }, tabId);
      const te = Date.now(); await sw0.evaluate(() => 1); const swLat = Date.now() - te;
      if (j % 5 === 0) console.log('  sw eval ms', swLat, 'at', Date.now() - t0);
      if (got.field?.text.includes(`marker${i}zz`)) { console.log('reading landed after', Date.now() - t0, 'taken at', got.at - t0); break; }
      await new Promise((r) => setTimeout(r, 100));
    }
    console.log(Date.now() - t0, JSON.stringify(await dump()));
    const sw = await h.serviceWorker();
    console.log('session', JSON.stringify(await sw.evaluate(async (id) => (await chrome.storage.session.get(`task:${id}`)), tabId)).slice(0, 300));
    const g = await h.call<{ cards: { item: { id: string } }[]; status: string }>('panel:get', { tabId });
    console.log('panel:get', g.status, g.cards.map((c) => c.item.id).join(','));
  }
} finally { await h.close(); }
