/**
 * End-to-end encrypted sync, the product's own code (lib/sync: connectVault, syncPass, the state store, WebDavStorage;
 * the memory file import; MemoryStore over fake-indexeddb; embedPending with the int8 model on the extension's pool of
 * two single-threaded WASM engines), in Node, against a real WebDAV server (rclone serve webdav, started here).
 * Usage: npm run bench:sync -- [--json OUT] [--sizes 10000,100000] [--embed-sample 192 | --embed-all] [--data LONGMEMEVAL_FILE]
 *   [--no-browser | --browser-only] [--node-all-sizes] [--build-dir .output/chrome-mv3]
 * (The worker's heap is read in the built extension: the bench builds it first, unless --build-dir names a build. The
 * JSON is written after each size, so a size that runs out of memory leaves the figures of the sizes before it.)
 *
 * Items are ~1.5 KB of real prose: LongMemEval chat turns (../shared/datasets) cut and joined into distinct texts, so
 * they deflate as mails and chat answers do. A first device imports them (memory file -> readImport -> commitImport)
 * and syncs; a second device then connects to the folder and syncs.
 * - sync_searchable_s_<n>: the second device, from connectVault until a sample of the items is found by lexical search
 *   over its store's index (every sampled item in the top 10 for its own words).
 * - sync_embedded_s_<n>: until every item is embedded: searchable time + embedPending's time, measured on a sample of
 *   the synced items (--embed-sample, in a store of their own) and extrapolated to all, unless --embed-all.
 * - sync_bytes_per_item: every file in the folder (header, device files, segments, snapshots) over the items.
 * - sync_second_pass_bytes: what a pass with nothing new writes, on each device (summed).
 * - sync_edit_s: an edit on the first device until the second has it (a pass on each).
 * - sync_unlock_ms: unlockWithPassphrase of a header made with the default Argon2id parameters (hash-wasm in Node).
 * - sync_node_peak_heap_mb_<n>: heapUsed sampled during the Node second device's first pass, above its level before
 *   (after GC). Its IndexedDB (fake-indexeddb) lives in the same heap, so this is not a worker's heap; the part that
 *   stays after the pass is printed beside it.
 * The Node second device runs at the first size only (the others' searchable time and heap come from the browser;
 * `--node-all-sizes` runs it at every size, where 100k needs `node --max-old-space-size=8192`).
 *
 * The browser (unless --no-browser): at each size, right after the first device's pass, a second device in the product
 * itself: the built extension in a fresh headless Chromium profile (test/e2e/harness.ts) connects to the same folder
 * through its options page (URL, user, app password, passphrase), and its service worker's JS heap is read through
 * CDP (Runtime.getHeapUsage) every ~100 ms until the status says synced (bench/lib/sync/browser-device.ts). There
 * IndexedDB lives in the browser process, so the heap is the worker's own. --browser-only skips the Node second
 * device (and what follows it at that size: quiet passes, the edit, embedding) and asks only for the browser figures
 * (the JSON holds the browser figures before the Node second device runs).
 * - sync_peak_heap_mb_<n>: the worker's whole heap (usedSize), highest during its first pass: of the reads and
 *   of the heap at the start of each garbage collection of its thread (MinorGC/MajorGC in a trace of the browser).
 * - sync_browser_heap_after_mb_<n>: the same once the status says synced, after GC.
 * - sync_browser_searchable_s_<n>: Connect clicked -> the extension holds all n and finds sampled items by their words.
 * - sync_browser_heap_embedding_mb_<n>: the worker's heap, highest read, through the first minute of embedding what
 *   arrived (it runs for hours at 100k).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import type { Embedder } from '../lib/embed/embedder';
import { EnginePool } from '../lib/embed/engine-pool';
import { modelTag } from '../lib/embed/model-tag';
import { NODE_MODEL_ROOT } from '../lib/embed/node-embedder';
import { openMemoryDB } from '../lib/memory/db';
import { terms } from '../lib/memory/index/tokenize';
import { MemoryStore } from '../lib/memory/store';
import { createVault, unlockWithPassphrase } from '../lib/sync/vault';
import { startWebdav, type WebdavServer } from '../test/webdav-server';
import { lmeDataFile } from './lib/longmemeval-data';
import { PROJECT_ROOT } from './lib/perf/build-parts';
import { NodeWorkerEngine } from './lib/perf/node-engines';
import { englishNote, rng } from './lib/perf/synthetic';
import { browserSecondDevice } from './lib/sync/browser-device';
import { browserRows, type FigureRow } from './lib/sync/browser-figures';
import { BENCH_PASSPHRASE, Device } from './lib/sync/devices';
import { folderBytes, HeapSampler, itemTexts } from './lib/sync/measure';
import { optionValue } from './lib/args';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const heapNow = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

type Row = FigureRow;

const ITEM_CHARS = 1500;
const SEARCH_SAMPLE = 50;
const r1 = (x: number) => Math.round(x * 10) / 10;
const r3 = (x: number) => Math.round(x * 1000) / 1000;
const mb = (bytes: number) => r1(bytes / 1e6);
const label = (n: number) => (n >= 1000 ? `${Math.round(n / 1000)}k` : String(n));
const log = (s: string) => console.error(`[sync] ${new Date().toISOString().slice(11, 19)} ${s}`);

function args(argv: string[]) {
  const get = (n: string) => optionValue(argv, n);
  return {
    json: get('--json'),
    sizes: (get('--sizes') ?? '10000,100000').split(',').map(Number),
    embedSample: Number(get('--embed-sample') ?? 192),
    embedAll: argv.includes('--embed-all'),
    data: get('--data'),
    browser: !argv.includes('--no-browser'),
    browserOnly: argv.includes('--browser-only'),
    nodeAll: argv.includes('--node-all-sizes'),
    buildDir: get('--build-dir'),
  };
}

/** Every distinct non-empty turn of the LongMemEval file. */
function lmeTurns(file: string): string[] {
  const raw = JSON.parse(readFileSync(file, 'utf8')) as { haystack_sessions: { content: string }[][] }[];
  const set = new Set<string>();
  for (const q of raw) for (const s of q.haystack_sessions) for (const t of s) if (t.content?.trim()) set.add(t.content);
  return [...set];
}

/** The extension's background indexing engine in Node: a pool of two single-threaded WASM engines, int8 model. */
async function indexingPool(): Promise<{ embedder: Embedder; close: () => Promise<unknown> }> {
  const engines = Array.from({ length: 2 }, (_, k) => new NodeWorkerEngine(NODE_MODEL_ROOT, 'q8', k));
  const embedder = new EnginePool(engines, 'pool/2', modelTag('q8'));
  const r = rng(5);
  await embedder.embed(Array.from({ length: 64 }, () => englishNote(54, r))); // compiled and warm, as after a first import
  return { embedder, close: () => Promise.all(engines.map((e) => e.close())) };
}

/** Whether each sampled item is among the top 10 lexical hits for its own words. */
function foundByWords(store: MemoryStore, sample: { id: string; text: string }[]): number {
  let found = 0;
  for (const { id, text } of sample) {
    const q = new Map<string, number>();
    for (const t of terms(text)) q.set(t, 1);
    if (store.view.lexicalIndex.search(q, 10).some((h) => h.id === id)) found++;
  }
  return found;
}

async function runSize(n: number, pool: string[], server: WebdavServer, a: ReturnType<typeof args>, rows: Row[], extra: Record<string, unknown>, unmeasured: string[], checkpoint: () => void = () => {}) {
  const L = label(n);
  const folder = `sync-${L}`;
  mkdirSync(join(server.dir, folder), { recursive: true });
  const place = { kind: 'webdav' as const, url: `${server.base}/${folder}/`, user: server.user, password: server.password };
  const texts = itemTexts(pool, n, ITEM_CHARS, rng(2026 + n));
  const chars = texts.reduce((s, t) => s + t.length, 0) / n;

  log(`${L}: the first device imports ${n} items of ${Math.round(chars)} characters`);
  const first = new Device('first', place);
  let t = performance.now();
  await first.importTexts(texts);
  log(`${L}: imported in ${r1((performance.now() - t) / 1000)} s; connecting and syncing`);
  await first.connect();
  t = performance.now();
  const up = await first.pass();
  const firstPassS = (performance.now() - t) / 1000;
  extra[`sync_first_device_pass_s_${L}`] = r1(firstPassS);
  log(`${L}: first device's pass ${r1(firstPassS)} s, ${up.sent} operations, ${first.storage.files} files, ${mb(first.storage.written)} MB written`);
  const folderAfter = folderBytes(await first.storage.list());
  const perItem = folderAfter.bytes / n;
  extra[`sync_folder_bytes_${L}`] = folderAfter.bytes;
  extra[`sync_first_pass_written_bytes_per_item_${L}`] = Math.round(first.storage.written / n);
  extra[`sync_folder_files_${L}`] = folderAfter.files;
  extra[`sync_ops_per_item_${L}`] = r1(up.sent / n);
  rows.push({
    name: n === a.sizes[0] ? 'sync_bytes_per_item' : `sync_bytes_per_item_${L}`, what: `folder bytes (every file) over items, ${L} items of ${Math.round(chars)} chars`,
    value: Math.round(perItem), target: '<= 1024 B', ok: perItem <= 1024,
    note: `${folderAfter.files} files: ${Object.entries(folderAfter.byKind).map(([k, v]) => `${k} ${mb(v)} MB`).join(', ')}; ${r1(up.sent / n)} operations per item`,
  });

  // The second device in the browser, while the folder holds only the first device's pass.
  if (a.browser) {
    const sample = Array.from({ length: SEARCH_SAMPLE }, (_, k) => Math.floor((k * n) / SEARCH_SAMPLE)).map((i) => ({ id: `s${i}`, text: texts[i] }));
    log(`${L}: the second device in Chromium (built extension) connects`);
    try {
      const f = await browserSecondDevice({ n, place, passphrase: BENCH_PASSPHRASE, sample, log, buildDir: a.buildDir });
      const got = browserRows(L, n, f);
      rows.push(...got.rows);
      Object.assign(extra, got.extra);
    } catch (e) {
      unmeasured.push(`sync_browser_*_${L}: ${e instanceof Error ? e.message : String(e)}`);
    }
    checkpoint(); // in the JSON before the Node second device, which may run out of memory at 100k
    if (a.browserOnly || (n !== a.sizes[0] && !a.nodeAll)) {
      first.close();
      return;
    }
  }

  // The second device joins and takes everything: its heap sampled throughout, its IndexedDB in this heap too.
  first.dropStore(); // the first device's index is not the second's heap (its database stays: it is needed again)
  const second = new Device('second', place);
  const base = heapNow();
  const sampler = new HeapSampler(base).start();
  const t0 = performance.now();
  await second.connect();
  const down = await second.pass(() => sampler.sample());
  const firstPassRead = second.storage.bytesRead;
  await second.store.load();
  const sample = Array.from({ length: SEARCH_SAMPLE }, (_, k) => Math.floor((k * n) / SEARCH_SAMPLE)).map((i) => ({ id: `s${i}`, text: texts[i] }));
  const found = foundByWords(second.store, sample);
  const searchableS = (performance.now() - t0) / 1000;
  const peak = sampler.stop();
  log(`${L}: second device searchable after ${r1(searchableS)} s (${down.received} operations, ${down.written} items), ${found}/${sample.length} found`);
  if (down.written !== n) unmeasured.push(`sync_searchable_s_${L}: the second device wrote ${down.written} of ${n} items`);
  else if (found < sample.length) unmeasured.push(`sync_searchable_s_${L}: only ${found} of ${sample.length} sampled items found by their words`);
  else {
    rows.push({
      name: `sync_searchable_s_${L}`, what: `second device: connect -> ${L} items found by their words (Node, fake-indexeddb, local WebDAV)`,
      value: r1(searchableS), target: n <= 10_000 ? '<= 30 s' : 'reported', ok: n <= 10_000 ? searchableS <= 30 : undefined,
      note: `${down.received} operations applied; ${SEARCH_SAMPLE} sampled items each in the top 10 for its own words; its first pass read ${r1(firstPassRead / 2 ** 20)} MB from the folder`,
    });
  }
  extra[`sync_first_pass_read_mb_${L}`] = r1(firstPassRead / 2 ** 20);
  // What stays after the pass (its IndexedDB, which fake-indexeddb keeps in this heap, and the store's index): the rest
  // of the peak is the pass's working set, which a browser's worker needs too.
  const retained = heapNow() - base;
  extra[`sync_heap_retained_mb_${L}`] = mb(retained);
  extra[`sync_pass_working_set_mb_${L}`] = mb(peak - retained);
  rows.push({
    name: `sync_node_peak_heap_mb_${L}`, what: `second device's first pass of ${L} items: peak heapUsed above before it (Node; its IndexedDB in the same heap, so not the worker's heap: sync_peak_heap_mb_${L} is)`,
    value: mb(peak), target: 'reported',
    note: `after the pass and GC ${mb(retained)} MB stay (fake-indexeddb's copy of the database, outside the worker's heap in a browser, and the store's index); the pass's working set above that ${mb(peak - retained)} MB`,
  });

  // Passes with nothing new, on each device.
  first.reopen();
  first.storage.reset();
  second.storage.reset();
  const quietSecond = await second.pass();
  const quietFirst = await first.pass();
  const quietBytes = first.storage.written + second.storage.written;
  rows.push({
    name: n === a.sizes[0] ? 'sync_second_pass_bytes' : `sync_second_pass_bytes_${L}`, what: 'bytes written by a pass with nothing new (second device, then first)',
    value: quietBytes, target: '0', ok: quietBytes === 0,
    note: `second ${second.storage.written} B in ${second.storage.files} files (${quietSecond.sent} ops), first ${first.storage.written} B in ${first.storage.files} files (${quietFirst.sent} ops)`,
  });

  // An edit on the first device until the second has it.
  const editedId = sample[1].id;
  const newText = `${sample[1].text} Edited: the meeting moved to Thursday.`;
  first.storage.reset();
  second.storage.reset();
  const te = performance.now();
  await first.store.update(editedId, { text: newText });
  await first.pass();
  const tm = performance.now();
  await second.pass();
  const got = (await second.store.read(editedId))?.text;
  const editS = (performance.now() - te) / 1000;
  if (got !== newText) unmeasured.push(`sync_edit_s: the second device holds ${JSON.stringify(got?.slice(-60))} after the edit's passes`);
  else if (n === a.sizes[0]) rows.push({ name: 'sync_edit_s', what: `an edit on one device -> the other has it (a pass on each), ${L} items`, value: r3(editS), target: 'reported', note: `Node, local WebDAV: the edit and the first device's pass ${r3((tm - te) / 1000)} s, the second device's pass ${r3(editS - (tm - te) / 1000)} s; bytes read from the folder: first ${first.storage.bytesRead}, second ${second.storage.bytesRead} (each device keeps its reader from pass to pass, as a running worker does)` });
  else extra[`sync_edit_s_${L}`] = r3(editS);

  // Embedding what arrived, as background indexing does (at the first size asked, and not at 100k: a sample at 10k
  // gives the rate).
  if (n === a.sizes[0] && n <= 20_000) {
    const { embedder, close } = await indexingPool();
    try {
      if (a.embedAll) {
        second.dropStore();
        second.store = new MemoryStore(second.db, async () => embedder);
        const te0 = performance.now();
        const made = await second.store.embedPending();
        const s = (performance.now() - te0) / 1000;
        if (second.store.unembedded().length) unmeasured.push(`sync_embedded_s_${L}: ${second.store.unembedded().length} items left unembedded`);
        else rows.push({ name: `sync_embedded_s_${L}`, what: `second device: connect -> all ${L} items embedded (embedPending, int8, pool of 2 WASM engines, Node)`, value: r1(searchableS + s), target: 'reported', note: `${made} vectors in ${r1(s)} s` });
      } else {
        const k = Math.min(a.embedSample, n);
        const ids = Array.from({ length: k }, (_, i) => `s${Math.floor((i * n) / k)}`);
        const items = await second.store.readMany(ids);
        const db = openMemoryDB('sync-bench-embed', { indexedDB: new IDBFactory(), IDBKeyRange });
        const store = new MemoryStore(db, async () => embedder);
        await store.add(items.map((it) => ({ id: it.id, text: it.text, title: it.title, createdAt: it.createdAt })), { from: 'sync' }, { deferEmbedding: true });
        const te0 = performance.now();
        const made = await store.embedPending();
        const s = (performance.now() - te0) / 1000;
        db.close();
        if (store.unembedded().length) unmeasured.push(`sync_embedded_s_${L}: ${store.unembedded().length} of the sample left unembedded`);
        else {
          const perItem = s / k;
          rows.push({
            name: `sync_embedded_s_${L}`, what: `second device: connect -> all ${L} items embedded; EXTRAPOLATED from ${k} items embedded (embedPending, int8, pool of 2 WASM engines, Node)`,
            value: r1(searchableS + perItem * n), target: 'reported',
            note: `searchable ${r1(searchableS)} s + ${n} x ${r3(perItem)} s (${r1(k / s)} items/s, ${r1(made / k)} vectors per item, measured on ${k})`,
          });
          extra[`sync_embed_items_per_s`] = r1(k / s);
          extra[`sync_embedded_extrapolated_from`] = k;
        }
      }
    } finally {
      await close();
    }
  }
  first.close();
  second.close();
}

async function main() {
  const a = args(process.argv.slice(2));
  const rows: Row[] = [];
  const extra: Record<string, unknown> = { runtime: `Node ${process.version}, fake-indexeddb, rclone serve webdav on 127.0.0.1` };
  const unmeasured: string[] = [];
  if (a.browser && !a.buildDir) {
    // The worker measured is this tree's: a build left from another commit would give another tree's figures.
    log('building the extension (npx wxt build)');
    execFileSync('npx', ['wxt', 'build'], { cwd: PROJECT_ROOT, stdio: 'ignore' });
  }
  const pool = lmeTurns(lmeDataFile(a.data, process.cwd()));
  log(`${pool.length} distinct LongMemEval turns as the text pool`);

  log('deriving the key with the default Argon2id parameters');
  const made = await createVault(BENCH_PASSPHRASE);
  const unlocks: number[] = [];
  for (let i = 0; i < 3; i++) {
    const t = performance.now();
    await unlockWithPassphrase(made.header, BENCH_PASSPHRASE);
    unlocks.push(performance.now() - t);
  }
  unlocks.sort((x, y) => x - y);
  rows.push({
    name: 'sync_unlock_ms', what: `unlockWithPassphrase, default Argon2id (${made.header.kdf.memoryKiB} KiB, ${made.header.kdf.iterations} passes), hash-wasm in Node, median of 3`,
    value: Math.round(unlocks[1]), target: 'reported', note: `${unlocks.map(Math.round).join(', ')} ms`,
  });

  // Written after each size too: a larger size that runs out of memory leaves the smaller one's figures.
  const save = (pending: string[]) => {
    if (!a.json) return;
    const out: Record<string, unknown> = {};
    for (const r of rows) out[r.name] = r.value;
    Object.assign(out, extra, { rows, unmeasured: [...unmeasured, ...pending] });
    writeFileSync(a.json, JSON.stringify(out, null, 2));
  };
  const server = await startWebdav();
  try {
    for (const [k, n] of a.sizes.entries()) {
      try {
        const later = a.sizes.slice(k + 1).map((m) => `size ${m}: not run yet`);
        await runSize(n, pool, server, a, rows, extra, unmeasured, () => save([`size ${n}: the Node second device not finished yet`, ...later]));
      } catch (e) {
        unmeasured.push(`size ${n}: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
      }
      save(a.sizes.slice(k + 1).map((m) => `size ${m}: not run yet`));
    }
  } finally {
    server.stop();
  }

  const lines = ['| JSON name | what | value | target | met | note |', '|---|---|---|---|---|---|'];
  for (const r of rows) lines.push(`| ${r.name} | ${r.what} | ${r.value} | ${r.target} | ${r.ok === undefined ? '-' : r.ok ? 'yes' : 'no'} | ${r.note ?? ''} |`);
  console.log(lines.join('\n'));
  const named = new Set(rows.map((r) => r.name));
  const first = label(a.sizes[0]);
  const wanted = a.browserOnly ? ['sync_bytes_per_item', 'sync_unlock_ms'] : [`sync_searchable_s_${first}`, `sync_embedded_s_${first}`, 'sync_bytes_per_item', 'sync_second_pass_bytes', 'sync_edit_s', 'sync_unlock_ms'];
  if (a.browser) for (const n of a.sizes) wanted.push(`sync_peak_heap_mb_${label(n)}`, `sync_browser_heap_after_mb_${label(n)}`, `sync_browser_searchable_s_${label(n)}`, `sync_browser_heap_embedding_mb_${label(n)}`);
  for (const want of wanted) if (!named.has(want)) unmeasured.push(`${want}: not measured (see above)`);
  if (!a.sizes.some((n) => n >= 100_000)) {
    unmeasured.push('sync_peak_heap_mb_100k: not run (--sizes has no 100000)');
  }
  if (!a.browser) {
    unmeasured.push("sync_peak_heap_mb_*: not measured (--no-browser): the worker's heap is read in the built extension");
  }
  save([]);
  if (a.json) log(`wrote ${a.json}`);
  if (unmeasured.length) throw new Error(`not measured:\n${[...new Set(unmeasured)].map((u) => `- ${u}`).join('\n')}`);
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  },
);
