/**
 * How a function's cost grows with its input, measured in one run: the median time on a 100 KB input over the median
 * on a 25 KB one. About 4 for work linear in the length, about 16 for quadratic work. No absolute time is compared,
 * and the time is processor time, so a slow or busy machine changes both sides alike.
 */

export const SMALL = 25_000;
export const LARGE = 100_000;
/** The next step up, measured only when the first step reads at or above the limit. */
export const LARGER = 400_000;
/**
 * Ratios at or above this fail. Linear work measures 4 to 6 here (caches and the garbage collector do a little more
 * per byte on the larger input); quadratic work measures near 16.
 */
export const GROWTH_LIMIT = 7;

const SAMPLES = 5;
/**
 * Attempts before a ratio at or above the limit counts. Linear work read once 8.8 with the whole unit suite running
 * beside it (and 2.0-5.5 alone, the same input); quadratic work never comes under the limit however often it is tried.
 */
const ATTEMPTS = 9;
/** Attempts on the step up; its inputs are four times longer, and quadratic work there takes seconds a run. */
const CONFIRM_ATTEMPTS = 3;

/** `unit` repeated to exactly `size` characters. */
export function repeatTo(unit: string, size: number): string {
  return unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
}

/** Milliseconds of processor time `run` took: time this process spent waiting for a busy machine does not count. */
async function timed(run: () => unknown): Promise<number> {
  const start = process.cpuUsage();
  const r = run();
  if (r instanceof Promise) await r;
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

/**
 * The growth ratio of `run` from `a` to `b` (four times longer). Runs on each input alternate so both meet the same
 * load; a run is repeated until a sample is long enough to time. The lowest of up to `attempts` attempts counts (a
 * burst of load elsewhere inflates one attempt, never the shape of the cost). A large run already far past the limit
 * after three samples ends the attempt, so quadratic work fails in a few runs instead of many.
 */
async function growthBetween(run: (input: string) => unknown, a: string, b: string, attempts: number): Promise<number> {
  // Warm up (the first calls compile, optimise and flatten), then find how many calls make a small sample of a few ms.
  for (let k = 0; k < 2; k++) await timed(() => run(a));
  await timed(() => run(b));
  const one = await timed(() => run(a));
  const reps = Math.max(1, Math.min(1000, Math.ceil(3 / Math.max(one, 0.005))));
  const many = (s: string) => async () => {
    for (let k = 0; k < reps; k++) {
      const r = run(s);
      if (r instanceof Promise) await r;
    }
  };
  let best = Infinity;
  for (let attempt = 0; attempt < attempts && best >= GROWTH_LIMIT; attempt++) {
    const smalls: number[] = [];
    const larges: number[] = [];
    let ratio = 0;
    for (let k = 0; k < SAMPLES; k++) {
      smalls.push(await timed(many(a)));
      larges.push(await timed(many(b)));
      ratio = median(larges) / Math.max(median(smalls), 0.001);
      if (k >= 2 && ratio > GROWTH_LIMIT * 4) break;
    }
    best = Math.min(best, ratio);
  }
  return best;
}

/**
 * How `run`'s cost grows from a SMALL to a LARGE input made by `input`. A ratio at or above the limit is measured
 * again one step up (LARGE to LARGER): linear work whose small input still fits the processor's cache reads 8 on some
 * machines on the first step (seen once on a fresh machine, the lowest of nine attempts) and about 4 on the next,
 * where both inputs are out of the cache; quadratic work reads about 16 on both. The lower of the two counts.
 */
export async function costGrowth(run: (input: string) => unknown, input: (size: number) => string): Promise<number> {
  const first = await growthBetween(run, input(SMALL), input(LARGE), ATTEMPTS);
  if (first < GROWTH_LIMIT) return first;
  return Math.min(first, await growthBetween(run, input(LARGE), input(LARGER), CONFIRM_ATTEMPTS));
}
