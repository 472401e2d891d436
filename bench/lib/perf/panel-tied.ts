import { launchExtension, type Harness } from '../../../test/e2e/harness';
import { createItem } from '../../../lib/memory/normalize';
import { reloadedWithPack, seedStraight } from './browser';
import { SyntheticCorpus, percentile } from './synthetic';

/** Rankings timed per build, after a few untimed. */
const ROUNDS = 30;
const WARM = 5;

/**
 * A panel update where many memories are tied to the page: `n` synthetic notes kept for the test page's site, each a
 * candidate of every ranking there (as a person's thousands of notes are of a mail to them), mostly left out. The
 * built extension answers `panel:get` for the page (the ranking, and the state it sends back as a message). Seeding is
 * the bench shortcut of `seedMemory`: items and topic-derived vectors written straight into IndexedDB, then the worker
 * restarted so it loads them as it always does. Other builds (`others`, e.g. of an earlier commit) are seeded alike
 * and take turns with this one round by round.
 */
export async function panelTiedFigures(log: (s: string) => void, n: number, others: string[] = []) {
  const corpus = new SyntheticCorpus();
  const { inputs, topics } = corpus.inputs(n, 2024);
  const targets: { label: string; h: Harness; tabId: number; times: number[]; kb: number; traced: number }[] = [];
  for (const dir of [undefined, ...others]) {
    const label = dir ?? 'this build';
    const h = await launchExtension(dir ? { buildDir: dir } : {});
    const site = new URL(h.origin).hostname;
    const now = Date.now();
    const items = inputs.map((inp, i) => createItem({ ...inp, pinned: false, kind: 'evidence', sites: [site], createdAt: now - (i + 1) * 60_000 }, now));
    log(`panel-tied: seeding ${n} notes kept for ${site} into ${label} (bench shortcut)`);
    await seedStraight(h, await h.extensionPage(), items, topics, corpus);
    const { page, tabId } = await h.openPage('/fixtures/textarea.html');
    await page.locator('#field').fill(corpus.text(topics[17], 12, () => 0.3));
    await reloadedWithPack(h, n);
    targets.push({ label, h, tabId, times: [], kb: 0, traced: 0 });
  }
  try {
    for (let r = 0; r < ROUNDS + WARM; r++) {
      for (const t of r % 2 ? [...targets].reverse() : targets) {
        const t0 = performance.now();
        const state = await t.h.call<{ trace: unknown[] }>('panel:get', { tabId: t.tabId });
        const ms = performance.now() - t0;
        if (r >= WARM) t.times.push(ms);
        t.kb = JSON.stringify(state).length / 1024;
        t.traced = state.trace.length;
      }
    }
  } finally {
    for (const t of targets) await t.h.close();
  }
  return targets.map((t) => ({ label: t.label, p50: percentile(t.times, 50), p95: percentile(t.times, 95), kb: t.kb, traced: t.traced }));
}
