import { describe, expect, it } from 'vitest';
import { chooseCoordinatewise, crossValidate, foldsByIndex, type Choice, type Knob } from '../../bench/lib/cv-folds';

/**
 * Four units; each prefers one value of `x` (the value it scores 1 at, 0 otherwise). Units 1-3 prefer 1; unit 0, the
 * odd one out, prefers 3. `y` never matters.
 */
const KNOBS: Knob[] = [
  { name: 'x', today: 2, grid: [1, 2, 3] },
  { name: 'y', today: false, grid: [false, true] },
];
const PREFERS = [3, 1, 1, 1];

function spying() {
  const seen: number[][] = [];
  const objective = async (units: readonly number[], c: Choice) => {
    seen.push([...units]);
    return [units.reduce((s, u) => s + (c.x === PREFERS[u] ? 1 : 0), 0) / units.length];
  };
  return { seen, objective };
}

describe('bench:cv fold logic', () => {
  it('chooses each fold\'s constants without ever scoring its held-out units', async () => {
    const { seen, objective } = spying();
    const folds = foldsByIndex(4, 4);
    const chosen = await crossValidate(KNOBS, folds, objective);
    for (const [i, f] of chosen.entries()) expect(f.held).toEqual([i]);
    // Every objective call while choosing fold i's constants left unit i out.
    const calls = seen.length / folds.length;
    folds.forEach((held, i) => {
      for (const units of seen.slice(i * calls, (i + 1) * calls)) expect(units.filter((u) => held.includes(u))).toEqual([]);
    });
    // So unit 0's own preference (3) never reaches the value judged on it; the other folds see 1 win 2-1 or 3-0.
    expect(chosen.map((f) => f.choice.x)).toEqual([1, 1, 1, 1]);
  });

  it('keeps today\'s value on a tie and moves only on a strictly better score', async () => {
    const { objective } = spying();
    // Units 0 and 1 split: 3 and 1 tie at 0.5, today's 2 scores 0, so the first better value found (1) is kept.
    expect(await chooseCoordinatewise(KNOBS, [0, 1], objective)).toEqual({ x: 1, y: false });
    // A knob that changes nothing stays at today's value.
    expect((await chooseCoordinatewise(KNOBS, [1, 2], objective)).y).toBe(false);
  });

  it('takes no value that raises the mean while costing one of the data sets', async () => {
    // Part 0 (one data set) gains 0.3 from x = 3, part 1 loses 0.1: the mean rises, yet today's value stays.
    const twoSets = async (_: readonly number[], c: Choice) => (c.x === 3 ? [0.8, 0.4] : [0.5, 0.5]);
    expect((await chooseCoordinatewise(KNOBS, [0], twoSets)).x).toBe(2);
    const bothGain = async (_: readonly number[], c: Choice) => (c.x === 3 ? [0.8, 0.5] : [0.5, 0.5]);
    expect((await chooseCoordinatewise(KNOBS, [0], bothGain)).x).toBe(3);
  });

  it('deals units into folds by index so interleaved question types spread over folds', () => {
    expect(foldsByIndex(7, 3)).toEqual([[0, 3, 6], [1, 4], [2, 5]]);
    expect(foldsByIndex(2, 5)).toEqual([[0], [1]]);
  });
});
