/**
 * Instruction cards: do the rules that should apply to a task show, and only those? On a set written for the test
 * (bench/data/instructions.json: eight people's memories, each with unconditional, destination or site, person and
 * topic rules, a few notes, and tasks listing the rules that should apply; six tasks about nothing in memory), each
 * memory is written as a memory file, read by the import reader, committed by `MemoryStore.commitImport` into
 * IndexedDB (fake-indexeddb), embedded by the store's own pipeline, and each task is ranked by `rankForTab`, what the
 * service calls for the panel. Precision and recall count the panel's instruction cards against the rules that should
 * apply, over all tasks (micro-averaged), twice: with the scopes the user would set (`--scopes user`), and with the
 * rules as typed, their scopes guessed from their words (`--scopes guess`, what a rule gets when it is typed,
 * remembered or imported without one). An `empty` task should show no card at all.
 *
 * Usage: npm run bench:instructions -- [--data FILE] [--dtype q8|q4] [--json OUT] [--lexical] [--verbose]
 * `--lexical` ranks without vectors (no model); `--verbose` prints each task's misses and extras.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { DEFAULT_SETTINGS } from '../lib/settings/defaults';
import { rankForTab } from '../lib/service/ranking';
import { ConditionVectorCache, QueryVectorCache } from '../lib/service/query-vectors';
import { OverrideMemo } from '../lib/rank/overridden-instructions';
import type { TaskReading } from '../lib/rank/types';
import { openMemoryDB } from '../lib/memory/db';
import { MemoryStore } from '../lib/memory/store';
import { readImport } from '../lib/import/index';
import type { MemoryInput } from '../lib/memory/types';
import type { Embedder } from '../lib/embed/embedder';
import { nodeModelKey } from '../lib/embed/node-embedder';
import { EmbedCache } from './lib/embed-cache';
import { cachedEmbedder } from './lib/product';
import { optionValue } from './lib/args';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const NO_LEARNING = { active: async () => undefined, noteShown: () => {} };
/** The rankings' clock: the set's rules and notes are dated in the days before it. */
const NOW = Date.UTC(2026, 2, 10, 12);
const DAY = 86_400_000;

type RuleKind = 'unconditional' | 'destination' | 'person' | 'topic';
interface Rule {
  id: string;
  kind: RuleKind;
  text: string;
  scope: { kind: string; values: string[] };
}
interface Task {
  id: string;
  destination: 'chat' | 'email' | 'documents';
  site: string;
  title: string;
  people?: string[];
  subject?: string;
  text: string;
  expect?: string[];
  profile?: string;
}
interface Profile {
  id: string;
  rules: Rule[];
  notes: { id: string; text: string }[];
  tasks: Task[];
}
interface DataSet {
  profiles: Profile[];
  empty: Task[];
}

function args(argv: string[]) {
  const get = (name: string) => optionValue(argv, name);
  const dtype = get('--dtype') ?? 'q8';
  if (dtype !== 'q8' && dtype !== 'q4') throw new Error(`--dtype wants q8 or q4, got "${dtype}"`);
  return {
    data: get('--data') ?? join(ROOT, 'bench', 'data', 'instructions.json'),
    dtype: dtype as 'q8' | 'q4',
    json: get('--json'),
    lexical: argv.includes('--lexical'),
    verbose: argv.includes('--verbose'),
  };
}

/** One profile's memory file: rules (with the user's scopes, or none), then notes, each a day apart in that order. */
function memoryItems(p: Profile, scopes: 'user' | 'guess'): object[] {
  const all: { id: string; text: string; rule: boolean; scope?: Rule['scope'] }[] = [...p.rules.map((r) => ({ ...r, rule: true })), ...p.notes.map((n) => ({ ...n, rule: false }))];
  const start = NOW - (all.length + 1) * DAY;
  return all.map((x, i) => ({
    id: x.id,
    text: x.text,
    kind: x.rule ? 'instruction' : 'evidence',
    createdAt: new Date(start + i * DAY).toISOString(),
    ...(x.scope && scopes === 'user' ? { scope: { ...x.scope, set: 'user' } } : {}),
  }));
}

async function profileMemory(p: Profile, scopes: 'user' | 'guess', embedder: Embedder | null): Promise<MemoryStore> {
  const items = memoryItems(p, scopes);
  const file = { name: `${p.id}.json`, blob: new Blob([JSON.stringify({ format: 'backstory-memory', version: 1, items })], { type: 'application/json' }) };
  const inputs: MemoryInput[] = [];
  for await (const batch of readImport([file])) inputs.push(...batch.items);
  const store = new MemoryStore(
    openMemoryDB(`instructions-${p.id}-${scopes}`, { indexedDB: new IDBFactory(), IDBKeyRange }),
    async () => embedder,
    async () => embedder,
  );
  // The user's own file: trusted, as an export of this profile is.
  const counts = await store.commitImport(inputs, { importId: `bench-${p.id}`, provenance: { from: 'import', trusted: true } });
  if (counts.added !== items.length) throw new Error(`${p.id}: ${counts.added} of ${items.length} items imported`);
  if (embedder) await store.embedPending();
  return store;
}

function reading(t: Task): TaskReading {
  return {
    url: `https://${t.site}/`,
    title: t.title,
    site: t.site,
    adapter: 'bench',
    destination: t.destination,
    field: { text: t.text, kind: 'contenteditable' },
    ...(t.subject ? { subject: t.subject } : {}),
    ...(t.people ? { people: t.people } : {}),
    at: NOW,
  };
}

class Tally {
  shown = 0;
  right = 0;
  expected = 0;
  /** Cards of any kind shown on the tasks about nothing in memory. */
  emptyCards = 0;
  /** Rule cards among them. */
  emptyRules = 0;
  emptyTasks = 0;
  byKind: Record<RuleKind, { expected: number; found: number }> = {
    unconditional: { expected: 0, found: 0 },
    destination: { expected: 0, found: 0 },
    person: { expected: 0, found: 0 },
    topic: { expected: 0, found: 0 },
  };
  precision = () => (this.shown ? this.right / this.shown : 1);
  recall = () => (this.expected ? this.right / this.expected : 1);
}

const f2 = (x: number) => x.toFixed(2);

async function run(data: DataSet, scopes: 'user' | 'guess', embedder: Embedder | null, verbose: boolean): Promise<Tally> {
  const tally = new Tally();
  const queries = new QueryVectorCache();
  const conditions = new ConditionVectorCache();
  for (const p of data.profiles) {
    const store = await profileMemory(p, scopes, embedder);
    const kindOf = new Map(p.rules.map((r) => [r.id, r.kind]));
    const unconditional = p.rules.filter((r) => r.kind === 'unconditional').map((r) => r.id);
    const empties = data.empty.filter((t) => t.profile === p.id).map((t) => ({ ...t, empty: true }));
    for (const t of [...p.tasks.map((t) => ({ ...t, empty: false })), ...empties]) {
      const state = await rankForTab({
        tabId: 1, task: reading(t), store, settings: DEFAULT_SETTINGS, embedder, queries, conditions, overrides: new OverrideMemo(),
        model: embedder ? { state: 'ready', backend: embedder.backend } : { state: 'idle' },
        recentlyUsed: [], dismissed: [], learning: NO_LEARNING, seq: 0, now: NOW,
      });
      const shown = state.cards.filter((c) => c.kind === 'instruction').map((c) => c.item.id);
      const want = new Set(t.empty ? [] : [...unconditional, ...(t.expect ?? [])]);
      if (t.empty) {
        tally.emptyTasks++;
        tally.emptyCards += state.cards.length;
        tally.emptyRules += shown.length;
      }
      tally.shown += shown.length;
      tally.expected += want.size;
      for (const id of shown) if (want.has(id)) tally.right++;
      for (const id of want) {
        const k = kindOf.get(id)!;
        tally.byKind[k].expected++;
        if (shown.includes(id)) tally.byKind[k].found++;
      }
      if (verbose) {
        const missed = [...want].filter((id) => !shown.includes(id));
        const extra = shown.filter((id) => !want.has(id));
        if (missed.length || extra.length) console.log(`  ${scopes} ${t.id}: missed ${missed.join(' ') || '-'}; extra ${extra.join(' ') || '-'}`);
        if (t.empty && state.cards.length) console.log(`    ${state.status}: ${state.cards.map((c) => `${c.item.id} ${c.score.toFixed(2)} ${c.guaranteed ?? ''} ${c.why.join('; ')}`).join(', ')}`);
      }
    }
  }
  return tally;
}

async function main() {
  const a = args(process.argv.slice(2));
  const data = JSON.parse(readFileSync(a.data, 'utf8')) as DataSet;
  const embedder = a.lexical ? null : cachedEmbedder(new EmbedCache(join(ROOT, '.cache', 'bench-instructions'), nodeModelKey(a.dtype)), a.dtype);
  const rules = data.profiles.reduce((n, p) => n + p.rules.length, 0);
  const tasks = data.profiles.reduce((n, p) => n + p.tasks.length, 0);
  console.log(`${rules} rules, ${tasks} tasks, ${data.empty.length} tasks about nothing in memory; ${embedder ? `model ${a.dtype}` : 'no vectors'}`);
  const out: Record<string, unknown> = {};
  console.log('| scopes | precision | recall | unconditional | destination/site | person | topic | cards (rules) on empty tasks |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const scopes of ['user', 'guess'] as const) {
    const t = await run(data, scopes, embedder, a.verbose);
    const k = (n: RuleKind) => `${t.byKind[n].found}/${t.byKind[n].expected}`;
    console.log(
      `| ${scopes === 'user' ? "the user's" : 'guessed'} | ${f2(t.precision())} | ${f2(t.recall())} | ${k('unconditional')} | ${k('destination')} | ${k('person')} | ${k('topic')} | ${t.emptyCards} (${t.emptyRules}) on ${t.emptyTasks} |`,
    );
    out[scopes] = { precision: t.precision(), recall: t.recall(), byKind: t.byKind, emptyCards: t.emptyCards, emptyRuleCards: t.emptyRules, emptyTasks: t.emptyTasks };
  }
  if (a.json) writeFileSync(a.json, JSON.stringify(out, null, 2));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
