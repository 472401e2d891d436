/**
 * LongMemEval evidence retrieval through the product path: each question's haystack (about 50 sessions, 500 turns)
 * is written as a memory file, read by readImport, committed by MemoryStore.commitImport into IndexedDB
 * (fake-indexeddb) and embedded by the store's own pipeline (bench/lib/product.ts), then ranked at the question's date.
 * Usage: npm run bench:longmemeval -- [--data FILE] [--questions A-B] [--json OUT]
 *
 * Methods: `bm25` (k1 1.2, b 0.75, stop words removed, over "Role: text" of the same turns; the baseline),
 * `backstory` (the ranker's full scored order over the store), `backstory-cards` (rankForTab: the panel's cards).
 * Turn level: a turn is relevant when the file marks it `has_answer`. Session level: the ranked turns become ranked
 * sessions (each at the place of its first turn) and a session is relevant when it holds a relevant turn.
 * recall_all@k is 1 when every relevant turn (session) is in the top k, recall_any@k when one is.
 */
import { writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_SETTINGS } from '../lib/settings/defaults';
import { LexicalIndex } from '../lib/memory/index/lexical-index';
import { contextText, embedText } from '../lib/memory/index/item-text';
import { scoreMemory } from '../lib/rank/rank';
import { taskQueryTexts } from '../lib/rank/query';
import { rankForTab } from '../lib/service/ranking';
import { QueryVectorCache } from '../lib/service/query-vectors';
import { OverrideMemo } from '../lib/rank/overridden-instructions';
import { AllAnyTally, firstOfEach, type AllAnyStats } from './lib/metrics';
import { benchTask, openBenchCache } from './lib/prepare';
import { cachedEmbedder, importedMemory } from './lib/product';
import { lmeDataFile, readLmeQuestions, type LmeQuestion } from './lib/longmemeval-data';
import type { EmbedCache } from './lib/embed-cache';
import { nodeEmbedder } from '../lib/embed/node-embedder';
import { optionValue } from './lib/args';

/** The bench ranks as a profile without feedback does: nothing learned, nothing noted. */
const NO_LEARNING = { active: async () => undefined, noteShown: () => {} };

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const METHODS = ['bm25', 'backstory', 'backstory-cards'] as const;
type Method = (typeof METHODS)[number];

function args(argv: string[]) {
  const get = (name: string) => optionValue(argv, name);
  const qs = get('--questions');
  let range: [number, number] | undefined;
  if (qs) {
    const m = qs.match(/^(\d+)(?:-(\d+))?$/);
    if (!m) throw new Error(`--questions wants A-B (1-based), got "${qs}"`);
    range = [Number(m[1]), Number(m[2] ?? m[1])];
  }
  return { data: get('--data'), range, json: get('--json') };
}

/**
 * Every text the store and the query path will embed for this question, embedded in one pass and saved once: the
 * store then finds them all in the cache (one save per question instead of one per batch).
 */
async function warmCache(cache: EmbedCache, q: LmeQuestion): Promise<void> {
  const texts: string[] = [];
  q.items.forEach((it, i) => {
    texts.push(embedText(it));
    const prev = q.items[i - 1];
    const ctx = contextText(it, prev && prev.thread?.id === it.thread?.id ? prev : undefined);
    if (ctx) texts.push(ctx);
  });
  texts.push(...taskQueryTexts(benchTask(q.question, q.now)).filter((t) => t.trim()));
  await cache.embedAll(texts, () => nodeEmbedder('q8'), (d, t) => process.stderr.write(`\r  embedding ${q.id}: ${d}/${t}   `));
}

export interface LmeResult {
  questions: number;
  /** Per method: turn-level and session-level figures, and the distinct sessions in its top 5 (mean). */
  methods: Record<Method, { turns: AllAnyStats; sessions: AllAnyStats; sessionsInTop5: number }>;
  byType: Record<string, number>;
}

export async function runLongMemEval(dataFile: string, range?: [number, number]): Promise<LmeResult> {
  const cache = openBenchCache(ROOT, 'q8');
  const embedder = cachedEmbedder(cache, 'q8');
  const questions = readLmeQuestions(dataFile, range);
  const tally = Object.fromEntries(METHODS.map((m) => [m, { turns: new AllAnyTally(), sessions: new AllAnyTally(), top5: 0 }])) as Record<
    Method,
    { turns: AllAnyTally; sessions: AllAnyTally; top5: number }
  >;
  const byType: Record<string, number> = {};
  let n = 0;
  for (const q of questions) {
    if (!q.relevant.size) continue; // nothing to find (an abstention question)
    n++;
    byType[q.type] = (byType[q.type] ?? 0) + 1;
    await warmCache(cache, q);
    process.stderr.write(`\r  question ${n} (${q.id}): importing ${q.items.length} turns through the store   `);
    const store = await importedMemory(q, embedder);
    const plain = new LexicalIndex();
    for (const it of q.items) plain.add(it.id, `${it.title}: ${it.text}`);
    const task = benchTask(q.question, q.now);
    const queries = new QueryVectorCache();
    const texts = taskQueryTexts(task).filter((t) => t.trim());
    const queryVectors = await Promise.all(texts.map((t) => queries.get(embedder, t)));
    const state = await rankForTab({
      tabId: 1, task, store, settings: DEFAULT_SETTINGS, embedder, queries, overrides: new OverrideMemo(), model: { state: 'ready', backend: embedder.backend },
      recentlyUsed: [], dismissed: [], learning: NO_LEARNING, seq: 0, now: q.now,
    });
    const lists: Record<Method, string[]> = {
      bm25: plain.search(LexicalIndex.queryTerms(q.question), q.items.length).map((h) => h.id),
      backstory: (await scoreMemory({ task, memory: store.view, settings: DEFAULT_SETTINGS, queryVectors, now: q.now })).ranked.map((s) => s.item.id),
      'backstory-cards': state.cards.map((c) => c.item.id),
    };
    const sessionOf = (id: string) => q.sessionOf.get(id);
    const relevantSessions = new Set([...q.relevant].map((id) => q.sessionOf.get(id)!));
    for (const m of METHODS) {
      const sessions = firstOfEach(lists[m], sessionOf);
      tally[m].turns.add(lists[m], q.relevant);
      tally[m].sessions.add(sessions, relevantSessions);
      tally[m].top5 += new Set(lists[m].slice(0, 5).map(sessionOf)).size;
    }
  }
  process.stderr.write('\n');
  const methods = Object.fromEntries(
    METHODS.map((m) => [m, { turns: tally[m].turns.stats(), sessions: tally[m].sessions.stats(), sessionsInTop5: Math.round((tally[m].top5 / (n || 1)) * 100) / 100 }]),
  ) as LmeResult['methods'];
  return { questions: n, methods, byType };
}

export function lmeTable(res: LmeResult): string {
  const f = (x: number) => x.toFixed(3);
  const rows = [
    '| method | level | recall_all@5 | recall_all@10 | recall_any@5 | recall_any@10 | NDCG@10 |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const level of ['turns', 'sessions'] as const)
    for (const [name, m] of Object.entries(res.methods)) {
      const s = m[level];
      rows.push(`| ${name} | ${level} | ${f(s.recall_all5)} | ${f(s.recall_all10)} | ${f(s.recall_any5)} | ${f(s.recall_any10)} | ${f(s.ndcg10)} |`);
    }
  const spread = Object.entries(res.methods).map(([name, m]) => `${name} ${m.sessionsInTop5}`).join(', ');
  return `${res.questions} questions (${Object.entries(res.byType).map(([t, c]) => `${t} ${c}`).join(', ')})\n${rows.join('\n')}\ndistinct sessions in the top 5: ${spread}`;
}

async function main() {
  const a = args(process.argv.slice(2));
  const res = await runLongMemEval(lmeDataFile(a.data, ROOT), a.range);
  console.log('model: int8 (what the extension runs)');
  console.log(lmeTable(res));
  if (a.json) writeFileSync(a.json, JSON.stringify(res, null, 2) + '\n');
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
