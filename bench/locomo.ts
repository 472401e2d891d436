/**
 * LoCoMo evidence retrieval: every turn of a conversation is a memory item (dated by its session, threaded by
 * session, the speaker as its person); each answerable question is the text in the focused field. All methods are
 * scored from one run. Usage: npm run bench:locomo -- [--data FILE] [--conversations A-B] [--as turns|sessions] [--dtype q8|q4] [--index-dtype q4] [--panel] [--json OUT]

`--as sessions`: each session is ONE memory item, a document of its turns ("Speaker: text" a line), as a long mail
or a note is; R@k then counts the sessions that hold evidence. For either granularity the bench also reports
**evidence in the package**: the share of evidence turns whose text is inside the default-budget package, overall and by conversation. Rows:
`backstory-package` is the product's package (rankForTab's, what Insert all puts in: lib/rank/package.ts, whatever it
packs); the two others are references, not the product path: `cards-whole-items-greedy` packs the same cards' whole
texts in rank order (the package before long items were packed by passage), `bm25-passages-greedy` packs passages
of about 200 tokens (split at line breaks) in BM25 order.
 *
 * `--index-dtype q4`: the product's memory is indexed with the q4 file (the one the WebGPU engine runs; here on WASM in
 * Node, which agrees with WebGPU at cosine >= 0.998 in test/e2e/webgpu.test.ts) and stored as the int8 model's, as
 * the extension stores checked WebGPU vectors, while queries stay on the int8 model as in the service worker: the
 * LoCoMo figure of a memory indexed on the WebGPU path. The bench-view rows are unaffected.
 *
 * `backstory` and `backstory-cards` measure the product: each conversation is written as a memory file, imported
 * through the import reader (readImport) and MemoryStore.commitImport into IndexedDB (fake-indexeddb), embedded by the
 * store's own pipeline, and ranked by what the service calls (`backstory`: the ranker's full scored order over the
 * store's memory; `backstory-cards`: rankForTab, the panel's cards). The `backstory-bench-view` rows rank the same
 * turns held in a memory built directly from arrays (bench/lib/prepare.ts), as earlier figures did.
 *
 * `--panel` adds `backstory-panel`: the cards the side panel itself shows in the built extension (headless Chromium,
 * `npm run build` first), each conversation imported through the options page and each question typed into the
 * panel's search box (bench/lib/panel-cards.ts). The panel ranks at the browser's clock, so beside it
 * `backstory-cards-today` is the `backstory-cards` ranking of the same search at that clock.
 */
import { writeFileSync } from 'node:fs';
import { locomoDataFile } from './lib/locomo-data';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cosine } from '../lib/embed/embedder';
import { DEFAULT_SETTINGS } from '../lib/settings/defaults';
import { LexicalIndex } from '../lib/memory/index/lexical-index';
import { rankMemory, scoreMemory } from '../lib/rank/rank';
import { taskQueryTexts } from '../lib/rank/query';
import type { RankRequest } from '../lib/rank/types';
import { rankForTab } from '../lib/service/ranking';
import { QueryVectorCache } from '../lib/service/query-vectors';
import { OverrideMemo } from '../lib/rank/overridden-instructions';
import { Tally, type MethodStats } from './lib/metrics';
import { openBenchCache, prepare, type Granularity, type PreparedConversation } from './lib/prepare';
import { bm25PassagePackage, evidenceShare, packGreedy } from './lib/evidence-in-package';
import { cachedEmbedder, importedMemory } from './lib/product';
import { panelCards, type PanelRun } from './lib/panel-cards';
import { optionValue } from './lib/args';

/** The bench ranks as a profile without feedback does: nothing learned, nothing noted. */
const NO_LEARNING = { active: async () => undefined, noteShown: () => {} };

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

function args(argv: string[]) {
  const get = (name: string) => optionValue(argv, name);
  const conv = get('--conversations');
  let range: [number, number] | undefined;
  if (conv) {
    const m = conv.match(/^(\d+)(?:-(\d+))?$/);
    if (!m) throw new Error(`--conversations wants A-B (1-based), got "${conv}"`);
    range = [Number(m[1]), Number(m[2] ?? m[1])];
  }
  const dtype = get('--dtype') ?? 'q8';
  if (dtype !== 'q8' && dtype !== 'q4') throw new Error(`--dtype wants q8 (the extension's int8 model) or q4, got "${dtype}"`);
  const indexDtype = get('--index-dtype');
  if (indexDtype !== undefined && indexDtype !== 'q4') throw new Error(`--index-dtype wants q4 (the WebGPU engine's file), got "${indexDtype}"`);
  const as = get('--as') ?? 'turns';
  if (as !== 'turns' && as !== 'sessions') throw new Error(`--as wants turns (one item a turn) or sessions (one item a session), got "${as}"`);
  return {
    data: get('--data'), range, json: get('--json'), dtype: dtype as 'q8' | 'q4', indexDtype: indexDtype as 'q4' | undefined, panel: argv.includes('--panel'),
    as: as as Granularity,
  };
}

const ms = (t0: number) => performance.now() - t0;

function denseOrder(p: PreparedConversation, q: Float32Array): string[] {
  return p.conv.items
    .map((it) => [it.id, Math.max(...p.vectors.get(it.id)!.map((v) => cosine(q, v)))] as const)
    .sort((a, b) => b[1] - a[1])
    .map(([id]) => id);
}

const PACKAGE_ROWS = ['backstory-package', 'cards-whole-items-greedy', 'bm25-passages-greedy'] as const;

export async function runLocomo(dataFile: string, range?: [number, number], dtype: 'q8' | 'q4' = 'q8', indexDtype?: 'q4', panel = false, as: Granularity = 'turns') {
  const cache = openBenchCache(ROOT, dtype);
  const prepared = await prepare(dataFile, range, ROOT, dtype, cache, as);
  const evidence = Object.fromEntries(PACKAGE_ROWS.map((r) => [r, 0])) as Record<(typeof PACKAGE_ROWS)[number], number>;
  let cardsShown = 0;
  const embedder = cachedEmbedder(cache, dtype);
  // Vectors of the WebGPU engine's file, stored under the query model's tag as the extension does once they agree.
  const indexEmbedder = indexDtype ? { ...cachedEmbedder(openBenchCache(ROOT, indexDtype), indexDtype), modelId: embedder.modelId } : embedder;
  const names = [
    'recency', 'bm25', 'dense', 'hybrid', 'backstory', 'backstory-cards', 'backstory-bench-view', 'backstory-bench-view-cards',
    ...(panel ? (['backstory-panel', 'backstory-cards-today'] as const) : []),
  ] as const;
  const tallies = Object.fromEntries(names.map((n) => [n, new Tally()])) as Record<(typeof names)[number], Tally>;
  let queries = 0;
  // Evidence in the package per conversation: a mean can hide one conversation where long items carry much less.
  const perConversation: Record<string, { questions: number } & Record<(typeof PACKAGE_ROWS)[number], number>> = {};
  const panelRuns: Record<string, Omit<PanelRun, 'cards'> & { sameAsNode: number; questions: number }> = {};
  for (const p of prepared) {
    let shown: string[][] | undefined;
    if (panel) {
      const { cards, ...run } = await panelCards(p.conv, (s) => process.stderr.write(`\r  ${s}   `));
      shown = cards;
      panelRuns[p.conv.id] = { ...run, sameAsNode: 0, questions: cards.length };
    }
    process.stderr.write(`\r  importing ${p.conv.id} through the store   `);
    const store = await importedMemory(p.conv, embedder, indexEmbedder);
    const queryCache = new QueryVectorCache();
    const overrides = new OverrideMemo();
    // Baselines index "[date] Speaker: text" (plus the caption) in a plain BM25 index, as the reference figures do.
    const plain = new LexicalIndex();
    for (const it of p.conv.items) plain.add(it.id, `${it.title} ${it.people.join(' ')}: ${it.text} ${it.aux ?? ''}`);
    const convEvidence = (perConversation[p.conv.id] = { questions: 0, ...Object.fromEntries(PACKAGE_ROWS.map((r) => [r, 0])) } as (typeof perConversation)[string]);
    const newest = [...p.conv.items].sort((a, b) => b.createdAt - a.createdAt).map((i) => i.id);
    for (const [qi, q] of p.questions.entries()) {
      queries++;
      let t0 = performance.now();
      const rec = newest.slice();
      tallies.recency.add(rec, q.relevant, ms(t0));

      t0 = performance.now();
      const bm = plain.search(LexicalIndex.queryTerms(q.question), p.conv.items.length).map((h) => h.id);
      tallies.bm25.add(bm, q.relevant, ms(t0));

      // Dense: the question as typed (the first query text is the question itself when the page adds nothing).
      t0 = performance.now();
      const de = denseOrder(p, q.vectors[0]);
      tallies.dense.add(de, q.relevant, ms(t0));

      t0 = performance.now();
      const rrf = new Map<string, number>();
      bm.forEach((id, i) => rrf.set(id, (rrf.get(id) ?? 0) + 1 / (60 + i + 1)));
      de.forEach((id, i) => rrf.set(id, (rrf.get(id) ?? 0) + 1 / (60 + i + 1)));
      const hy = [...rrf].sort((a, b) => b[1] - a[1]).map(([id]) => id);
      tallies.hybrid.add(hy, q.relevant, ms(t0));

      const req: RankRequest = {
        task: q.task,
        memory: p.view,
        settings: DEFAULT_SETTINGS,
        queryVector: q.vectors[0],
        queryVectors: q.vectors,
        now: p.conv.now,
      };
      // backstory-bench-view: the shipping ranker's full scored order (stages 1-4 with default settings) over the
      // array-built memory, before the panel's budget and card limit cut it to a few cards; -cards: those cards.
      t0 = performance.now();
      tallies['backstory-bench-view'].add((await scoreMemory(req)).ranked.map((s) => s.item.id), q.relevant, ms(t0));
      t0 = performance.now();
      tallies['backstory-bench-view-cards'].add((await rankMemory(req)).cards.map((c) => c.item.id), q.relevant, ms(t0));

      // backstory: the same ranker's full order over the imported store, query vectors embedded as the service does.
      t0 = performance.now();
      const texts = taskQueryTexts(q.task).filter((t) => t.trim());
      const queryVectors = await Promise.all(texts.map((t) => queryCache.get(embedder, t)));
      const full = (await scoreMemory({ task: q.task, memory: store.view, settings: DEFAULT_SETTINGS, queryVectors, now: p.conv.now })).ranked.map((s) => s.item.id);
      tallies.backstory.add(full, q.relevant, ms(t0));

      // backstory-cards: the panel's cards, from the function the service calls.
      t0 = performance.now();
      const state = await rankForTab({
        tabId: 1, task: q.task, store, settings: DEFAULT_SETTINGS, embedder, queries: queryCache, overrides, model: { state: 'ready', backend: embedder.backend },
        recentlyUsed: [], dismissed: [], learning: NO_LEARNING, seq: 0, now: p.conv.now,
      });
      tallies['backstory-cards'].add(state.cards.map((c) => c.item.id), q.relevant, ms(t0));
      cardsShown += state.cards.length;

      // Evidence in the package: the evidence turns' texts found whole in what Insert all would put in.
      const budget = DEFAULT_SETTINGS.budgetTokens;
      const ev = q.evidence ?? [];
      const shares = {
        'backstory-package': evidenceShare(state.package?.text ?? '', ev),
        'cards-whole-items-greedy': evidenceShare(packGreedy(state.cards.map((c) => `${c.item.title}: ${c.item.text}`), budget), ev),
        'bm25-passages-greedy': evidenceShare(bm25PassagePackage(p.conv.items, q.question, budget), ev),
      };
      convEvidence.questions++;
      for (const row of PACKAGE_ROWS) {
        evidence[row] += shares[row];
        convEvidence[row] += shares[row];
      }

      if (shown) {
        tallies['backstory-panel'].add(shown[qi], q.relevant, 0);
        // The panel's search at the browser's clock, ranked by the same function in Node.
        t0 = performance.now();
        const today = await rankForTab({
          tabId: 1, task: undefined, search: q.question, store, settings: DEFAULT_SETTINGS, embedder, queries: queryCache, overrides, model: { state: 'ready', backend: embedder.backend },
          recentlyUsed: [], dismissed: [], learning: NO_LEARNING, seq: 0, now: Date.now(),
        });
        tallies['backstory-cards-today'].add(today.cards.map((c) => c.item.id), q.relevant, ms(t0));
        if (today.cards.map((c) => c.item.id).join('\n') === shown[qi].join('\n')) panelRuns[p.conv.id].sameAsNode++;
      }
    }
  }
  const methods: Record<string, MethodStats> = {};
  for (const n of names) methods[n] = tallies[n].stats();
  const r = (x: number) => Math.round((x / (queries || 1)) * 1000) / 1000;
  const evidenceInPackage = Object.fromEntries(PACKAGE_ROWS.map((row) => [row, r(evidence[row])]));
  const evidenceByConversation = Object.fromEntries(
    Object.entries(perConversation).map(([id, c]) => [
      id,
      { questions: c.questions, ...Object.fromEntries(PACKAGE_ROWS.map((row) => [row, Math.round((c[row] / (c.questions || 1)) * 1000) / 1000])) },
    ]),
  ) as Record<string, { questions: number } & Record<(typeof PACKAGE_ROWS)[number], number>>;
  return { as, queries, methods, evidenceInPackage, evidenceByConversation, cardsPerQuestion: Math.round((cardsShown / (queries || 1)) * 100) / 100, ...(panel ? { panel: panelRuns } : {}) };
}

function table(res: {
  as: Granularity;
  queries: number;
  methods: Record<string, MethodStats>;
  evidenceInPackage: Record<string, number>;
  evidenceByConversation: Record<string, { questions: number } & Record<(typeof PACKAGE_ROWS)[number], number>>;
  cardsPerQuestion: number;
}): string {
  const rows = [
    '| method | R@5 | R@10 | nDCG@10 | MRR | p50 ms | p95 ms |',
    '|---|---|---|---|---|---|---|',
    ...Object.entries(res.methods).map(
      ([n, m]) =>
        `| ${n} | ${m.recall5.toFixed(3)} | ${m.recall10.toFixed(3)} | ${m.ndcg10.toFixed(3)} | ${m.mrr.toFixed(3)} | ${m.p50_ms.toFixed(2)} | ${m.p95_ms.toFixed(2)} |`,
    ),
  ];
  const pkg = [
    `| evidence in the ${DEFAULT_SETTINGS.budgetTokens}-token package | share of evidence turns |`,
    '|---|---|',
    ...Object.entries(res.evidenceInPackage).map(([n, v]) => `| ${n}${n === 'backstory-package' ? '' : ' (reference, not the product path)'} | ${v.toFixed(3)} |`),
  ];
  const byConv = [
    `| conversation | questions | ${PACKAGE_ROWS.join(' | ')} |`,
    `|---|---|${PACKAGE_ROWS.map(() => '---|').join('')}`,
    ...Object.entries(res.evidenceByConversation).map(([id, c]) => `| ${id} | ${c.questions} | ${PACKAGE_ROWS.map((row) => c[row].toFixed(3)).join(' | ')} |`),
  ];
  return `${res.queries} questions, one item a ${res.as === 'turns' ? 'turn' : 'session'}, ${res.cardsPerQuestion} cards a question\n${rows.join('\n')}\n\n${pkg.join('\n')}\n\nevidence in the package by conversation\n${byConv.join('\n')}`;
}

async function main() {
  const a = args(process.argv.slice(2));
  const data = locomoDataFile(a.data, ROOT);
  const res = await runLocomo(data, a.range, a.dtype, a.indexDtype, a.panel, a.as);
  console.log(`model: ${a.dtype === 'q8' ? 'int8 (what the extension runs)' : 'q4 (the extension\'s fallback)'}`);
  if (a.indexDtype) console.log('memory of the backstory rows indexed with the q4 file (the WebGPU engine\'s), queries with the model above');
  console.log(table(res));
  if (res.panel) for (const [id, r] of Object.entries(res.panel)) console.log(`panel ${id}: imported in ${(r.importMs / 1000).toFixed(1)} s, indexed in ${(r.indexMs / 1000).toFixed(1)} s; cards on screen as ranked and sent on ${r.questions - r.mismatched} of ${r.questions} questions, the same as backstory-cards-today on ${r.sameAsNode}`);
  if (a.json) writeFileSync(a.json, JSON.stringify(res, null, 2) + '\n');
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
