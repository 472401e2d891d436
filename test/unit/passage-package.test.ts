/**
 * Cards and the package carry passages: a long item's card is its matching passages, Insert and the package put
 * those in (in their order within the item, "…" between them, under the budget), and a short item is as before.
 */
import { describe, expect, it } from 'vitest';
import type { MemoryItem } from '../../lib/memory/types';
import { countTokens, countTokensUpTo } from '../../lib/memory/tokens';
import fc from 'fast-check';
import type { TaskReading, RankedCard } from '../../lib/rank/types';
import { rankMemory } from '../../lib/rank/rank';
import { arrayMemoryView } from '../../lib/memory/index/memory-index';
import { passageEmbedTexts } from '../../lib/memory/index/item-text';
import { excerpt, splitPassages } from '../../lib/memory/index/passages';
import { choosePassages, passageTokensWithin } from '../../lib/rank/passage-choice';
import { TUNING } from '../../lib/rank/tuning';
import { buildPackage, cardText } from '../../lib/rank/package';
import { terms } from '../../lib/memory/index/tokenize';
import { longNote, RANK_SETTINGS as SETTINGS } from './rank-fixtures';

const DIM = 256;
/** A stand-in model that, like the real one, reads only the start of a text (its first 120 words). */
function embed(text: string): Float32Array {
  const v = new Float32Array(DIM);
  for (const t of terms(text).slice(0, 120)) {
    let h = 2166136261;
    for (let i = 0; i < t.length; i++) h = Math.imul(h ^ t.charCodeAt(i), 16777619);
    v[Math.abs(h) % DIM] = 1;
  }
  const n = Math.hypot(...v) || 1;
  return v.map((x) => x / n);
}

const NOW = Date.UTC(2025, 5, 1);
function item(id: string, text: string, extra: Partial<MemoryItem> = {}): MemoryItem {
  return { id, text, title: '', kind: 'evidence', tags: [], people: [], sites: [], pinned: false, createdAt: NOW - 86_400_000, updatedAt: NOW - 86_400_000, source: {}, tokens: countTokens(text), ...extra };
}



function memory() {
  const items = [
    item('long', longNote(), { title: 'Trip and house notes' }),
    item('boots', 'Our guide recommended good boots for the trip.'),
    item('stream', 'The stream behind the house floods every spring.'),
  ];
  return arrayMemoryView(items, new Map(items.map((it) => [it.id, passageEmbedTexts(it).map(embed)])));
}

function task(text: string): TaskReading {
  return { url: 'https://chat.example/c/1', title: 'Chat', site: 'chat.example', adapter: 'generic', destination: 'chat', field: { text, kind: 'textarea' }, at: NOW };
}

describe('cards and the package carry passages', () => {
  const text = longNote();
  const ps = splitPassages(text);
  const fifth = text.slice(ps[4].start, ps[4].end).trim();
  const first = text.slice(ps[0].start, ps[0].end).trim();

  it("ranks the long item by its fifth passage and packs that passage, not the note's start", async () => {
    const ask = 'When did the zebra migration cross the Mara river with Joseph?';
    const res = await rankMemory({ task: task(ask), memory: memory(), settings: SETTINGS, queryVector: embed(ask), now: NOW });
    const card = res.cards.find((c) => c.item.id === 'long');
    expect(card?.passages?.passages[0]).toBe(4);
    expect(card?.passages?.of).toBe(ps.length);
    expect(cardText(card!)).toContain('zebra migration crossed the Mara river');
    expect(cardText(card!)).not.toContain(first);
    expect(res.package?.text).toContain('zebra migration crossed the Mara river');
    expect(res.package?.text).not.toContain('garden notes, entry 0');
    expect(res.package!.tokens).toBeLessThanOrEqual(SETTINGS.budgetTokens);
  });

  it('a long item left out for want of room says the tokens its matching passages need, in the copy the panel gets too', async () => {
    const ask = 'When did the zebra migration cross the Mara river with Joseph?';
    const rank = (budgetTokens: number) => rankMemory({ task: task(ask), memory: memory(), settings: { ...SETTINGS, budgetTokens }, queryVector: embed(ask), now: NOW });
    const shown = (await rank(2000)).cards.find((c) => c.item.id === 'long')!.passages!;
    const need = countTokens(excerpt(text, ps, shown.passages)) + 6;
    expect(need).toBeGreaterThan(40);
    const over = (await rank(40)).trace.find((e) => e.id === 'long')!;
    expect(over.stage).toBe('budget');
    const copied = JSON.parse(JSON.stringify(over)) as typeof over;
    expect(copied.decided).toEqual({ budget: 40, need, left: 40 });
    expect(over.decided).toEqual(copied.decided);
  });

  const longCard = (parts: number[]): RankedCard => {
    const it = memory().get('long')!;
    return { item: it, kind: 'evidence', score: 0.9, factors: { semantic: 1, lexical: 1, recency: 0, priority: 0, continuity: 0, situation: 0 }, matched: [], why: [], passages: { passages: parts, of: ps.length, tokens: 0 } };
  };

  it('packs passages in their order within the item with "…" between them, whatever their relevance order', () => {
    const pkg = buildPackage([longCard([5, 1])], 'documents', 2000);
    const p1 = text.slice(ps[1].start, ps[1].end).trim().replace(/\s+/g, ' ');
    const p5 = text.slice(ps[5].start, ps[5].end).trim().replace(/\s+/g, ' ');
    expect(pkg.text).toContain(`${p1} … ${p5}`);
    expect(pkg.text).not.toContain(first.replace(/\s+/g, ' '));
    expect(pkg.tokens).toBe(countTokens(pkg.text));
  });

  it('keeps the most relevant passages when all do not fit the budget, and stays under it', () => {
    const all = buildPackage([longCard([5, 1, 3])], 'documents', 2000);
    const budget = countTokens(all.text) - 50;
    const pkg = buildPackage([longCard([5, 1, 3])], 'documents', budget);
    expect(pkg.tokens).toBeLessThanOrEqual(budget);
    expect(pkg.text).toContain(text.slice(ps[5].start, ps[5].end).trim().slice(0, 60));
    expect(pkg.text).toContain(text.slice(ps[1].start, ps[1].end).trim().slice(0, 60));
    expect(pkg.text).not.toContain(text.slice(ps[3].start, ps[3].end).trim().slice(0, 60));
  });

  it("counts the tokens of what a long item's card shows: the whole text when every passage matched, else the excerpt", () => {
    const mem = memory();
    const it = mem.get('long')!;
    const weights = { semantic: 0, lexical: 1, recency: 0, priority: 0, continuity: 0, situation: 0 };
    const choose = (scores: number[]) =>
      choosePassages(mem, 'long', { id: 'long', score: 1, matched: [], passages: scores.map((score, part) => ({ part, score })) }, [], [], weights, TUNING)!;
    const two = item('long', text.slice(0, ps[2].start).trim());
    const memTwo = arrayMemoryView([two], new Map());
    expect(memTwo.passages('long').length).toBe(2);
    const both = choosePassages(memTwo, 'long', { id: 'long', score: 1, matched: [], passages: [{ part: 0, score: 1 }, { part: 1, score: 1 }] }, [], [], weights, TUNING)!;
    expect(both.passages.length).toBe(2);
    expect(both.tokens).toBe(countTokens(two.text));
    const one = choose(ps.map((_, k) => (k === 4 ? 1 : 0)));
    expect(one.passages).toEqual([4]);
    expect(one.tokens).toBe(countTokens(excerpt(it.text, ps, [4])));
    expect(one.tokens).toBeLessThan(it.tokens);
  });

  it('asks whether an excerpt fits a room with the same answer as its full count, whatever was asked before', () => {
    const mem = memory();
    const weights = { semantic: 0, lexical: 1, recency: 0, priority: 0, continuity: 0, situation: 0 };
    const it = mem.get('long')!;
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 400 }), { minLength: 1, maxLength: 5 }), fc.integer({ min: 0, max: ps.length - 1 }), (limits, best) => {
        // A fresh choice each run: the counts kept for the item are what earlier runs left.
        const choice = choosePassages(mem, 'long', { id: 'long', score: 1, matched: [], passages: ps.map((_, part) => ({ part, score: part === best ? 1 : 0 })) }, [], [], weights, TUNING)!;
        const full = countTokens(excerpt(it.text, ps, choice.passages));
        for (const limit of limits) expect(passageTokensWithin(choice, limit)).toBe(full <= limit ? full : undefined);
        expect(choice.tokens).toBe(full);
      }),
      { numRuns: 60 },
    );
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 300 }), fc.integer({ min: 0, max: 120 }), (text, limit) => {
        const n = countTokens(text);
        expect(countTokensUpTo(text, limit)).toBe(n <= limit ? n : undefined);
      }),
      { numRuns: 300 },
    );
  });

  it('packs and inserts a short item whole, as before passages', async () => {
    const res = await rankMemory({ task: task('boots for the trip'), memory: memory(), settings: SETTINGS, queryVector: embed('boots for the trip'), now: NOW });
    const card = res.cards.find((c) => c.item.id === 'boots')!;
    expect(card.passages).toBeUndefined();
    expect(cardText(card)).toBe('Our guide recommended good boots for the trip.');
    expect(fifth).toContain('zebra');
  });
});

/**
 * A long item whose answer is not in its first passage, beside another long item that ranks above it: a session of a
 * chat kept as one document, a long mail. What Insert all puts in must carry the answer, within the budget.
 */
describe('the package spends its budget on the passages that answer, across long items', () => {
  const chat = (topic: string, facts: Record<number, string>) =>
    Array.from({ length: 8 }, (_, p) =>
      Array.from({ length: 8 }, (_, i) => (i === 0 && facts[p]) || `Sam: the ${topic} part ${p}, line ${i}, goes over ${topic} things at some length.`).join('\n'),
    ).join('\n\n');
  const top = chat('kitchen', { 2: 'Ana: the kitchen tiles for the renovation came from Porto.', 5: 'Ana: the renovation tiles were blue, painted by hand.' });
  const other = chat('garden', { 3: 'Ana: the renovation of the shed waits for the tiles from Porto.' });
  const card = (id: string, text: string, score: number, chosen: number[], relevance: number[]): RankedCard => ({
    item: item(id, text, { title: id }),
    kind: 'evidence',
    score,
    factors: { semantic: 1, lexical: 1, recency: 0, priority: 0, continuity: 0, situation: 0 },
    matched: [],
    why: [],
    passages: { passages: chosen, of: splitPassages(text).length, tokens: 0, relevance },
  });
  const part = (text: string, k: number) => {
    const ps = splitPassages(text);
    return text.slice(ps[k].start, ps[k].end).trim().replace(/\s+/g, ' ');
  };

  it("packs the second card's answering passage rather than only the first card's further passages", () => {
    const a = card('kitchen', top, 0.9, [2, 5, 1], [0.2, 0.8, 1, 0.3, 0.2, 0.9, 0.2, 0.2]);
    const b = card('garden', other, 0.8, [3], [0.1, 0.1, 0.1, 1, 0.1, 0.1, 0.1, 0.1]);
    expect(splitPassages(top).length).toBe(8);
    // Room for the first card's three chosen passages and a little more, not for a fourth passage.
    const budget = buildPackage([a], 'chat', 4000, { first: 'chosen', sharpness: Infinity, floor: 1 }).tokens + 20;
    const pkg = buildPackage([a, b], 'chat', budget);
    expect(pkg.tokens).toBeLessThanOrEqual(budget);
    expect(pkg.tokens).toBe(countTokens(pkg.text));
    expect(pkg.text).toContain('the renovation of the shed waits for the tiles from Porto.');
    expect(pkg.text).toContain('the kitchen tiles for the renovation came from Porto.');
    expect(pkg.ids).toEqual(['kitchen', 'garden']);
    // The passage that answered least is the one left out; nothing that matched nothing is packed.
    expect(pkg.text).not.toContain(part(top, 0));
  });

  it('fills the room left with the next passages that answer, each whole', () => {
    const a = card('kitchen', top, 0.9, [2], [0, 0, 1, 0, 0, 0.7, 0, 0]);
    const pkg = buildPackage([a], 'chat', 800);
    expect(pkg.tokens).toBeLessThanOrEqual(800);
    expect(pkg.text).toContain(part(top, 2));
    expect(pkg.text).toContain(part(top, 5));
    expect(pkg.text).toContain('the renovation tiles were blue, painted by hand.');
    for (const k of [0, 1, 3, 4, 6, 7]) expect(pkg.text).not.toContain(part(top, k));
  });

  it('leaves out passages about something else, however much room is left', () => {
    // Every passage weakly like the task, as a model's cosine makes them; only two answer it.
    const a = card('kitchen', top, 0.9, [2], [0.1, 0.15, 1, 0.1, 0.12, 0.7, 0.1, 0.1]);
    const pkg = buildPackage([a], 'chat', 4000);
    expect(pkg.text).toContain(part(top, 2));
    expect(pkg.text).toContain(part(top, 5));
    for (const k of [0, 1, 3, 4, 6, 7]) expect(pkg.text).not.toContain(part(top, k));
  });

  it('ranks a session kept as one item and inserts, within the budget, both passages that hold the answer', async () => {
    const items = [item('kitchen', top, { title: 'Kitchen chat' }), item('garden', other, { title: 'Garden chat' })];
    const mem = arrayMemoryView(items, new Map(items.map((it) => [it.id, passageEmbedTexts(it).map(embed)])));
    const ask = 'Where did the renovation tiles come from, and how were they painted?';
    const res = await rankMemory({ task: task(ask), memory: mem, settings: SETTINGS, queryVector: embed(ask), now: NOW });
    const pkg = res.package!;
    expect(pkg.tokens).toBeLessThanOrEqual(SETTINGS.budgetTokens);
    expect(pkg.text).toContain('the kitchen tiles for the renovation came from Porto.');
    expect(pkg.text).toContain('the renovation tiles were blue, painted by hand.');
    expect(pkg.text).toContain('the renovation of the shed waits for the tiles from Porto.');
  });
});
