/**
 * Learning from feedback, measured: simulated users with hidden preferences act on the cards the shipping ranker
 * shows them (insert the card they want, mark "not useful" a top card they do not), the product's learner fits on
 * exactly those events, and held-out situations are ranked with the default weights and with what was learned.
 * Situations are LoCoMo questions asked on different sites, to the person the question names, over that
 * conversation's turns; and the demo pages' asks over the demo memory.
 * Usage: npm run bench:learning -- [--data FILE] [--conversations A-B] [--json OUT]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { locomoDataFile } from './lib/locomo-data';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeLearned, fitWeights, learnedWeightsFor, preferencePairs } from '../lib/learn/learner';
import { learnedSettings } from '../lib/learn/learned-ranking';
import type { FeedbackEvent, LearnedWeights } from '../lib/learn/types';
import { parseMemoryFile } from '../lib/memory/memory-file';
import { createItem } from '../lib/memory/normalize';
import type { MemoryItem } from '../lib/memory/types';
import { arrayMemoryView } from '../lib/memory/index/memory-index';
import { rankMemory, scoreMemory } from '../lib/rank/rank';
import type { Destination } from '../lib/core/destinations';
import { terms } from '../lib/memory/index/tokenize';
import type { RankRequest, TaskReading, Weights } from '../lib/rank/types';
import type { MemoryView } from '../lib/memory/index/memory-view';
import { DEFAULT_SETTINGS } from '../lib/settings/defaults';
import { nodeEmbedder, nodeModelKey } from '../lib/embed/node-embedder';
import { EmbedCache } from './lib/embed-cache';
import { ndcgAt, recallAt } from './lib/metrics';
import { benchTask, prepare } from './lib/prepare';
import { optionValue } from './lib/args';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

function args(argv: string[]) {
  const get = (name: string) => optionValue(argv, name);
  const conv = get('--conversations') ?? '1-2';
  const m = conv.match(/^(\d+)(?:-(\d+))?$/);
  if (!m) throw new Error(`--conversations wants A-B (1-based), got "${conv}"`);
  return { data: get('--data'), range: [Number(m[1]), Number(m[2] ?? m[1])] as [number, number], json: get('--json') };
}

/** One situation: the task, its embeddings, the memory it ranks, and the LoCoMo evidence when it has one. */
interface Situation {
  task: TaskReading;
  queryVector?: Float32Array;
  memory: MemoryView;
  items: Map<string, MemoryItem>;
  evidence: Set<string>;
  now: number;
}

const SITES: [string, string, Destination][] = [
  ['mail.google.com', 'gmail', 'email'],
  ['chatgpt.com', 'chatgpt', 'chat'],
  ['docs.example', 'generic', 'documents'],
];

function request(s: Situation, learned?: LearnedWeights): RankRequest {
  const settings = learnedSettings(DEFAULT_SETTINGS, learned, s.task.site);
  return { task: s.task, memory: s.memory, settings, ...(s.queryVector ? { queryVector: s.queryVector } : {}), now: s.now };
}

/** The full scored order the ranker gives (what nDCG is computed on), ids best first. */
const order = async (s: Situation, learned?: LearnedWeights) => (await scoreMemory(request(s, learned))).ranked.map((x) => x.item.id);

/**
 * A simulated user: which items it wants in a situation. Hidden from the learner, which sees only what the user
 * does with the cards. `pool` is the default ranking's head: what a user could plausibly want among.
 */
interface SimUser {
  name: string;
  wants(s: Situation, pool: string[]): Set<string>;
}

const newest = (s: Situation, ids: string[], k: number) =>
  new Set([...ids].sort((a, b) => (s.items.get(b)?.createdAt ?? 0) - (s.items.get(a)?.createdAt ?? 0)).slice(0, k));
const personKeyOf = (p: string) => p.toLowerCase();

const USERS: SimUser[] = [
  // The evidence LoCoMo's annotators marked (on the demo: the default ranking's top 3, what an ordinary user takes).
  { name: 'evidence', wants: (s, pool) => (s.evidence.size ? s.evidence : new Set(pool.slice(0, 3))) },
  // Always the newest of what is relevant ("the latest decision").
  { name: 'newest', wants: (s, pool) => newest(s, pool.slice(0, 12), 3) },
  // Items by or about the person the task is addressed to (not the one the question names).
  {
    name: 'person',
    wants: (s, pool) => {
      const here = new Set((s.task.people ?? []).map(personKeyOf));
      return new Set(pool.slice(0, 12).filter((id) => s.items.get(id)?.people.some((p) => here.has(personKeyOf(p)))));
    },
  },
  // Items that use the ask's own words, not just its meaning.
  {
    name: 'words',
    wants: (s, pool) => {
      const ask = new Set(terms(s.task.field?.text ?? ''));
      const hits = (id: string) => terms(s.items.get(id)?.text ?? '').filter((t) => ask.has(t)).length;
      return new Set(pool.slice(0, 20).filter((id) => hits(id) >= 2).sort((a, b) => hits(b) - hits(a)).slice(0, 4));
    },
  },
  // The newest in mail, the evidence elsewhere: a habit of one site.
  { name: 'newest-in-mail', wants: (s, pool) => (s.task.site === 'mail.google.com' ? USERS[1] : USERS[0]).wants(s, pool) },
];

function rng(seed: number) {
  let x = seed >>> 0 || 1;
  return () => ((x = (Math.imul(x, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

function shuffle<T>(xs: T[], r: () => number): T[] {
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

/** What the user does with the cards shown: inserts the first one it wants; a top card it does not want, "not useful". */
async function act(s: Situation, user: SimUser, learned: LearnedWeights | undefined, r: () => number): Promise<FeedbackEvent[]> {
  const pool = (await order(s)).slice(0, 30);
  const wanted = user.wants(s, pool);
  if (!wanted.size) return [];
  const cards = (await rankMemory(request(s, learned))).cards;
  const shown = cards.map((c) => ({ id: c.item.id, factors: c.factors, ...(c.item.pinned ? { pinned: true } : {}) }));
  const base = { at: s.now, site: s.task.site, destination: s.task.destination, shown };
  const out: FeedbackEvent[] = [];
  const pick = cards.find((c) => wanted.has(c.item.id));
  if (pick) out.push({ ...base, action: 'insert', itemId: pick.item.id });
  if (cards[0] && !wanted.has(cards[0].item.id) && r() < 0.5) out.push({ ...base, action: 'dismiss', itemId: cards[0].item.id });
  return out;
}

interface UserResult {
  ndcg5_defaults: number;
  ndcg5_learned: number;
  events: number;
  learned: string[];
  locomo_r10_defaults: number;
  locomo_r10_learned: number;
}

async function demoSituations(): Promise<Situation[]> {
  const now = Date.UTC(2026, 10, 20);
  const items = parseMemoryFile(readFileSync(join(ROOT, 'demo', 'memory.json'), 'utf8')).map((i) => createItem(i, now));
  const asks: [string, Partial<TaskReading>][] = [
    ['Hi Dana, About the Q3 budget review next week:', { people: ['Dana Whitfield <dana@northwind.example>'], subject: 'Q3 budget review' }],
    ['How should we fix the retry bug in the sync worker?', {}],
    ['What did we decide about the contractor budget?', {}],
    ['Where is the team offsite and when is dinner?', {}],
    ['When should the tomato seedlings be planted out?', {}],
    ['Backoff settings for the sync worker retries', {}],
  ];
  const cache = new EmbedCache(join(ROOT, 'node_modules', '.cache', 'backstory-bench'), nodeModelKey('q8'));
  const vs = await cache.embedAll([...items.map((i) => `${i.title}\n${i.text}`), ...asks.map(([a]) => a)], () => nodeEmbedder('q8'), () => {});
  cache.save();
  const vectors = new Map(items.map((it, i) => [it.id, vs[i]] as const));
  const memory = arrayMemoryView(items, vectors);
  const byId = new Map(items.map((i) => [i.id, i] as const));
  const out: Situation[] = [];
  asks.forEach(([ask, extra], i) => {
    for (const [site, adapter, destination] of SITES) {
      const task: TaskReading = { url: `https://${site}/`, title: '', site, adapter, destination, field: { text: ask, kind: 'textarea' }, at: now, ...extra };
      out.push({ task, queryVector: vs[items.length + i], memory, items: byId, evidence: new Set(), now });
    }
  });
  return out;
}

async function main() {
  const a = args(process.argv.slice(2));
  const data = locomoDataFile(a.data, ROOT);
  const prepared = await prepare(data, a.range, ROOT, 'q8');
  const situations: Situation[] = [];
  for (const p of prepared) {
    const items = new Map(p.conv.items.map((i) => [i.id, i] as const));
    const speakers = [...new Set(p.conv.items.flatMap((i) => i.people))];
    p.questions.forEach((q, i) => {
      const [site, adapter, destination] = SITES[i % SITES.length];
      // Written to the other one of the two: a question about Caroline in a message to Melanie.
      const named = speakers.filter((sp) => new RegExp(`\\b${sp.split(' ')[0]}\\b`, 'i').test(q.question));
      const to = named.length === 1 ? speakers.filter((sp) => sp !== named[0]) : [];
      const task: TaskReading = { ...q.task, url: `https://${site}/`, site, adapter, destination, ...(to.length ? { people: to } : {}) };
      situations.push({ task, queryVector: q.vectors[0], memory: p.view, items, evidence: q.relevant, now: p.conv.now });
    });
  }
  situations.push(...(await demoSituations()));

  const results: Record<string, UserResult> = {};
  for (const [u, user] of USERS.entries()) {
    const r = rng(1000 + u);
    const mixed = shuffle(situations, r);
    const cut = Math.floor(mixed.length * 0.6);
    const train = mixed.slice(0, cut);
    const test = mixed.slice(cut);
    // Feedback arrives as the user works; the learner refits as the extension does (after every event, here
    // every 10 to keep the bench quick) and the next rankings use it.
    const events: FeedbackEvent[] = [];
    let learned: LearnedWeights | undefined;
    for (const [i, s] of train.entries()) {
      events.push(...await act(s, user, learned, r));
      if (i % 10 === 9) learned = fitWeights(preferencePairs(events.slice(-1000)), DEFAULT_SETTINGS.weights);
    }
    learned = fitWeights(preferencePairs(events.slice(-1000)), DEFAULT_SETTINGS.weights);
    let nd = 0;
    let nl = 0;
    let n = 0;
    for (const s of test) {
      const pool = (await order(s)).slice(0, 30);
      const wanted = user.wants(s, pool);
      if (!wanted.size) continue;
      nd += ndcgAt(await order(s), wanted, 5);
      nl += ndcgAt(await order(s, learned), wanted, 5);
      n++;
    }
    // LoCoMo as bench:locomo asks it (a plain page, no site, no person), R@10 with the defaults and with what was
    // learned: the weights for everywhere, and those of each site the user gave feedback on; the worst counts.
    const r10 = async (weights: Weights) => {
      let sum = 0;
      let nq = 0;
      for (const p of prepared)
        for (const q of p.questions) {
          const s: Situation = { task: benchTask(q.question, p.conv.now), queryVector: q.vectors[0], memory: p.view, items: new Map(), evidence: q.relevant, now: p.conv.now };
          const req = { ...request(s), settings: { ...DEFAULT_SETTINGS, weights }, queryVectors: q.vectors };
          sum += recallAt((await scoreMemory(req)).ranked.map((x) => x.item.id), q.relevant, 10);
          nq++;
        }
      return sum / (nq || 1);
    };
    const rd = await r10(DEFAULT_SETTINGS.weights);
    const perPlace = await Promise.all(['', ...SITES.map(([site]) => site)].map((site) => r10(learnedWeightsFor(DEFAULT_SETTINGS.weights, learned, site))));
    results[user.name] = {
      ndcg5_defaults: nd / (n || 1),
      ndcg5_learned: nl / (n || 1),
      events: events.length,
      learned: describeLearned(learned, DEFAULT_SETTINGS.weights),
      locomo_r10_defaults: rd,
      locomo_r10_learned: Math.min(...perPlace),
    };
    process.stderr.write(`  ${user.name}: ${n} held-out situations\n`);
  }
  const users = Object.values(results);
  const mean = (f: (u: UserResult) => number) => users.reduce((x, u) => x + f(u), 0) / users.length;
  const out = {
    situations: situations.length,
    ndcg5_defaults: mean((u) => u.ndcg5_defaults),
    ndcg5_learned: mean((u) => u.ndcg5_learned),
    worst_user_change: Math.min(...users.map((u) => u.ndcg5_learned - u.ndcg5_defaults)),
    // The user who wants what LoCoMo's annotators marked: learning from them must not cost retrieval.
    locomo_r10_change_evidence_user: results.evidence.locomo_r10_learned - results.evidence.locomo_r10_defaults,
    locomo_r10_worst_change: Math.min(...users.map((u) => u.locomo_r10_learned - u.locomo_r10_defaults)),
    // The most any simulated user's learned weights (everywhere, or on a site of theirs) cost LoCoMo R@10; at most 0.01.
    locomo_r10_drop: Math.max(0, ...users.map((u) => u.locomo_r10_defaults - u.locomo_r10_learned)),
    users: results,
  };
  console.log(`${out.situations} situations (LoCoMo conversations ${a.range.join('-')} and the demo memory); 60% feed back, 40% held out`);
  console.log('| user | events | nDCG@5 defaults | nDCG@5 learned | change | LoCoMo R@10 defaults | LoCoMo R@10 learned (worst place) | learned, in words |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const [name, u] of Object.entries(results))
    console.log(
      `| ${name} | ${u.events} | ${u.ndcg5_defaults.toFixed(3)} | ${u.ndcg5_learned.toFixed(3)} | ${(u.ndcg5_learned - u.ndcg5_defaults >= 0 ? '+' : '') + (u.ndcg5_learned - u.ndcg5_defaults).toFixed(3)} | ${u.locomo_r10_defaults.toFixed(3)} | ${u.locomo_r10_learned.toFixed(3)} | ${u.learned.join('; ') || '—'} |`,
    );
  console.log(`mean nDCG@5: defaults ${out.ndcg5_defaults.toFixed(3)}, learned ${out.ndcg5_learned.toFixed(3)} (${(out.ndcg5_learned - out.ndcg5_defaults).toFixed(3)}); worst user ${out.worst_user_change.toFixed(3)}`);
  console.log(`LoCoMo R@10 with each user's learned weights (everywhere and on each site): worst drop ${out.locomo_r10_drop.toFixed(3)} (evidence user ${out.locomo_r10_change_evidence_user.toFixed(3)})`);
  if (a.json) writeFileSync(a.json, JSON.stringify(out, null, 2) + '\n');
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
