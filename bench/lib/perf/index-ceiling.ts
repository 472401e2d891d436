import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AutoTokenizer } from '@huggingface/transformers';
import { BUILD_DIR, ROOT, type launchExtension } from '../../../test/e2e/harness';
import { MAX_WORD_PIECES, ORT_WASM_PATH, windowText } from '../../../lib/embed/embedder';
import { engineCount, shares } from '../../../lib/embed/engine-pool';
import { useLocalModels } from '../../../lib/embed/local-models';
import { NODE_MODEL_ROOT } from '../../../lib/embed/node-embedder';
import { lengthBatches } from '../../../lib/memory/embed-batches';
import { passageEmbedTexts } from '../../../lib/memory/index/item-text';
import { createItem } from '../../../lib/memory/normalize';
import { percentile } from './synthetic';

type Harness = Awaited<ReturnType<typeof launchExtension>>;

/** The store's batch (MemoryStore.embedPending's default) and the offscreen document's engines on this machine. */
const BATCH = 16;

/** Where the datasets are: BENCH_DATASETS, else ../shared/datasets beside the checkout (or beside its worktrees). */
function datasetFile(name: string): string {
  const dirs = [process.env.BENCH_DATASETS, join(ROOT, '..', 'shared', 'datasets'), join(ROOT, '..', '..', 'shared', 'datasets')];
  const file = dirs.filter((d): d is string => !!d).map((d) => join(d, name)).find((f) => existsSync(f));
  if (!file) throw new Error(`no ${name} in ${dirs.filter(Boolean).join(' or ')} (set BENCH_DATASETS)`);
  return file;
}

/**
 * The turns of one LongMemEval haystack as a chat export's notes: short user turns and long assistant answers (a
 * third are longer than the model's window, so they are split into passages). Read at bench time, never stored.
 */
function chatTurns(question: number, from: number, n: number, prefix: string): { id: string; text: string }[] {
  const all = JSON.parse(readFileSync(datasetFile('longmemeval-s-dev.json'), 'utf8')) as { haystack_sessions: { content: string }[][] }[];
  const turns = all[question].haystack_sessions.flat().map((t) => t.content.trim()).filter(Boolean);
  return turns.slice(from, from + n).map((text, k) => ({ id: `${prefix}${k}`, text }));
}

/** Word pieces the model reads of a text ([CLS] and [SEP] included, its window at most), by its own tokenizer. */
async function pieceCounter(): Promise<(text: string) => number> {
  useLocalModels(NODE_MODEL_ROOT);
  const tok = await AutoTokenizer.from_pretrained('all-MiniLM-L6-v2');
  return (t) => (tok(windowText(t), { truncation: true, max_length: MAX_WORD_PIECES }) as unknown as { input_ids: { dims: number[] } }).input_ids.dims[1];
}

/** Tokens the engines run, padding included: each batch is split between the engines and padded to its longest text. */
function paddedTokens(batches: string[][], pieces: Map<string, number>, engines: number): number {
  let sum = 0;
  for (const b of batches)
    for (const [a, z] of shares(b.length, engines)) {
      const share = b.slice(a, z).map((t) => pieces.get(t)!);
      sum += share.length * Math.max(...share);
    }
  return sum;
}

/**
 * The ceiling, in an extension page: the offscreen document's own engine script (the same model file, the same runtime
 * build, one WASM thread each) in bare Workers, no store, no messages to the service worker. Each batch is split into
 * the pool's shares (`shares`), and each share goes to the next Worker that is free, as the engine pool hands them out;
 * every share is ready at once, so no Worker ever waits for work. Resolves to the seconds from the first request to
 * the last vector. The Workers are kept on the page between calls (warm).
 */
const CEILING_SRC = `async ([workerUrl, modelRoot, wasmUrl, engines, queue]) => {
  const w = (window.__ceiling ??= { workers: [], next: 0 });
  while (w.workers.length < engines) {
    const engine = w.workers.length;
    const worker = new Worker(workerUrl, { type: 'module' });
    const waiting = new Map();
    worker.onmessage = (e) => { waiting.get(e.data.id)?.(e.data); waiting.delete(e.data.id); };
    w.workers.push({ engine, worker, waiting });
  }
  const t0 = performance.now();
  let at = 0;
  let made = 0;
  const run = ({ engine, worker, waiting }) => new Promise((done, fail) => {
    const id = w.next++;
    const texts = queue[at++];
    waiting.set(id, (r) => (r.error ? fail(new Error(r.error)) : done(r.vectors.length)));
    worker.postMessage({ id, texts, modelRoot, wasmUrl, engine });
  });
  await Promise.all(w.workers.slice(0, engines).map(async (wk) => { while (at < queue.length) { const k = await run(wk); made += k; } }));
  return { s: (performance.now() - t0) / 1000, made };
}`;

/** The offscreen document's engine script in the build (its name carries a content hash). */
function engineScript(): string {
  const name = readdirSync(join(BUILD_DIR, 'assets')).find((f) => /^offscreen-worker-.*\.js$/.test(f));
  if (!name) throw new Error(`no offscreen-worker script in ${BUILD_DIR}/assets: run \`npx wxt build\` first`);
  return `/assets/${name}`;
}

/**
 * index_tokens_per_s and index_ceiling_tokens_per_s, in one browser, taking turns round by round: an import of chat
 * turns through the product's path (memory:import, the store, background indexing in the offscreen document, each
 * batch stored), timed until nothing is left unembedded; and the ceiling on the same texts (CEILING_SRC), before and
 * after the imports of each round. Both in the
 * model's word pieces per second (its own tokenizer, padding not counted). Memory is cleared before each import, so
 * no note takes another's vectors. `padding`: tokens the engines run over real tokens, for the product's batches
 * (lengthBatches) and for the ceiling's (sorted by the real count).
 */
export async function indexCeilingFigures(h: Harness, log: (s: string) => void, opts: { items?: number; rounds?: number; baselines?: { label: string; h: Harness }[] } = {}) {
  const n = opts.items ?? 200;
  const rounds = opts.rounds ?? 2;
  const count = await pieceCounter();
  const notes = chatTurns(0, 0, n, 'turn');
  const texts = [...new Set(notes.flatMap((x) => passageEmbedTexts(createItem(x, 0))))];
  const pieces = new Map(texts.map((t) => [t, count(t)]));
  const tokens = texts.reduce((s, t) => s + pieces.get(t)!, 0);
  const engines = engineCount(2); // the offscreen document's engines on a 2-core machine (the bench's)
  const jobs = notes.map((x) => ({ id: x.id, texts: passageEmbedTexts(createItem(x, 0)) }));
  // The store starts in the estimate's order and takes the rest in the model's own count's (the worker model's
  // tokenizer: these counts) once it has counted them; an import this small is counted by the time its first two
  // batches (the engines' outstanding ones) are sent.
  const byEstimate = lengthBatches(jobs, BATCH);
  const first = byEstimate.slice(0, 2);
  const taken = new Set(first.flat());
  const productBatches = [...first, ...lengthBatches([{ id: 'rest', texts: texts.filter((t) => !taken.has(t)) }], BATCH, pieces)];
  const sorted = [...texts].sort((a, b) => pieces.get(a)! - pieces.get(b)!);
  const ceilingBatches = Array.from({ length: Math.ceil(sorted.length / BATCH) }, (_, i) => sorted.slice(i * BATCH, (i + 1) * BATCH));
  const padding = { product: paddedTokens(productBatches, pieces, engines) / tokens, ceiling: paddedTokens(ceilingBatches, pieces, engines) / tokens };
  log(`index ceiling: ${n} chat turns, ${texts.length} texts (passages), ${tokens} tokens; padded/real tokens ${padding.product.toFixed(3)} in the store's batches, ${padding.ceiling.toFixed(3)} sorted by the real count`);

  const page = await h.extensionPage();
  const base = `chrome-extension://${h.extensionId}`;
  const ceiling = async (batches: string[][]) => {
    // Every batch's shares, as the pool splits it, in the order the pool hands them out.
    const queue = batches.flatMap((b) => shares(b.length, engines).map(([a, z]) => b.slice(a, z)));
    const r = (await page.evaluate(`(${CEILING_SRC})(${JSON.stringify([base + engineScript(), `${base}/models/`, base + ORT_WASM_PATH, engines, queue])})`)) as { s: number; made: number };
    if (r.made !== batches.flat().length) throw new Error(`the ceiling made ${r.made} vectors for ${batches.flat().length} texts`);
    return r.s;
  };
  const status = (b = h) => b.call<{ state: string; unembedded: number; indexBackend?: string; indexProblem?: string }>('model:status', {});
  const product = async (items: { id: string; text: string }[], b = h) => {
    await b.call('memory:clear', {});
    const t0 = Date.now();
    await b.seed(items);
    while ((await status(b)).unembedded) await new Promise((ok) => setTimeout(ok, 100));
    return (Date.now() - t0) / 1000;
  };
  // Other builds (e.g. of an earlier commit), measured the same way in the same rounds, against the same ceiling.
  const others = opts.baselines ?? [];
  for (const b of [h, ...others.map((o) => o.h)]) while ((await status(b)).state === 'loading') await new Promise((ok) => setTimeout(ok, 50));

  // Both warmed on other turns first: each engine loads the model and V8 optimises its runtime copy while it runs.
  const warm = chatTurns(0, n, Math.min(n, 150), 'warm');
  const warmTexts = [...new Set(warm.flatMap((x) => passageEmbedTexts(createItem(x, 0))))].sort((a, b) => a.length - b.length);
  log(`index ceiling: warming the offscreen document (${warm.length} turns) and the bare Workers (${warmTexts.length} texts)`);
  await product(warm);
  for (const o of others) await product(warm, o.h);
  await ceiling(Array.from({ length: Math.ceil(warmTexts.length / BATCH) }, (_, i) => warmTexts.slice(i * BATCH, (i + 1) * BATCH)));

  const productRates: number[] = [];
  const ceilingRates: number[] = [];
  const otherRates = others.map(() => [] as number[]);
  // The document closes after 30 s without work (OFFSCREEN_IDLE_MS), as it would between a user's imports; an
  // untimed import of a few other turns opens it again first, so a round times a running import, as most of a
  // large export's is, not the model's load.
  const reopen = chatTurns(0, n + warm.length, 24, 'reopen');
  for (let round = 1; round <= rounds; round++) {
    // The ceiling before and after the imports of the round: the machine's load drifts within minutes (other work
    // on it), and a round's ratio is taken against the two's mean time.
    const before = await ceiling(ceilingBatches);
    await product(reopen);
    const p = tokens / (await product(notes));
    const s = await status();
    for (const [k, o] of others.entries()) {
      await product(reopen, o.h);
      otherRates[k].push(tokens / (await product(notes, o.h)));
      const so = await status(o.h);
      log(`index round ${round}: ${o.label} ${Math.round(otherRates[k].at(-1)!)} tokens/s (${so.indexBackend}${so.indexProblem ? `; ${so.indexProblem}` : ''})`);
    }
    const c = tokens / ((before + (await ceiling(ceilingBatches))) / 2);
    productRates.push(p);
    ceilingRates.push(c);
    log(`index round ${round}: product ${Math.round(p)} tokens/s (${s.indexBackend}${s.indexProblem ? `; ${s.indexProblem}` : ''}), ceiling ${Math.round(c)} tokens/s, ${(p / c).toFixed(3)} of it`);
  }
  for (const b of [h, ...others.map((o) => o.h)]) await b.call('memory:clear', {});
  const ratios = productRates.map((p, i) => p / ceilingRates[i]);
  const baselines = others.map((o, k) => {
    const rs = otherRates[k].map((p, i) => p / ceilingRates[i]);
    log(`index ${o.label}: ${otherRates[k].map(Math.round).join(', ')} tokens/s, ${rs.map((r) => r.toFixed(3)).join(', ')} of the ceiling (this build ${ratios.map((r) => r.toFixed(3)).join(', ')})`);
    return { label: o.label, rates: otherRates[k], ratios: rs, rate: percentile(otherRates[k], 50), ratio: percentile(rs, 50) };
  });
  return { n, texts: texts.length, tokens, padding, productRates, ceilingRates, ratios, product: percentile(productRates, 50), ceiling: percentile(ceilingRates, 50), ratio: percentile(ratios, 50), baselines };
}


/** The bench's rows for indexCeilingFigures: the product's rate beside its ceiling, and their ratio. */
export function indexCeilingRows(f: Awaited<ReturnType<typeof indexCeilingFigures>>) {
  const what = `${f.n} LongMemEval chat turns (${f.texts} texts with passages, ${f.tokens} word pieces) imported and embedded`;
  const rounds = f.productRates.map((p, i) => `${Math.round(p)}/${Math.round(f.ceilingRates[i])}`).join(', ');
  const padding = `padded/real tokens ${f.padding.product.toFixed(3)} in the store's batches (${f.padding.ceiling.toFixed(3)} sorted by the real count)`;
  return {
    rows: [
      { name: 'index_tokens_per_s', what: `${what} through memory:import, the store and the offscreen document, word pieces/s`, value: Math.round(f.product), baseline: Math.round(f.ceiling), target: '>= 90% of the ceiling', ok: f.ratio >= 0.9, note: `baseline: the ceiling; rounds product/ceiling ${rounds} tokens/s; ${padding}` },
      { name: 'index_ceiling_tokens_per_s', what: 'the same texts and batch sizes in bare Workers of the offscreen engine script, no store, word pieces/s', value: Math.round(f.ceiling), target: 'reported' },
      { name: 'index_tokens_share_of_ceiling', what: 'index_tokens_per_s / index_ceiling_tokens_per_s, median of the rounds (each ratio from one round)', value: Math.round(f.ratio * 1000) / 1000, target: '>= 0.9', ok: f.ratio >= 0.9, note: f.ratios.map((r) => r.toFixed(3)).join(', ') },
    ],
    extra: { index_padding_share: Math.round(f.padding.product * 1000) / 1000, index_padding_share_ceiling: Math.round(f.padding.ceiling * 1000) / 1000 } as Record<string, number>,
  };
}
