import type { MemoryInput, MemoryItem, MemoryScope } from '../../../lib/memory/types';
import type { MemoryView } from '../../../lib/memory/index/memory-view';
import { createItem } from '../../../lib/memory/normalize';
import { passagesOf } from '../../../lib/memory/index/item-text';
import { rankLearned } from '../../../lib/learn/learned-ranking';
import { OverrideMemo } from '../../../lib/rank/overridden-instructions';
import { taskQueryTexts } from '../../../lib/rank/query';
import type { RankSettings, TaskReading } from '../../../lib/rank/types';
import { asInstruction } from '../../../lib/learn/phrases';
import type { LearnedWeights } from '../../../lib/learn/types';
import { DEFAULT_SETTINGS } from '../../../lib/settings/defaults';
import { buildMemory } from './node-figures';
import { type SyntheticCorpus, percentile, rng } from './synthetic';

/**
 * The ranker as users have it, and the same ranker without what they add to it. The product: a fifth of the items
 * long (several passages, vectors and BM25 documents each), instructions scoped to sites and people (some of them
 * contradicting an older one, as rules do when they are changed), the instructions learned from the user's prompts,
 * and weights learned from feedback (`LEARNED`). The plain memory: every item short, the synthetic memory's own instructions
 * (scopes guessed from their text), the sliders' weights.
 */
export interface RankSetup {
  memory: MemoryView;
  settings: RankSettings;
  learned?: LearnedWeights;
}

const PEOPLE = ['Alice', 'Bob', 'Chen', 'Dana', 'Emeka', 'Farah'];
const SITES = ['mail.google.com', 'chatgpt.com', 'github.com', 'docs.google.com', 'linear.app'];
/** Phrases a user keeps typing into prompts, saved as instructions when offered (lib/service/phrase-offers.ts). */
const PHRASES = ['keep it short', 'answer in British English', 'no bullet points', 'avoid jargon', 'cite your sources',
  'be concise', 'use metric units', 'dont apologise', 'explain like a colleague', 'stick to plain words'];

/** The task rankTimes ranks: a mail to Alice on a topic of the corpus. */
export function mailTask(corpus: SyntheticCorpus, topic: number, r: () => number, now: number): TaskReading {
  return {
    url: 'https://mail.google.com/mail/u/0/#inbox',
    title: 'Inbox',
    site: 'mail.google.com',
    adapter: 'gmail',
    destination: 'email',
    field: { text: corpus.text(topic, 14, r), kind: 'contenteditable' },
    subject: corpus.text(topic, 4, r),
    people: ['Alice'],
    at: now,
  };
}

/** Scoped and learned instructions for a memory of `n` items: 1% of it, at least 60, each with its own vector. */
function scopedInstructions(n: number, corpus: SyntheticCorpus, now: number): { input: MemoryInput; topic: number }[] {
  const r = rng(606);
  const out: { input: MemoryInput; topic: number }[] = [];
  const count = Math.max(60, Math.round(n / 100));
  const at = (k: number) => now - (count - k) * 3_600_000;
  for (let k = 0; k < count; k++) {
    const topic = Math.floor(r() * corpus.topics.length);
    const scope: MemoryScope =
      k % 2 ? { kind: 'sites', values: [SITES[k % SITES.length]], set: 'user' } : { kind: 'people', values: [PEOPLE[k % PEOPLE.length]], set: 'user' };
    const who = scope.values[0];
    // Every fifth rule changes the one before it for the same scope: the older is overridden.
    const text = k % 5 === 4 ? `Never cc ${who} on ${corpus.topics[topic][0]} threads.` : k % 5 === 3 ? `Always cc ${who} on ${corpus.topics[topic][0]} threads.` : `${corpus.text(topic, 12, r)}`;
    out.push({ topic, input: { id: `rule${k}`, text, title: '', kind: 'instruction', scope, createdAt: at(k), updatedAt: at(k) } as MemoryInput });
  }
  PHRASES.forEach((p, k) => {
    const text = asInstruction(p);
    out.push({
      topic: k,
      input: { id: `phrase${k}`, text, title: text.slice(0, -1), kind: 'instruction', tags: ['from your prompts'],
        scope: { kind: 'destination', values: ['chat'], set: 'user' }, createdAt: at(k), updatedAt: at(k) } as MemoryInput,
    });
  });
  return out;
}

/**
 * A change learning from feedback makes after some use (as lib/learn/fit-weights.ts stores it): recency up and
 * shared words down everywhere, the situation up on the mail site. The ranker's cost does not depend on how it was
 * fitted; applying it (bounds, the move budget) and saying where it decided the order is the product's own code.
 */
const LEARNED: LearnedWeights = {
  global: { semantic: 0, lexical: -0.2, recency: 0.5, priority: 0, continuity: 0, situation: 0.1 },
  sites: { 'mail.google.com': { semantic: 0, lexical: 0, recency: 0.2, priority: 0, continuity: 0, situation: 0.4 } },
  pairs: 240,
  fittedAt: Date.UTC(2025, 5, 30),
};

/** Passages in the memory: an item of one passage counts one. */
function passageCount(stored: Map<string, MemoryItem>): number {
  let n = 0;
  for (const item of stored.values()) n += passagesOf(item).length;
  return n;
}

/**
 * The memories of `n` items and what ranks them: the product's, the plain one, and between them the product's items
 * alone (`sameItems`: the same long items, so the same words, passages and vectors, without the scoped and learned
 * rules or learned weights). The plain memory holds fewer words and vectors than the product's (at 10k, 600,000 words
 * and 10,000 vectors against about 970,000 and 13,000), so the full ranker against `sameItems` is what scopes and
 * learning cost, and `sameItems` against plain what the long items' size costs. Made only when asked (`withSameItems`):
 * a third memory in the process makes collections, and so every setup's p95, larger.
 */
export function rankSetups(n: number, corpus: SyntheticCorpus, withSameItems = false) {
  const plain = buildMemory(n, corpus);
  const sameItems = withSameItems ? buildMemory(n, corpus, 0.2) : undefined;
  const built = buildMemory(n, corpus, 0.2);
  const r = rng(707);
  for (const { input, topic } of scopedInstructions(n, corpus, built.now)) built.add(createItem(input, built.now), corpus.vector(topic, r));
  const product: RankSetup = { memory: built.mem, settings: DEFAULT_SETTINGS, learned: LEARNED };
  return {
    product,
    plain: { memory: plain.mem, settings: DEFAULT_SETTINGS } as RankSetup,
    sameItems: sameItems && ({ memory: sameItems.mem, settings: DEFAULT_SETTINGS } as RankSetup),
    now: built.now,
    passages: passageCount(built.stored),
  };
}

/**
 * Rankings per setup before any is timed. Until V8 has compiled the ranker's hot code a ranking takes 2-10 times as
 * long (at 10k items: 125, 50, 44 ms for the first three, most under 20 ms from about the fortieth), so the steady
 * state a writing session runs in is timed after these; the first ones are reported apart (`first`).
 */
export const WARM_RANKINGS = 40;
/** Of the warm-up, how many of each setup's first rankings `first` takes the median of. */
export const FIRST_RANKINGS = 10;

/**
 * The full ranker (situation -> package, learning applied as the service applies it) over each setup, the same
 * tasks in the same run, the setups' order alternating task by task so machine noise hits them alike; query
 * embeddings are precomputed (excluded). `p50`/`p95`: the `queries` timed after `warm` untimed rankings of each
 * setup; `first`: the median of each setup's first rankings in the process, the ranker's code not yet compiled, as
 * after the browser stops an idle worker (the setups take turns from the first ranking, so both are cold alike).
 */
export async function rankTimes(setups: RankSetup[], corpus: SyntheticCorpus, now: number, queries = 30, seed = 77, warm = WARM_RANKINGS) {
  const r = rng(seed);
  const times = setups.map(() => [] as number[]);
  const early = setups.map(() => [] as number[]);
  const cards = setups.map(() => 0);
  // Held across the rankings as the service's tab ranker holds it.
  const overrides = setups.map(() => new OverrideMemo());
  for (let q = 0; q < queries + warm; q++) {
    const topic = Math.floor(r() * corpus.topics.length);
    const task = mailTask(corpus, topic, r, now);
    const queryVectors = taskQueryTexts(task).map(() => corpus.vector(topic, r, 0.8));
    const order = setups.map((_, k) => k);
    if (q % 2) order.reverse();
    for (const k of order) {
      const s = setups[k];
      const t0 = performance.now();
      const res = await rankLearned({ task, memory: s.memory, settings: s.settings, learned: s.learned, queryVectors, overrides: overrides[k], now });
      const dt = performance.now() - t0;
      if (q >= warm) times[k].push(dt);
      else if (q < FIRST_RANKINGS) early[k].push(dt);
      cards[k] += res.cards.length;
    }
  }
  return setups.map((_, k) => ({ p50: percentile(times[k], 50), p95: percentile(times[k], 95), first: percentile(early[k], 50), cards: cards[k] / (queries + warm) }));
}
