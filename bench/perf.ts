/**
 * Speed and memory (issue #6). Every figure is printed beside its baseline measured in the same run, and written as
 * JSON with --json. Usage: npm run bench:perf -- [--json OUT] [--quick] [--no-browser] [--browser-only] [--sizes 10000,100000]
 *   [--memory-browser] [--list-sizes 10000,100000] [--baseline-build DIR] [--baseline-sizes 10000] [--index-ceiling]
 *   [--panel-tied [--tied 5000]] [--rank-only [--rank-tasks 40] [--same-items]]
 *
 * --rank-only: only rank_ms_* at --sizes (the full ranker and the plain memory, interleaved), for comparing two trees by
 * running it in each, one after the other.
 * - embed_query_ms_p50: one 16-token query on onnxruntime-web WASM, one thread, in Node; the int8 rewrite
 *   (model_quantized.onnx, what the extension loads first) against the q4 model as shipped, interleaved.
 * - index_items_per_s: ~60-token notes (54 plain English words, 58 word pieces with [CLS]/[SEP] by the model's own
 *   tokenizer; the issue's unit) embedded in batches of 16 and stored through the real MemoryStore (fake-indexeddb),
 *   WASM: the extension's EnginePool of 2 single-threaded engines (worker threads, each its own runtime copy, the
 *   offscreen document's layout), and one engine on 1 and 2 onnxruntime threads. Node's figure; the extension's is
 *   index_items_per_s_browser (offscreen document with one engine per core, against the service worker).
 * - rank_ms_p95_10k / _100k: the full ranker as users have it (rankLearned: situation -> package, learning applied),
 *   query embedding excluded, over synthetic notes (made-up vocabulary in 300 topics, ~60 words) whose vectors are
 *   derived from their topic (a topic centroid plus noise, unit length), not produced by the model: a fifth of the
 *   items long (300-1,200 words, a vector and a BM25 document per passage), instructions scoped to sites and people
 *   and learned from prompts, weights learned from feedback (bench/lib/perf/rank-figures.ts). Baseline: the same
 *   ranker over the same number of short notes without scoped rules or learning, its rankings interleaved task by
 *   task with the product's in the same run. With --same-items, rank_ms_p95_<size>_same_items: the product's items (the same long
 *   items, words and vectors) without its rules and learning, interleaved likewise: the plain notes hold fewer words
 *   and vectors, so this says what the product's rules and learning cost apart from its memory's size. Timed once V8 has compiled the ranker (WARM_RANKINGS untimed rankings
 *   each), as in a writing session; rank_ms_first_p50_<first size>: the median of the process's first rankings, as
 *   after the browser stops an idle worker; rank_ms_first_p50_<first size>_fresh_memory: the median of the first
 *   rankings over a second memory built alike after those (the ranker's code compiled, what it works out per item and
 *   keeps not yet made), which tells the two costs of a first ranking apart.
 * - vector_bytes_per_item: vector payload per item (int8 codes + scale) against float32; the measured heap
 *   growth including the id bookkeeping is printed too.
 * - heap_mb_100k: heap of the ranking state (items, BM25, vectors) for 100k items in Node, a fifth of them long
 *   (300-1,200 words: a vector and a BM25 document per passage): what the service worker holds after loading them.
 *   heap_mb_100k_no_long: the same without long items; memory_mb_100k (the former name) repeats heap_mb_100k.
 * - store_load_ms_10k: MemoryStore.load() of 10k items in fake-indexeddb, from the persisted index pack against
 *   the tables alone (baseline).
 * - panel_update_ms_tied (--panel-tied): panel:get in the built extension where N notes (--tied, 5,000) are kept for
 *   the page's site, so each is a candidate and most are left out (bench/lib/perf/panel-tied.ts); with
 *   --baseline-build, another build seeded alike, taking turns round by round. With the browser figures it takes the
 *   WASM-only build's place as the cold starts' baseline (to compare two trees' cold starts in one run).
 * - panel_update_ms_p50 / cold_start_ms / index_items_per_s_browser: in headless Chromium with the built extension
 *   (bench/lib/perf/browser.ts; `--browser-only` runs just these). cold_start_ms (p50), cold_start_ms_p95 and
 *   cold_start_stalled_rounds (rounds over 5 s) are 20 rounds of the shipping build, WebGPU engine included, beside
 *   the same 20 rounds of the WASM-only build (BACKSTORY_WASM_ONLY=1, built by the bench) as their baseline;
 *   cold_start_ms_no_pack is the shipping build with the index pack deleted. rank_ms_first_after_start_browser: in
 *   those cold starts, the worker's first ranking by words (`RANKED_MEASURE`, the ranker's own time), p50, against
 *   the median of its next rankings by words before the model was ready. index_items_per_s_browser's baseline is
 *   the service worker's own 1-thread path, measured in alternating rounds, with the latency of rankings asked for
 *   during each import. index_items_per_s_webgpu: a 1,024-note import on the WebGPU engine, on a hardware GPU adapter
 *   only (`--webgpu` turns WebGPU on in Chromium); the key is always written, null without such an adapter.
 *   package_mb_*: each part of the unpacked shipping build (model, runtime_wasm, runtime_webgpu, webgpu_engine_js,
 *   other, total), and of the WASM-only build (_wasm_only). zip_mb_chrome / zip_mb_firefox: the store zips the last
 *   `npm run zip` wrote to .output/ (what an install downloads); null when there is none.
 * - index_tokens_per_s / index_ceiling_tokens_per_s / index_tokens_share_of_ceiling: LongMemEval chat turns (read from
 *   ../shared/datasets at bench time) imported through memory:import and embedded by the offscreen document, against
 *   the same texts in the same batch sizes run by the offscreen engine script in two bare Workers of an extension
 *   page (no store), in alternating rounds; word pieces per second by the model's tokenizer. index_padding_share:
 *   tokens the engines run, padding included, over real tokens, for the store's batches
 *   (bench/lib/perf/index-ceiling.ts; `--index-ceiling [--index-items N] [--index-rounds R]` runs just these).
 * - memory_first_rows_ms_10k / _100k, memory_filter_ms_*, memory_panel_heap_mb_*: the side panel's Memory tab in
 *   headless Chromium (bench/lib/perf/memory-browser.ts; `--memory-browser` runs just these): click -> first rows,
 *   a word typed into its filter -> the filtered list, and the panel page's heap. `--baseline-build DIR` measures
 *   another build (an earlier commit's `.output/chrome-mv3`) the same way as the baseline.
 */
import { writeFileSync } from 'node:fs';
import { VectorIndex } from '../lib/memory/index/vector-index';
import { buildMemory, embedQuery, fillHydrated, heap, indexRate, storeLoad, vectorHeap } from './lib/perf/node-figures';
import { FIRST_RANKINGS, WARM_RANKINGS, rankSetups, rankTimes } from './lib/perf/rank-figures';
import { SyntheticCorpus } from './lib/perf/synthetic';
import { optionValue } from './lib/args';

interface Row {
  name: string;
  what: string;
  value: number;
  baseline?: number;
  target: string;
  ok?: boolean;
  note?: string;
}

function args(argv: string[]) {
  const get = (n: string) => optionValue(argv, n);
  return {
    json: get('--json'),
    quick: argv.includes('--quick'),
    browser: !argv.includes('--no-browser') && !argv.includes('--rank-only'),
    /** Only the ranking figures (rank_ms_*: the full ranker against the plain memory) at --sizes, in Node. */
    rankOnly: argv.includes('--rank-only'),
    /** Tasks timed per size after the untimed ones (40; 15 with --quick). */
    rankTasks: get('--rank-tasks') === undefined ? undefined : Number(get('--rank-tasks')),
    /** Also the product's items without its rules and learning, interleaved with both (rank_ms_*_same_items). */
    sameItems: argv.includes('--same-items'),
    /** Only the figures measured in Chromium (panel update, cold start, browser indexing). */
    browserOnly: argv.includes('--browser-only'),
    /** Chromium with WebGPU on (a machine's GPU, or SwiftShader where there is none) for index_items_per_s_webgpu. */
    webgpu: argv.includes('--webgpu'),
    sizes: (get('--sizes') ?? '10000,100000').split(',').map(Number),
    /** Only the browser indexing rate against its ceiling (index_tokens_per_s, index_ceiling_tokens_per_s). */
    indexCeiling: argv.includes('--index-ceiling'),
    /** Notes per round and rounds for --index-ceiling. */
    indexItems: Number(get('--index-items') ?? 200),
    indexRounds: Number(get('--index-rounds') ?? 2),
    /** Only `panel:get` where many notes are tied to the page (panel_update_ms_tied), with --tied N of them. */
    panelTied: argv.includes('--panel-tied'),
    tied: Number(get('--tied') ?? 5000),
    /** Only the memory browser's figures (first rows, filtered list, panel heap) in Chromium. */
    memoryBrowser: argv.includes('--memory-browser'),
    /** Memory sizes for the memory browser's figures. */
    listSizes: (get('--list-sizes') ?? '10000,100000').split(',').map(Number),
    /** Another extension build (e.g. of an earlier commit) measured the same way, as the memory browser's or --panel-tied's baseline. */
    baselineBuild: get('--baseline-build'),
    /** Memory sizes the baseline build is measured at (a build that draws every item may not finish at 100k). */
    baselineSizes: (get('--baseline-sizes') ?? '10000').split(',').map(Number),
  };
}

const r1 = (x: number) => Math.round(x * 10) / 10;

async function main() {
  const a = args(process.argv.slice(2));
  const rows: Row[] = [];
  const extra: Record<string, number | string | null> = {};
  const log = (s: string) => console.error(`[perf] ${s}`);
  /** Figures this run was asked for and could not measure: the run fails with them, after printing the rest. */
  const unmeasured: string[] = [];

  if (a.indexCeiling) {
    const { launchExtension } = await import('../test/e2e/harness');
    const { indexCeilingFigures, indexCeilingRows } = await import('./lib/perf/index-ceiling');
    const h = await launchExtension();
    // --baseline-build DIR[,DIR]: other builds' imports in the same rounds, against the same ceiling.
    const baselines = [];
    for (const dir of a.baselineBuild?.split(',') ?? []) baselines.push({ label: dir, h: await launchExtension({ buildDir: dir }) });
    try {
      const f = await indexCeilingFigures(h, log, { items: a.indexItems, rounds: a.indexRounds, baselines });
      const r = indexCeilingRows(f);
      for (const b of f.baselines) {
        r.extra[`index_tokens_per_s_${b.label}`] = Math.round(b.rate);
        r.extra[`index_tokens_share_of_ceiling_${b.label}`] = Math.round(b.ratio * 1000) / 1000;
      }
      rows.push(...r.rows);
      Object.assign(extra, r.extra);
    } finally {
      await h.close();
      for (const b of baselines) await b.h.close();
    }
  }

  if (a.panelTied) {
    const { panelTiedFigures } = await import('./lib/perf/panel-tied');
    const [now, ...before] = await panelTiedFigures(log, a.tied, a.baselineBuild ? [a.baselineBuild] : []);
    rows.push({
      name: 'panel_update_ms_tied', what: `panel:get in the built extension, ${a.tied} notes kept for the page's site (each a candidate, most left out), p50`,
      value: r1(now.p50), baseline: before[0] && r1(before[0].p50), target: 'reported',
      note: `p95 ${r1(now.p95)} ms; the state ${r1(now.kb)} KB, ${now.traced} trace entries${before[0] ? `; baseline build: p95 ${r1(before[0].p95)} ms, ${r1(before[0].kb)} KB, ${before[0].traced} entries` : ''}`,
    });
  }

  if (!a.browserOnly && !a.memoryBrowser && !a.indexCeiling && !a.panelTied) {
  if (!a.rankOnly) {
  log('embedding one query (WASM, 1 thread): int8 vs q4, interleaved');
  const eq = await embedQuery(a.quick ? 15 : 40);
  rows.push({
    name: 'embed_query_ms_p50', what: 'one 16-token query, onnxruntime-web WASM, 1 thread, Node', value: r1(eq.q8), baseline: r1(eq.q4),
    target: '<= 15 ms and >= 3x faster', ok: eq.q8 <= 15 && eq.q4 / eq.q8 >= 3, note: `${r1(eq.q4 / eq.q8)}x; min ${r1(eq.q8min)} vs ${r1(eq.q4min)} ms`,
  });
  extra.embed_query_ms_p50_baseline = r1(eq.q4);
  extra.embed_query_speedup = r1(eq.q4 / eq.q8);

  const nIdx = a.quick ? 96 : 192;
  log(`indexing ${nIdx} notes of ~60 tokens through MemoryStore: int8 on 2 engines (the extension's pool), 1 engine on 1 and 2 threads; q4 1 thread`);
  const pool = await indexRate('q8', nIdx, { engines: 2 });
  const i8x1 = await indexRate('q8', nIdx, { threads: 1 });
  const i8x2 = await indexRate('q8', nIdx, { threads: 2 });
  const i4x1 = await indexRate('q4', nIdx, { threads: 1 });
  const best = Math.max(pool.perS, i8x1.perS, i8x2.perS);
  rows.push({
    name: 'index_items_per_s', what: 'embed + store ~60-token notes, WASM (Node), batches of 16, both cores', value: r1(best), baseline: r1(i4x1.perS),
    target: '>= 100 items/s', ok: best >= 100,
    note: `int8: pool of 2 single-thread engines ${r1(pool.perS)}/s, 1 engine 1 thread ${r1(i8x1.perS)}/s, 2 threads ${r1(i8x2.perS)}/s; q4 1 thread ${r1(i4x1.perS)}/s; ${Math.round(i8x1.tokens)} tokens/note`,
  });
  extra.index_items_per_s_pool2 = r1(pool.perS);
  extra.index_items_per_s_1thread = r1(i8x1.perS);
  extra.index_items_per_s_2threads = r1(i8x2.perS);
  extra.index_items_per_s_baseline = r1(i4x1.perS);
  extra.index_tokens_per_note = Math.round(i8x1.tokens);
  }

  const corpus = new SyntheticCorpus();
  for (const n of a.sizes) {
    const label = n >= 1000 ? `${Math.round(n / 1000)}k` : String(n);
    const qs = a.rankTasks ?? (a.quick ? 15 : 40);
    const cold = n === a.sizes[0];
    {
      log(`building ${n} synthetic items twice: with passages, scoped and learned rules, learned weights; and plain`);
      const setups = rankSetups(n, corpus, a.sameItems);
      log(`ranking ${qs} tasks over ${label}: the product and the plain memory, interleaved`);
      const [now, base, same] = await rankTimes([setups.product, setups.plain, ...(setups.sameItems ? [setups.sameItems] : [])], corpus, setups.now, qs);
      const target = n >= 100_000 ? 60 : 15;
      rows.push({
        name: `rank_ms_p95_${label}`, what: `full ranker, ${label} items with passages, scopes and learning, query embedding excluded`,
        value: r1(now.p95), baseline: r1(base.p95), target: `<= ${target} ms`, ok: now.p95 <= target,
        note: `p50 ${r1(now.p50)} vs ${r1(base.p50)} ms, after ${WARM_RANKINGS} untimed rankings each${cold ? `; the process's first rankings p50 ${r1(now.first)} vs ${r1(base.first)} ms` : ''}; ${setups.passages} passages${same ? `; the product's items without its rules and learning p95 ${r1(same.p95)} (p50 ${r1(same.p50)}) ms` : ''}`,
      });
      if (same) {
        extra[`rank_ms_p95_${label}_same_items`] = r1(same.p95);
        extra[`rank_ms_p50_${label}_same_items`] = r1(same.p50);
      }
      // Only the first size's first rankings run on code not yet compiled.
      if (cold) {
        extra[`rank_ms_first_p50_${label}`] = r1(now.first);
        extra[`rank_ms_first_p50_${label}_baseline`] = r1(base.first);
        log(`a second ${label} memory built alike: its first rankings on compiled code, over what is kept per item not yet made`);
        const fresh = rankSetups(n, corpus);
        const [again] = await rankTimes([fresh.product], corpus, fresh.now, 0, 79, FIRST_RANKINGS);
        extra[`rank_ms_first_p50_${label}_fresh_memory`] = r1(again.first);
        rows[rows.length - 1].note += `; a second memory's first rankings p50 ${r1(again.first)} ms (code compiled)`;
      }
      extra[`rank_ms_p50_${label}`] = r1(now.p50);
      extra[`rank_ms_p50_${label}_baseline`] = r1(base.p50);
      extra[`rank_ms_p95_${label}_baseline`] = r1(base.p95);
    }
    if (a.rankOnly) continue;
    log(`building ${n} synthetic notes in IndexedMemory`);
    extra[`load_ms_per_1k_items`] = r1((buildMemory(n, corpus).buildMs / n) * 1000);
  }
  if (!a.rankOnly) {
  if (a.sizes.some((n) => n >= 100_000)) {
    log('building 100k synthetic notes, a fifth of them long (a vector and a BM25 document per passage), and all short, for the heap');
    extra.heap_mb_100k_no_long = await heapOf(corpus, 0);
    const mb = await heapOf(corpus, 0.2);
    extra.heap_mb_100k = mb;
    extra.memory_mb_100k = mb; // the figure's former name, for readers of older runs
    rows.push({
      name: 'heap_mb_100k', what: 'heap of the ranking state for 100k items, a fifth long with passages (Node)', value: mb,
      target: '<= 150 MB', ok: mb <= 150, note: `without long items ${extra.heap_mb_100k_no_long} MB`,
    });
  }

  log('loading 10k items through MemoryStore (fake-indexeddb): tables vs persisted pack');
  const ld = await storeLoad(10_000, corpus, a.quick ? 1 : 3);
  rows.push({
    name: 'store_load_ms_10k', what: 'MemoryStore.load(), 10k items, fake-indexeddb (Node): pack vs tables', value: r1(ld.packed), baseline: r1(ld.rows),
    target: 'reported (part of cold_start_ms)', note: `writing the pack ${Math.round(ld.saveMs)} ms`,
  });
  extra.store_load_ms_10k_baseline = r1(ld.rows);
  extra.pack_save_ms_10k = r1(ld.saveMs);

  const vh = vectorHeap(a.quick ? 20_000 : 100_000, corpus);
  rows.push({
    name: 'vector_bytes_per_item', what: 'vector payload per item (int8 codes + scale vs float32)', value: VectorIndex.bytesPerVector(384), baseline: 384 * 4,
    target: '<= 400 bytes', ok: VectorIndex.bytesPerVector(384) <= 400, note: `measured heap incl. ids and slack: ${Math.round(vh.quant)} vs ${Math.round(vh.float)} B`,
  });
  extra.vector_heap_bytes_per_item = Math.round(vh.quant);
  extra.vector_heap_bytes_per_item_baseline = Math.round(vh.float);
  }
  }

  if (a.browser && !a.memoryBrowser && !a.indexCeiling && !a.panelTied) {
    try {
      const { browserFigures } = await import('./lib/perf/browser');
      const { buildParts, buildWasmOnly } = await import('./lib/perf/build-parts');
      const { BUILD_DIR } = await import('../test/e2e/harness');
      // The baseline's cold starts alternate with the shipping build's: the WASM-only build (no WebGPU engine, no
      // WebGPU runtime), or with --baseline-build another build (an earlier commit's) in its place.
      const other = a.baselineBuild;
      if (!other) log('building the WASM-only extension (BACKSTORY_WASM_ONLY=1)');
      const wasmOnlyDir = other ? undefined : buildWasmOnly();
      const bf = await browserFigures(log, 10_000, { webgpu: a.webgpu, baselineBuild: other ?? wasmOnlyDir });
      rows.push(...bf.rows);
      Object.assign(extra, bf.extra);
      const wo = bf.baseline!;
      for (const [name, value] of [['cold_start_ms', wo.p50], ['cold_start_ms_p95', wo.p95], ['cold_start_stalled_rounds', wo.stalled]] as const) {
        const row = rows.find((r) => r.name === name);
        if (row) row.baseline = value;
        extra[`${name}_${other ? 'baseline_build' : 'wasm_only'}`] = value;
      }
      const coldRow = rows.find((r) => r.name === 'cold_start_ms');
      const against = other ? `the build in ${other}` : 'the WASM-only build';
      if (coldRow) coldRow.note = `baseline: ${against} in alternating rounds, ${wo.cold.join(', ')} ms; ${coldRow.note}`;
      // What each part of a build weighs: the cost of the WebGPU engine is its runtime and its code.
      const base = other ? 'baseline build' : 'wasm-only';
      const parts = { shipping: buildParts(BUILD_DIR), [base]: buildParts(other ?? wasmOnlyDir!) };
      const suffix = other ? '_baseline_build' : '_wasm_only';
      for (const [build, p] of Object.entries(parts)) for (const [part, mb] of Object.entries(p)) extra[`package_mb_${part}${build === 'shipping' ? '' : suffix}`] = mb;
      rows.push({
        name: 'package_mb_total', what: `unpacked Chrome build, MB: shipping (WebGPU engine included) vs ${other ? 'the baseline build' : 'WASM-only'}`, value: parts.shipping.total, baseline: parts[base].total, target: 'reported',
        note: Object.entries(parts.shipping).filter(([k]) => k !== 'total').map(([k, v]) => `${k} ${v}${parts[base][k] !== v ? ` (${base} ${parts[base][k]})` : ''}`).join(', '),
      });
    } catch (e) {
      unmeasured.push(`browser figures (panel update, cold start, package parts): ${e instanceof Error ? e.message : String(e)}`);
      extra.browser_error = e instanceof Error ? e.message : String(e);
    }
  }

  if (a.browser && !a.indexCeiling && !a.panelTied) {
    try {
      const { memoryBrowserFigures, catalogQueryTimes } = await import('./lib/perf/memory-browser');
      for (const n of a.listSizes) {
        const q = await catalogQueryTimes(n);
        const label = `${Math.round(n / 1000)}k`;
        rows.push({
          name: `memory_query_ms_${label}`, what: `memory:query in the worker's memory (Node): first page of a word filter, ${label} items`, value: r1(q.wordMs), target: 'reported',
          note: `unfiltered page ${r1(q.pageMs)} ms, half-typed word ${r1(q.prefixMs)} ms, kind ${r1(q.kindMs)} ms; the first query after a change sorts: ${r1(q.sortMs)} ms`,
        });
      }
      const now = await memoryBrowserFigures(log, a.listSizes);
      const before = a.baselineBuild ? await memoryBrowserFigures(log, a.baselineSizes, a.baselineBuild) : [];
      for (const f of now) {
        const label = `${Math.round(f.n / 1000)}k`;
        const b = before.find((x) => x.n === f.n);
        const base = b ? ` Baseline build: ${b.note}.` : '';
        rows.push(
          { name: `memory_first_rows_ms_${label}`, what: `Memory tab clicked -> first rows drawn, ${label} items, panel page in headless Chromium`, value: f.firstRowsMs, baseline: b?.firstRowsMs, target: '<= 200 ms', ok: f.firstRowsMs <= 200, note: `${f.note}; first after the worker loaded ${f.firstRowsFirstMs} ms.${base}` },
          { name: `memory_filter_ms_${label}`, what: `a word typed into the memory filter -> the filtered list drawn, ${label} items`, value: f.filterMs, baseline: b?.filterMs, target: '<= 200 ms', ok: f.filterMs <= 200 },
          { name: `memory_panel_heap_mb_${label}`, what: `the panel page's JS heap with the Memory tab shown, ${label} items`, value: f.heapMb, baseline: b?.heapMb, target: 'reported' },
        );
      }
    } catch (e) {
      unmeasured.push(`memory browser figures: ${e instanceof Error ? e.message : String(e)}`);
      extra.memory_browser_error = e instanceof Error ? e.message : String(e);
    }
  }

  // What an install downloads: the store zips of the last `npm run zip` (the bench does not build them).
  const { builtZipMegabytes } = await import('./lib/perf/build-parts');
  const zips = builtZipMegabytes();
  if (!a.rankOnly) for (const browser of ['chrome', 'firefox'] as const) {
    const mb = zips[browser];
    extra[`zip_mb_${browser}`] = mb;
    if (mb === null) unmeasured.push(`zip_mb_${browser}: no ${browser} zip in .output; run \`npm run zip\` first`);
    else rows.push({ name: `zip_mb_${browser}`, what: `the ${browser === 'chrome' ? 'Chrome' : 'Firefox'} store zip (npm run zip), MB`, value: mb, target: '<= 40 MB', ok: mb <= 40 });
  }

  const lines = ['| JSON name | what | value | baseline | target | met | note |', '|---|---|---|---|---|---|---|'];
  for (const r of rows)
    lines.push(`| ${r.name} | ${r.what} | ${r.value} | ${r.baseline ?? '-'} | ${r.target} | ${r.ok === undefined ? '-' : r.ok ? 'yes' : 'no'} | ${r.note ?? ''} |`);
  console.log(lines.join('\n'));
  if (a.json) {
    const out: Record<string, unknown> = {};
    for (const r of rows) {
      out[r.name] = r.value;
      if (r.baseline !== undefined) out[`${r.name}_baseline`] = r.baseline;
    }
    Object.assign(out, extra, { rows });
    writeFileSync(a.json, JSON.stringify(out, null, 2));
    log(`wrote ${a.json}`);
  }
  if (unmeasured.length) throw new Error(`not measured:\n${unmeasured.map((u) => `- ${u}`).join('\n')}`);
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);

/**
 * Heap of the ranking state for 100k items (`longShare` of them long), in a scope of its own so nothing else built
 * before it is freed while it is measured. From before the index was built: the items as IndexedDB holds them
 * (`stored`) are not the worker's heap; the texts rankings read and keep are (filled to their bound).
 */
async function heapOf(corpus: SyntheticCorpus, longShare: number): Promise<number> {
  const b = buildMemory(100_000, corpus, longShare);
  b.floats.clear();
  await fillHydrated(b.mem);
  return r1((heap() - b.heapBefore) / 1e6);
}
