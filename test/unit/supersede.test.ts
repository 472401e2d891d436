import { describe, expect, it } from 'vitest';
import { createItem } from '../../lib/memory/normalize';
import { arrayMemoryView } from '../../lib/memory/index/memory-index';
import { rankMemory } from '../../lib/rank/rank';
import { OverrideMemo, overrides } from '../../lib/rank/overridden-instructions';
import type { MemoryItem } from '../../lib/memory/types';
import { rng } from '../../bench/lib/perf/synthetic';
import type { TaskReading } from '../../lib/rank/types';
import { DEFAULT_SETTINGS } from '../../lib/settings/defaults';
import { reasonOf } from './rank-fixtures';
import { traceReason } from '../../lib/rank/trace';

const NOW = Date.UTC(2026, 10, 1);
const DAY = 86_400_000;
const task: TaskReading = { url: 'https://mail.google.com/', title: '', site: 'mail.google.com', adapter: 'gmail', destination: 'email', field: { text: 'What is the Q3 budget review cadence and the contractor line?', kind: 'contenteditable' }, at: NOW };

describe('a decision superseded by a newer one on the same subject', () => {
  const older = createItem({ id: 'older', text: 'Decided: the Q3 budget review is monthly; the contractor line stays; budget review cadence monthly.', createdAt: NOW - 60 * DAY }, NOW);
  const newer = createItem({ id: 'newer', text: 'Decided: the Q3 budget review is quarterly; the contractor line is cut by 15%.', createdAt: NOW - 5 * DAY }, NOW);
  const other = createItem({ id: 'other', text: 'Decided: the offsite is in Lisbon in November.', createdAt: NOW - 90 * DAY }, NOW);

  it('ranks below the newer one and says what superseded it', async () => {
    const r = await rankMemory({ task, memory: arrayMemoryView([older, newer, other], new Map()), settings: DEFAULT_SETTINGS, now: NOW });
    const ids = r.cards.map((c) => c.item.id);
    expect(ids.indexOf('newer')).toBeLessThan(ids.indexOf('older'));
    expect(reasonOf(r.trace, 'older')).toMatch(/superseded by “Decided: the Q3 budget review is quarterly/);
    expect(reasonOf(r.trace, 'newer')).not.toMatch(/superseded/);
  });

  it('is ranked on its own merits when nothing newer covers it', async () => {
    const r = await rankMemory({ task, memory: arrayMemoryView([older, other], new Map()), settings: DEFAULT_SETTINGS, now: NOW });
    expect(r.cards[0].item.id).toBe('older');
    expect(r.trace.some((e) => /superseded/.test(traceReason(e)))).toBe(false);
  });
});

describe('contradicting instructions among many of one scope', () => {
  // Words of their own for each of 300 instructions (letters only: directive terms leave out words with digits),
  // so no two of them share more than "keep".
  const word = (k: number) => 'w' + String.fromCharCode(97 + (k % 26)) + String.fromCharCode(97 + Math.floor(k / 26) % 26) + String.fromCharCode(97 + Math.floor(k / 676));
  const many = Array.from({ length: 300 }, (_, k) =>
    createItem({ id: `own-${k}`, text: `Keep ${word(3 * k)} ${word(3 * k + 1)} ${word(3 * k + 2)}`, kind: 'instruction', createdAt: NOW - (k + 10) * DAY }, NOW),
  );
  const older = createItem({ id: 'british', text: 'Use British spelling in client replies', kind: 'instruction', createdAt: NOW - 100 * DAY }, NOW);
  const newer = createItem({ id: 'american', text: 'Use American spelling in client replies', kind: 'instruction', createdAt: NOW - 2 * DAY }, NOW);

  it('finds the one pair that contradicts and no other', async () => {
    // Amid the newest 200 of the scope: 'british' is older than most of them.
    const memory = arrayMemoryView([...many.slice(0, 150), older, newer, ...many.slice(150)], new Map());
    const r = await rankMemory({ task: { ...task, field: { text: 'Spelling for the client replies', kind: 'contenteditable' } }, memory, settings: DEFAULT_SETTINGS, now: NOW });
    const superseded = r.trace.filter((e) => /^Superseded by/.test(traceReason(e))).map((e) => e.id);
    expect(superseded).toEqual(['british']);
  });
});

describe('finding superseded instructions through shared terms', () => {
  // The pairwise rule is what two instructions alone give; the greedy pass over every pair, newest first, is what a
  // larger scope must give too (an older one superseded once is not compared again).
  const pair = (newer: MemoryItem, older: MemoryItem) => overrides([newer, older]).has(older);
  function everyPair(g: MemoryItem[]): Map<MemoryItem, MemoryItem> {
    const out = new Map<MemoryItem, MemoryItem>();
    for (let i = 0; i < g.length; i++) {
      if (out.has(g[i])) continue;
      for (let j = i + 1; j < g.length; j++) if (!out.has(g[j]) && pair(g[i], g[j])) out.set(g[j], g[i]);
    }
    return out;
  }
  const words = ['use', 'british', 'american', 'spelling', 'cc', 'maria', 'dana', 'reply', 'short', 'answers', 'code', 'not', 'emoji', 'formal', 'tone', 'bullet', 'points', 'numbers', 'first', 'sign'];

  it('gives what comparing every pair gives, on random scopes of up to 120 instructions', () => {
    const rnd = rng(7);
    let found = 0;
    for (let trial = 0; trial < 60; trial++) {
      const n = 2 + Math.floor(rnd() * 120);
      const g = Array.from({ length: n }, (_, k) => {
        const text = Array.from({ length: 2 + Math.floor(rnd() * 5) }, () => words[Math.floor(rnd() * words.length)]).join(' ');
        return createItem({ id: `t${trial}-${k}`, text, kind: 'instruction', createdAt: NOW - k * DAY }, NOW);
      });
      const want = everyPair(g);
      found += want.size;
      const pairs = (m: Map<MemoryItem, MemoryItem>) => [...m].map(([older, newer]) => `${older.id}<${newer.id}`).sort();
      expect(pairs(overrides(g))).toEqual(pairs(want));
    }
    expect(found).toBeGreaterThan(100); // the vocabulary is small enough that many pairs contradict
  });
});

describe('rankings that keep the overrides they found', () => {
  const spelling = { ...task, field: { text: 'Spelling for the client replies', kind: 'contenteditable' as const } };
  const british = createItem({ id: 'british', text: 'Use British spelling in client replies', kind: 'instruction', createdAt: NOW - 100 * DAY }, NOW);
  const american = createItem({ id: 'american', text: 'Use American spelling in client replies', kind: 'instruction', createdAt: NOW - 2 * DAY }, NOW);
  const canadian = createItem({ id: 'canadian', text: 'Use Canadian spelling in client replies', kind: 'instruction', createdAt: NOW - DAY }, NOW);
  // A note the task is about: rules alone make no cards.
  const guide = createItem({ id: 'guide', text: 'Client replies follow the house style guide; spelling was queried last month.', createdAt: NOW - 3 * DAY }, NOW);
  const supersededIds = (r: Awaited<ReturnType<typeof rankMemory>>) => r.trace.filter((e) => /^Superseded by/.test(traceReason(e))).map((e) => e.id).sort();

  it('see a newer contradicting instruction saved between two rankings', async () => {
    const overrides = new OverrideMemo();
    const rank = (items: MemoryItem[]) => rankMemory({ task: spelling, memory: arrayMemoryView(items, new Map()), settings: DEFAULT_SETTINGS, overrides, now: NOW });
    expect(supersededIds(await rank([british, american]))).toEqual(['british']);
    expect(supersededIds(await rank([british, american]))).toEqual(['british']);
    const after = await rank([british, american, canadian, guide]);
    expect(supersededIds(after)).toEqual(['american', 'british']);
    expect(after.cards.filter((c) => c.kind === 'instruction').map((c) => c.item.id)).toEqual(['canadian']);
    expect(supersededIds(await rank([british, american]))).toEqual(['british']);
  });

  it('rank exactly as rankings without them', async () => {
    const overrides = new OverrideMemo();
    for (const items of [[british, american], [british, american, canadian], [american, canadian], [british, american, canadian]]) {
      const memory = arrayMemoryView(items, new Map());
      const kept = await rankMemory({ task: spelling, memory, settings: DEFAULT_SETTINGS, overrides, now: NOW });
      const fresh = await rankMemory({ task: spelling, memory, settings: DEFAULT_SETTINGS, now: NOW });
      expect({ cards: kept.cards, trace: kept.trace }).toEqual({ cards: fresh.cards, trace: fresh.trace });
    }
  });
});
