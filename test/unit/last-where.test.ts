/** Finding where a test on a growing total stops holding, by halving, gives what stepping one by one gives. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lastWhere } from '../../lib/core/last-where';

/** The straightforward version: step while the next one holds. */
function stepping(from: number, to: number, holds: (x: number) => boolean): number {
  let x = from;
  while (x < to && holds(x + 1)) x++;
  return x;
}

describe('lastWhere', () => {
  it('finds the last place a running total stays within a limit, as stepping does', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(9), { maxLength: 60, size: 'max' }), fc.nat(80), fc.nat(60), fc.nat(60), (steps, limit, a, b) => {
        const total = [0];
        for (const s of steps) total.push(total[total.length - 1] + s);
        const from = Math.min(a, b, steps.length);
        const to = Math.min(Math.max(a, b), steps.length);
        const holds = (x: number) => total[x] - total[from] <= limit;
        expect(lastWhere(from, to, holds)).toBe(stepping(from, to, holds));
      }),
      { numRuns: 500 },
    );
  });

  it('stays at the start when nothing after it holds, and reaches the end when everything does', () => {
    expect(lastWhere(3, 10, (x) => x <= 3)).toBe(3);
    expect(lastWhere(3, 10, () => true)).toBe(10);
    expect(lastWhere(5, 5, () => true)).toBe(5);
  });
});
