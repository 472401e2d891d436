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

/** How good a choice is on these units (higher is better). Must look at no other unit. */
export type Objective = (units: readonly number[], choice: Choice) => Promise<number>;

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
 * Coordinate-wise search from today's values: each knob in turn takes the grid value that scores best on `units`
 * with the others held; a value replaces the current one only when strictly better (ties keep today's). `sweeps`
 * passes over the knobs, stopping early when a pass changes nothing.
 */
export async function chooseCoordinatewise(knobs: readonly Knob[], units: readonly number[], objective: Objective, sweeps = 1): Promise<Choice> {
  let choice: Choice = todays(knobs);
  let best = await objective(units, choice);
  for (let s = 0; s < sweeps; s++) {
    let changed = false;
    for (const k of knobs)
      for (const v of k.grid) {
        if (v === choice[k.name]) continue;
        const next = { ...choice, [k.name]: v };
        const score = await objective(units, next);
        // A difference below rounding noise is no reason to move from today's value.
        if (score > best + 1e-9) {
          best = score;
          choice = next;
          changed = true;
        }
      }
    if (!changed) break;
  }
  return choice;
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
export async function crossValidate(knobs: readonly Knob[], folds: readonly number[][], objective: Objective, sweeps = 1): Promise<FoldChoice[]> {
  const out: FoldChoice[] = [];
  for (const held of folds) {
    const out_ = new Set(held);
    const trainedOn = folds.flat().filter((u) => !out_.has(u));
    out.push({ held: [...held], trainedOn, choice: await chooseCoordinatewise(knobs, trainedOn, objective, sweeps) });
  }
  return out;
}
