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
  await h.restartServiceWorker();
  console.log(JSON.stringify(await h.call('model:status', {})));
  for (const q of ['marker100zz', items[100].text.split(' ').slice(0, 10).join(' ') + ' marker100zz']) {
    const r = await h.call<{ cards: unknown[] }>('rank:preview', { text: q });
    console.log(q, JSON.stringify(r.cards.slice(0, 4)));
  }
  console.log(items[100]);
} finally { await h.close(); }
