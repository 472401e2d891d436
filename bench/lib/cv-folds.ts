/**
 * Cross-validation of the ranker's constants, independent of what is ranked: units (a LoCoMo conversation, a
 * LongMemEval question) are grouped in folds; for each fold the constants are chosen on the other folds' units only,
 * coordinate-wise over a small grid around today's values, and the caller judges the choice on the held-out fold.
 */

/** A constant's value: a number, or a switch. */
export type KnobValue = number | boolean;

/** One tuned constant and the values tried for it (today's among them). */
export interface Knob {
  name: string;
  today: KnobValue;
  grid: KnobValue[];
}

/** A value for every knob, by name. */
export type Choice = Readonly<Record<string, KnobValue>>;

/**
 * How good a choice is on these units, one figure per part (a data set), higher is better. Must look at no other
 * unit. A choice is better when the parts' mean is higher and no part is lower: a change must not cost either
 * benchmark.
 */
export type Objective = (units: readonly number[], choice: Choice) => Promise<number[]>;

export function todays(knobs: readonly Knob[]): Choice {
  return Object.fromEntries(knobs.map((k) => [k.name, k.today]));
}

/** A stable key of a choice (for memoising its results). */
export function choiceKey(choice: Choice): string {
  return Object.keys(choice)
    .sort()
    .map((k) => `${k}=${choice[k]}`)
    .join(',');
}

/**
 * Coordinate-wise choice from today's values, in one sweep that costs little more than scoring each grid value once:
 * every grid value of every knob is first scored alone (the others at today's) on `units`; the knobs whose best value
 * beats today's (`better`) are then taken in order of that gain, each kept only when it is still better with the ones
 * kept before it, so two knobs that move the same thing are not both pushed. Ties keep today's value. The single-knob
 * choices are the same for every fold, so a caller that keeps results per unit scores them once.
 */
export async function chooseCoordinatewise(knobs: readonly Knob[], units: readonly number[], objective: Objective): Promise<Choice> {
  const base = todays(knobs);
  const todayScore = await objective(units, base);
  const gains: { name: string; value: KnobValue; gain: number }[] = [];
  for (const k of knobs) {
    let best = { value: k.today, score: todayScore };
    for (const v of k.grid) {
      if (v === k.today) continue;
      const score = await objective(units, { ...base, [k.name]: v });
      if (better(score, best.score) && better(score, todayScore)) best = { value: v, score };
    }
    if (best.value !== k.today) gains.push({ name: k.name, value: best.value, gain: mean(best.score) - mean(todayScore) });
  }
  gains.sort((a, b) => b.gain - a.gain);
  let choice: Choice = base;
  let score = todayScore;
  for (const g of gains) {
    const next = { ...choice, [g.name]: g.value };
    const s = await objective(units, next);
    if (better(s, score)) {
      choice = next;
      score = s;
    }
  }
  return choice;
}

/** A difference below rounding noise is no reason to move from today's value. */
const EPSILON = 1e-9;

const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / (xs.length || 1);

/** A higher mean of the parts, and no part lower. */
export function better(a: number[], b: number[]): boolean {
  return mean(a) > mean(b) + EPSILON && a.every((x, i) => x >= b[i] - EPSILON);
}

/** Units 0..n-1 in `k` folds, unit i in fold i mod k (the files list question types interleaved). */
export function foldsByIndex(n: number, k: number): number[][] {
  const folds: number[][] = Array.from({ length: Math.min(k, n) }, () => []);
  for (let i = 0; i < n; i++) folds[i % folds.length].push(i);
  return folds;
}

export interface FoldChoice {
  /** The held-out units. */
  held: number[];
  /** The units the constants were chosen on (every unit not held out). */
  trainedOn: number[];
  choice: Choice;
}

/** For each fold, the constants chosen on all the other folds' units. */
export async function crossValidate(knobs: readonly Knob[], folds: readonly number[][], objective: Objective): Promise<FoldChoice[]> {
  const out: FoldChoice[] = [];
  for (const held of folds) {
    const heldOut = new Set(held);
    const trainedOn = folds.flat().filter((u) => !heldOut.has(u));
    out.push({ held: [...held], trainedOn, choice: await chooseCoordinatewise(knobs, trainedOn, objective) });
  }
  return out;
}
