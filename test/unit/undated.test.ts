import { describe, expect, it } from 'vitest';
import { createItem } from '../../lib/memory/normalize';
import { recencyFactor } from '../../lib/rank/score';

const DAY = 86_400_000;

describe('an item whose source gave no date', () => {
  it('is not counted as new because it was imported today', () => {
    const now = Date.UTC(2026, 11, 1);
    const dated = createItem({ text: 'Budget approved at 40k', createdAt: now - DAY });
    const undated = createItem({ text: 'Budget approved at 40k', undated: true, createdAt: now - DAY });
    expect(recencyFactor(dated, now, 30)).toBeGreaterThan(0.9);
    expect(recencyFactor(undated, now, 30)).toBeLessThan(1e-6);
  });

  it('counts from when the user last used it', () => {
    const now = Date.UTC(2026, 11, 1);
    const used = createItem({ text: 'Budget approved at 40k', undated: true, createdAt: now - DAY, lastUsedAt: now - DAY });
    expect(recencyFactor(used, now, 30)).toBeGreaterThan(0.9);
  });
});
