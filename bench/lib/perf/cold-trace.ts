// Diagnostics for cold starts (`npx tsx bench/lib/perf/cold-trace.ts`, after `npm run build`): the cold-start rounds of
// bench:perf (10k items, worker stopped, panel opened as a tab), each optionally under a Chromium trace (CDP Tracing,
// streamed to OUT; kept for the first round and rounds slower than SLOW_MS). Prints first-cards and model-ready times
// and the stalled count. Env: ROUNDS (10), N (10000), TRACE=0 to run untraced, TRACE_EARLY=1 to trace from the
// worker restart before each round, CATS (comma-separated categories), OUT (/tmp/cold-traces), SLOW_MS (5000),
// BUILD_DIR (another build, e.g. to compare before/after). Tracing makes stalls rarer: count stalls untraced.
// How the 15-45 s panel stall was found with it: README, cold start.
import { appendFileSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { launchExtension } from '../../../test/e2e/harness';
import { createItem } from '../../../lib/memory/normalize';
import { SyntheticCorpus } from './synthetic';
import { PACK_SIZE_SRC, SEED_SRC, openPanelNotingCards, stopAsAfterBrowserStart } from './browser';

const n = Number(process.env.N ?? 10000);
const rounds = Number(process.env.ROUNDS ?? 10);
const trace = process.env.TRACE !== '0';
const out = process.env.OUT ?? '/tmp/cold-traces';
const slowMs = Number(process.env.SLOW_MS ?? 5000);
const categories = (process.env.CATS ??
  'loading,navigation,ServiceWorker,extensions,v8,v8.wasm,disabled-by-default-v8.compile,disabled-by-default-v8.gc,toplevel,disabled-by-default-toplevel.flow,ipc,mojom,base,blink,blink.resource,devtools.timeline,net,netlog,browser,renderer.scheduler,sequence_manager,disabled-by-default-devtools.timeline,disabled-by-default-network,startup,content,ThreadPool,disabled-by-default-ipc.flow,disabled-by-default-ServiceWorker').split(',');
mkdirSync(out, { recursive: true });

const h = await launchExtension(process.env.BUILD_DIR ? { buildDir: process.env.BUILD_DIR } : {});
const results: number[] = [];
try {
  const corpus = new SyntheticCorpus();
  const { inputs, topics } = corpus.inputs(n, 2024);
  const items = inputs.map((inp) => createItem({ ...inp, pinned: false }, Date.now()));
  const page = await h.extensionPage();
  await h.call('settings:get', {});
  for (let i = 0; i < items.length; i += 2000) {
    await page.evaluate(`(${SEED_SRC})(${JSON.stringify([items.slice(i, i + 2000), topics.slice(i, i + 2000), corpus.centroids.map((c) => Array.from(c)), {}])})`);
  }
  const { page: tab, tabId } = await h.openPage('/fixtures/textarea.html');
  await tab.locator('#field').fill(items[17].text.split(' ').slice(0, 12).join(' '));
  await h.restartServiceWorker();
  let ext = await h.extensionPage();
  const packSize = async () => {
    ext = await h.extensionPage();
    return ext.evaluate(PACK_SIZE_SRC) as Promise<number>;
  };
  while ((await packSize()) !== n) await new Promise((r) => setTimeout(r, 100));
  const browser = h.context.browser()!;
  const bcdp = await browser.newBrowserCDPSession();
  const early = !!process.env.TRACE_EARLY;
  const startTrace = () =>
    bcdp.send('Tracing.start', {
      traceConfig: { includedCategories: categories, recordMode: 'recordContinuously' },
      transferMode: 'ReturnAsStream',
    } as never);
  for (let round = 0; round < rounds; round++) {
    // TRACE_EARLY: the trace also covers the worker restart before the round (what it leaves running).
    if (trace && early) await startTrace();
    await h.restartServiceWorker();
    while ((await packSize()) !== n) await new Promise((r) => setTimeout(r, 100));
    await stopAsAfterBrowserStart(h, ext);
    if (trace && !early) await startTrace();
    const t0 = Date.now();
    const wall0 = t0;
    const events: string[] = [];
    const name = (u: string) => u.split('/').pop()!.split('?')[0];
    h.context.once('page', (pg) => {
      pg.on('request', (r) => events.push(`req ${Date.now() - t0} ${name(r.url())}`));
      pg.on('requestfinished', (r) => events.push(`fin ${Date.now() - t0} ${name(r.url())}`));
    });
    let first = -1;
    let pg: Awaited<ReturnType<typeof openPanelNotingCards>>['panel'] | undefined;
    try {
      const opened = await openPanelNotingCards(h, tabId);
      pg = opened.panel;
      first = (await opened.firstCard(60_000)) - t0;
    } catch (e) {
      first = Date.now() - t0;
      events.push(`FAILED ${String(e).split('\n')[0]}`);
    }
    while ((await h.call<{ state: string }>('model:status', {})).state === 'loading') await new Promise((r) => setTimeout(r, 50));
    const model = Date.now() - t0;
    results.push(first);
    console.log(`round ${round + 1}: first cards ${first} ms, model ready ${model} ms (t0 ${(t0 / 1000).toFixed(1)})`);
    if (first > slowMs) console.log('  ' + events.join(' | '));
    if (trace) {
      const done = new Promise<{ stream: string }>((ok) => bcdp.once('Tracing.tracingComplete' as never, ok as never));
      await bcdp.send('Tracing.end');
      const { stream } = await done;
      const keep = first > slowMs || round === 0 || process.env.KEEP_ALL;
      const tmp = `${out}/partial.json`;
      rmSync(tmp, { force: true });
      for (;;) {
        const r = (await bcdp.send('IO.read', { handle: stream, size: 1 << 22 } as never)) as unknown as { data: string; eof: boolean; base64Encoded?: boolean };
        if (keep) appendFileSync(tmp, r.base64Encoded ? Buffer.from(r.data, 'base64') : r.data);
        if (r.eof) break;
      }
      await bcdp.send('IO.close', { handle: stream } as never);
      if (keep) {
        const f = `${out}/round${round + 1}-${first}ms.json`;
        renameSync(tmp, f);
        writeFileSync(`${f}.meta`, JSON.stringify({ wall0, first, model, events }));
        console.log(`  trace: ${f}`);
      }
    }
    await pg?.close();
  }
  const s = [...results].sort((a, b) => a - b);
  const pct = (p: number) => s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
  console.log(`rounds ${results.join(', ')}`);
  console.log(`stalled (> ${slowMs} ms): ${results.filter((x) => x > slowMs).length}/${results.length}; p50 ${pct(50)} p95 ${pct(95)}`);
} finally {
  await h.close();
}
