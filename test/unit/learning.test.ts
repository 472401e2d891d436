import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { FeedbackStore, openLearningDB } from '../../lib/learn/feedback-store';
import { describeLearned, fitWeights, LEARNING, learnedWeightsFor, preferencePairs } from '../../lib/learn/learner';
import { Learning } from '../../lib/learn/learning';
import type { FeedbackEvent, ShownCard } from '../../lib/learn/types';
import { createItem } from '../../lib/memory/normalize';
import type { MemoryItem } from '../../lib/memory/types';
import { arrayMemoryView } from '../../lib/memory/index/memory-index';
import { rankLearned as rankMemory } from '../../lib/learn/learned-ranking';
import { FACTOR_NAMES as WEIGHT_NAMES, type FactorScores } from '../../lib/core/factors';
import type { TaskReading } from '../../lib/rank/types';
import { DEFAULT_SETTINGS } from '../../lib/settings/defaults';
import { readFeedbackBlock } from '../../lib/learn/feedback-file';
import { reasonOf } from './rank-fixtures';

const BASE = DEFAULT_SETTINGS.weights;
const NOW = Date.UTC(2026, 10, 1);
const DAY = 86_400_000;

// A deterministic stream of situations: eight cards with varied factor scores.
function rng(seed: number) {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}
function situation(r: () => number, close = false): ShownCard[] {
  // close: the cards on screen are all about the task, near in meaning and words and apart in age.
  if (close)
    return Array.from({ length: 8 }, (_, i) => ({
      id: `c${i}`,
      factors: { semantic: 0.5 + 0.2 * r(), lexical: 0.2 + 0.2 * r(), recency: r(), priority: 0, continuity: 0, situation: r() < 0.3 ? 0.8 : 0 },
    }));
  return Array.from({ length: 8 }, (_, i) => ({
    id: `c${i}`,
    factors: { semantic: 0.3 + 0.5 * r(), lexical: 0.5 * r(), recency: r(), priority: 0, continuity: 0, situation: r() < 0.3 ? 0.8 : 0 },
  }));
}
const defaultScore = (f: FactorScores) => WEIGHT_NAMES.reduce((a, n) => a + BASE[n] * f[n], 0);

/** A user who always uses the newest of the cards shown; `site` says where. */
function recencyUser(n: number, site: string, seed = 1, close = false): FeedbackEvent[] {
  const r = rng(seed);
  const out: FeedbackEvent[] = [];
  for (let i = 0; i < n; i++) {
    const shown = situation(r, close).sort((a, b) => defaultScore(b.factors) - defaultScore(a.factors));
    const best = shown.reduce((a, b) => (b.factors.recency > a.factors.recency ? b : a));
    out.push({ at: NOW + i, action: 'insert', itemId: best.id, site, destination: 'email', shown });
  }
  return out;
}

describe('the learner', () => {
  it('learns nothing before there is enough feedback', () => {
    const few = recencyUser(1, 'mail.google.com');
    expect(preferencePairs(few).length).toBeLessThan(LEARNING.minPairs);
    expect(fitWeights(preferencePairs(few), BASE)).toBeUndefined();
    expect(learnedWeightsFor(BASE, undefined, 'mail.google.com')).toEqual(BASE);
  });

  it('learns that recency counts more for a user who always takes the newest card, and says so', () => {
    const learned = fitWeights(preferencePairs(recencyUser(60, 'mail.google.com')), BASE, NOW)!;
    expect(learned).toBeDefined();
    const w = learnedWeightsFor(BASE, learned, 'mail.google.com');
    expect(w.recency / BASE.recency).toBeGreaterThan(1.5);
    expect(describeLearned(learned, BASE).join('\n')).toMatch(/recency counts more/);
  });

  it('changes nothing when the feedback follows no factor (a user who takes cards at random)', () => {
    const r = rng(9);
    const noise: FeedbackEvent[] = Array.from({ length: 80 }, (_, i) => {
      const shown = situation(r).sort((a, b) => defaultScore(b.factors) - defaultScore(a.factors));
      return { at: NOW + i, action: 'insert', itemId: shown[Math.floor(r() * shown.length)].id, site: 'mail.google.com', destination: 'email', shown };
    });
    const learned = fitWeights(preferencePairs(noise), BASE, NOW)!;
    expect(learnedWeightsFor(BASE, learned, 'mail.google.com')).toEqual(BASE);
    expect(describeLearned(learned, BASE)).toEqual([]);
  });

  it('stays bounded however one-sided the feedback is', () => {
    const learned = fitWeights(preferencePairs(recencyUser(800, 'mail.google.com')), BASE, NOW)!;
    for (const site of ['mail.google.com', 'elsewhere.example', '']) {
      const w = learnedWeightsFor(BASE, learned, site);
      for (const n of WEIGHT_NAMES) {
        expect(w[n]).toBeLessThanOrEqual(BASE[n] * 3 + 1e-9);
        expect(w[n]).toBeGreaterThanOrEqual(BASE[n] / 3 - 1e-9);
      }
    }
  });

  it('keeps a habit of one site on that site', () => {
    // Recency on mail; elsewhere the same user takes the best card by meaning.
    const mail = recencyUser(60, 'mail.google.com', 2, true);
    const r = rng(3);
    const docs: FeedbackEvent[] = Array.from({ length: 60 }, (_, i) => {
      const shown = situation(r, true).sort((a, b) => defaultScore(b.factors) - defaultScore(a.factors));
      const best = shown.reduce((a, b) => (b.factors.semantic > a.factors.semantic ? b : a));
      return { at: NOW + i, action: 'insert', itemId: best.id, site: 'docs.example', destination: 'documents', shown };
    });
    const learned = fitWeights(preferencePairs([...mail, ...docs]), BASE, NOW)!;
    const onMail = learnedWeightsFor(BASE, learned, 'mail.google.com');
    const onDocs = learnedWeightsFor(BASE, learned, 'docs.example');
    expect(onMail.recency / onDocs.recency).toBeGreaterThan(1.5);
    // Said as how one site differs from the rest.
    expect(describeLearned(learned, BASE).some((l) => /recency counts (more on mail\.google\.com|less on docs\.example)/.test(l))).toBe(true);
  });
});

describe('the ranker with learned weights', () => {
  const task: TaskReading = { url: 'https://mail.google.com/', title: '', site: 'mail.google.com', adapter: 'gmail', destination: 'email', field: { text: 'the offsite hotel booking', kind: 'textarea' }, at: NOW };
  const items: MemoryItem[] = [
    // Alike in words; the older is tagged important (priority), the newer is recent.
    createItem({ id: 'old', text: 'Offsite hotel booking: the Lisbon hotel.', tags: ['important'], createdAt: NOW - 200 * DAY }, NOW),
    createItem({ id: 'new', text: 'Offsite hotel booking: the Porto hotel.', createdAt: NOW - DAY }, NOW),
  ];
  const rank = (learned?: ReturnType<typeof fitWeights>) =>
    rankMemory({ task, memory: arrayMemoryView(items, new Map()), settings: DEFAULT_SETTINGS, now: NOW, ...(learned ? { learned } : {}) });

  it('orders by what was learned, says so in the trace, and is back to the defaults without it', async () => {
    const before = await rank();
    expect(before.cards.map((c) => c.item.id)).toEqual(['old', 'new']);
    const learned = fitWeights(preferencePairs(recencyUser(200, 'mail.google.com')), BASE, NOW)!;
    const after = await rank(learned);
    expect(after.cards.map((c) => c.item.id)).toEqual(['new', 'old']);
    expect(after.cards[0].learned).toMatch(/^Learned from your feedback: recency counts more (everywhere|on mail\.google\.com), so it is above “Offsite hotel booking: the Lisbon/);
    expect(reasonOf(after.trace, 'new')).toMatch(/Learned from your feedback/);
    expect((await rank()).cards.map((c) => c.item.id)).toEqual(['old', 'new']);
  });
});

describe('feedback on the device', () => {
  const fresh = (name: string) => new FeedbackStore(openLearningDB(name, { indexedDB: new IDBFactory(), IDBKeyRange }));

  it('is off when disabled, reversible, and reset forgets it', async () => {
    const store = fresh('onoff');
    for (const e of recencyUser(30, 'mail.google.com')) await store.record(e, BASE);
    const learned = await store.active();
    expect(learned).toBeDefined();
    await store.setEnabled(false, BASE);
    expect(await store.active()).toBeUndefined();
    expect((await store.status()).events).toBe(30); // the feedback stays while off
    await store.setEnabled(true, BASE);
    expect(await store.active()).toEqual({ ...learned, fittedAt: expect.any(Number) });
    await store.reset();
    expect(await store.active()).toBeUndefined();
    expect((await store.status()).events).toBe(0);
  });

  it('goes with the memory: export, import into a new profile, clear all', async () => {
    const a = fresh('a');
    for (const e of recencyUser(30, 'mail.google.com')) await a.record(e, BASE);
    const file = JSON.parse(JSON.stringify(await a.exportAll()));
    const b = fresh('b');
    expect(await b.importAll(readFeedbackBlock(file), BASE, { withPhrases: true })).toBe(30);
    expect((await b.active())?.global).toEqual((await a.active())?.global);
    await b.clear();
    expect(await b.active()).toBeUndefined();
    expect((await b.status()).events).toBe(0);
  });

  it('records a use against the cards the tab was shown, and nothing for a card it did not show', async () => {
    const learning = new Learning(() => fresh('tabs'));
    const cards = (await rankMemory({
      task: { url: 'https://mail.google.com/', title: '', site: 'mail.google.com', adapter: 'gmail', destination: 'email', field: { text: 'hotel', kind: 'textarea' }, at: NOW },
      memory: arrayMemoryView([createItem({ id: 'h', text: 'The hotel is booked.' }, NOW), createItem({ id: 'k', text: 'Hotel keys at the desk.' }, NOW)], new Map()),
      settings: DEFAULT_SETTINGS, now: NOW,
    })).cards;
    learning.noteShown(7, { url: '', title: '', site: 'mail.google.com', adapter: 'gmail', destination: 'email', at: NOW }, cards);
    await learning.feedback(7, cards[1].item.id, 'copy', BASE);
    await learning.feedback(7, 'not-shown', 'insert', BASE);
    await learning.feedback(8, cards[0].item.id, 'insert', BASE);
    const exported = await learning.exportAll();
    expect(exported.events.map((e) => [e.action, e.itemId, e.site, e.destination])).toEqual([['copy', cards[1].item.id, 'mail.google.com', 'email']]);
    expect(exported.events[0].shown.map((c) => c.id)).toEqual(cards.map((c) => c.item.id));
  });
});

describe('how far learning may move the ranking', () => {
  // Meaning, shared words and recency: their balance decides what is relevant to any task.
  const coreShares = (w: Record<string, number>) => {
    const core = ['semantic', 'lexical', 'recency'] as const;
    const sum = core.reduce((a, n) => a + w[n], 0);
    return core.map((n) => w[n] / sum);
  };
  const moved = (w: Record<string, number>) => coreShares(w).reduce((a, s, i) => a + Math.abs(s - coreShares(BASE)[i]), 0) / 2;

  it('a user who always takes the newest card moves the balance of meaning, words and recency only within the budget', () => {
    const learned = fitWeights(preferencePairs(recencyUser(800, 'mail.google.com')), BASE, NOW)!;
    for (const site of ['mail.google.com', '']) {
      const w = learnedWeightsFor(BASE, learned, site);
      expect(w.recency / BASE.recency).toBeGreaterThan(1.5); // still learned
      expect(moved(w)).toBeLessThanOrEqual(LEARNING.moveBudget + 1e-6);
    }
  });

  it('holds for a stored change from before the budget (an imported file), keeping its direction', () => {
    const old = { global: { semantic: 0, lexical: -1, recency: Math.log(3), priority: 0, continuity: 0, situation: Math.log(3) }, sites: {}, pairs: 500, fittedAt: NOW };
    const w = learnedWeightsFor(BASE, old, 'mail.google.com');
    expect(moved(w)).toBeLessThanOrEqual(LEARNING.moveBudget + 1e-6);
    expect(w.lexical / w.semantic).toBeLessThan(BASE.lexical / BASE.semantic);
    expect(w.recency / w.semantic).toBeGreaterThan(BASE.recency / BASE.semantic);
    // Situation lifts only items tied to the situation: it keeps its own bound (×3).
    expect(w.situation / w.semantic).toBeGreaterThan((2.5 * BASE.situation) / BASE.semantic);
  });
});
