import { launchExtension } from '../../test/e2e/harness';
import { createItem } from '../../lib/memory/normalize';
import { SyntheticCorpus } from '../perf-lib/synthetic';
import { SEED_SRC } from '../perf-lib/browser';

const n = Number(process.argv[2] ?? 10000);
const h = await launchExtension();
try {
  const corpus = new SyntheticCorpus();
  const { inputs, topics } = corpus.inputs(n, 2024);
  const now = Date.now();
  const items = inputs.map((inp, i) => { const it = createItem(inp, now); return { ...it, text: `${it.text} marker${i}zz` }; });
  const page = await h.extensionPage();
  await h.call('settings:get', {});
  for (let i = 0; i < items.length; i += 2000)
    await page.evaluate(`(${SEED_SRC})(${JSON.stringify([items.slice(i, i + 2000), topics.slice(i, i + 2000), corpus.centroids.map((c) => Array.from(c)), {}])})`);
  for (let round = 0; round < 4; round++) {
    await h.restartServiceWorker();
    const cdp = await h.context.newCDPSession(page);
    await cdp.send('ServiceWorker.enable');
    await cdp.send('ServiceWorker.stopAllWorkers');
    await new Promise((r) => setTimeout(r, 500));
    await cdp.detach();
    const t0 = Date.now();
    await h.call('settings:get', {});
    const tWake = Date.now() - t0;
    const s1 = await h.call<{ state: string; memorySize: number }>('model:status', {});
    const tLoad = Date.now() - t0;
    let s = s1;
    while (s.state !== 'ready' && s.state !== 'failed') { await new Promise((r) => setTimeout(r, 20)); s = await h.call('model:status', {}); }
    const tModel = Date.now() - t0;
    const t1 = Date.now();
    await h.call('rank:preview', { text: items[5].text.slice(0, 80) });
    const tRank = Date.now() - t1;
    console.log(JSON.stringify({ tWake, tLoad, stateAtLoad: s1.state, size: s1.memorySize, tModel, tRank }));
  }
} finally { await h.close(); }
