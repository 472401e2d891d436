/** The yardstick the linear-cost tests use tells quadratic work from linear work, on both of its steps. */
import { describe, expect, it } from 'vitest';
import { GROWTH_LIMIT, costGrowth, repeatTo } from './cost-growth';

/** Scans the rest of the text from every 1,024th character: quadratic in the length. */
function rescanning(s: string): number {
  let found = 0;
  for (let i = 0; i < s.length; i += 1024) found += s.indexOf('\u0000', i) < 0 ? 1 : 0;
  return found;
}

/** Reads each character once. */
function scanning(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) n += s.charCodeAt(i) & 1;
  return n;
}

describe('cost growth', () => {
  it('fails work that rescans the text and passes work that reads it once', async () => {
    expect(await costGrowth(rescanning, (n) => repeatTo('ab ', n))).toBeGreaterThanOrEqual(GROWTH_LIMIT);
    expect(await costGrowth(scanning, (n) => repeatTo('ab ', n))).toBeLessThan(GROWTH_LIMIT);
  });
});
