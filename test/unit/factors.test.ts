// @vitest-environment happy-dom
import { beforeAll, describe, expect, it } from 'vitest';
import { fakeBrowser } from 'wxt/testing';
import { FACTORS, FACTOR_NAMES, weighFactors } from '../../lib/core/factors';
import { createItem } from '../../lib/memory/normalize';
import { scoreItem } from '../../lib/rank/score';
import { explainScore } from '../../lib/rank/trace';
import type { TaskReading } from '../../lib/rank/types';
import { DEFAULT_CAPTURE, DEFAULT_EMBED, DEFAULT_SETTINGS, DEFAULT_UI } from '../../lib/settings/defaults';

/** Every ranking factor is declared once (lib/core/factors.ts) and reaches every place that shows or uses it. */
const NOW = Date.UTC(2026, 10, 1);
const task: TaskReading = { url: 'https://mail.google.com/x', title: '', site: 'mail.google.com', adapter: 'gmail', destination: 'email', field: { text: 'hotel', kind: 'textarea' }, at: NOW };
// An item every factor has something to say about: pinned, new, used in this tab, kept for this site, matching.
const item = createItem({ id: 'all', text: 'The hotel is booked.', pinned: true, sites: ['mail.google.com'], createdAt: NOW }, NOW);
const signal = { id: 'all', semantic: 0.8, lexical: 0.6, matched: ['hotel'], viaNeighbour: [], expanded: [], fused: 0 };

describe('the ranking factors', () => {
  it('has six factors, each with a label, a help text, a trace reason, words for learning and a default weight', () => {
    expect(FACTOR_NAMES).toEqual(['semantic', 'lexical', 'recency', 'priority', 'continuity', 'situation']);
    for (const n of FACTOR_NAMES) {
      const f = FACTORS[n];
      for (const text of [f.label, f.help, f.reason, f.learned]) expect(text.trim(), n).not.toBe('');
      expect(DEFAULT_SETTINGS.weights[n], n).toBe(f.defaultWeight);
      expect(f.defaultWeight, n).toBeGreaterThan(0);
    }
    expect(Object.keys(DEFAULT_SETTINGS.weights)).toEqual([...FACTOR_NAMES]);
  });

  it('computes every factor, and a factor weighted alone is the score and the one reason the trace gives', () => {
    for (const n of FACTOR_NAMES) {
      const weights = { ...DEFAULT_SETTINGS.weights };
      for (const m of FACTOR_NAMES) weights[m] = m === n ? 1 : 0;
      const s = scoreItem(item, signal, task, { ...DEFAULT_SETTINGS, weights }, new Set(['all']), new Set(), NOW);
      expect(s.factors[n], n).toBeGreaterThan(0);
      expect(s.score, n).toBeCloseTo(s.factors[n], 12);
      const why = explainScore(s);
      expect(why.length, n).toBeGreaterThan(0);
      expect(why[0].startsWith(`${FACTORS[n].reason} (+`), why[0]).toBe(true);
    }
  });

  it('weighs the factors as a mean: weights below zero count as zero, and no weight at all scores zero', () => {
    const x = { semantic: 1, lexical: 0.5, recency: 0, priority: 0, continuity: 0, situation: 0 };
    const w = { semantic: 1, lexical: 3, recency: -2, priority: 0, continuity: 0, situation: 0 };
    const { score, contributions } = weighFactors(w, x);
    expect(score).toBeCloseTo((1 + 1.5) / 4, 12);
    expect(contributions.lexical).toBeCloseTo(1.5 / 4, 12);
    expect(contributions.recency).toBe(0);
    expect(weighFactors({ ...w, semantic: 0, lexical: 0 }, x).score).toBe(0);
  });
});

describe('the options page', () => {
  let render: typeof import('preact').render;
  let h: typeof import('preact').h;
  let WeightsSection: typeof import('../../lib/ui/options/weights-section').WeightsSection;
  beforeAll(async () => {
    // The live preview beside the sliders asks the worker; here nobody ranks anything.
    (globalThis as { chrome?: unknown }).chrome = Object.assign(fakeBrowser, {
      runtime: Object.assign(fakeBrowser.runtime, { sendMessage: async () => ({ ok: true, value: { cards: [] } }) }),
    });
    ({ render, h } = await import('preact'));
    ({ WeightsSection } = await import('../../lib/ui/options/weights-section'));
  });

  it('has one slider per factor, in the table order, at its default, with its help text', () => {
    const root = document.createElement('div');
    document.body.append(root);
    const settings = { rank: DEFAULT_SETTINGS, ui: DEFAULT_UI, capture: DEFAULT_CAPTURE, embed: DEFAULT_EMBED };
    render(h(WeightsSection, { settings, save: () => {} }), root);
    const sliders = Array.from(root.querySelectorAll<HTMLInputElement>('input[type=range][data-weight]'));
    expect(sliders.map((s) => s.dataset.weight)).toEqual([...FACTOR_NAMES]);
    for (const s of sliders) {
      const n = s.dataset.weight as (typeof FACTOR_NAMES)[number];
      expect(Number(s.value), n).toBe(FACTORS[n].defaultWeight);
      expect(s.getAttribute('aria-label'), n).toBe(`${n} weight: ${FACTORS[n].help}`);
    }
    render(null, root);
    root.remove();
  });
});
