import { launchExtension } from '../../test/e2e/harness';
import { createItem } from '../../lib/memory/normalize';
import { SyntheticCorpus } from '../perf-lib/synthetic';

const n = Number(process.argv[2] ?? 2000);
const h = await launchExtension();
try {
  const corpus = new SyntheticCorpus();
  const { inputs } = corpus.inputs(n, 2024);
  const now = Date.now();
  const items = inputs.map((inp, i) => { const it = createItem(inp, now); return { ...it, text: `${it.text} marker${i}zz` }; });
  await h.seed(items.map((it) => ({ id: it.id, text: it.text, title: it.title, kind: it.kind, tags: it.tags, people: it.people, sites: it.sites })));
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
    for (let j = 0; j < 3; j++) { await new Promise((r) => setTimeout(r, 500)); console.log(Date.now() - t0, JSON.stringify(await dump())); }
    const sw = await h.serviceWorker();
    console.log('session', JSON.stringify(await sw.evaluate(async (id) => (await chrome.storage.session.get(`task:${id}`)), tabId)).slice(0, 300));
    const g = await h.call<{ cards: { item: { id: string } }[]; status: string }>('panel:get', { tabId });
    console.log('panel:get', g.status, g.cards.map((c) => c.item.id).join(','));
  }
} finally { await h.close(); }
