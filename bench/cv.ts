/**
 * Cross-validation of the ranker's tuned constants (bench/lib/cv-knobs.ts lists them, with their grids) on LoCoMo's
 * dev conversations and LongMemEval's dev questions, through the product's path: each conversation or haystack is
 * imported and embedded once (bench/lib/cv-units.ts), then ranked by `scoreMemory` for every choice of constants.
 * Usage: npm run bench:cv -- [--locomo FILE] [--lme FILE] [--conversations A-B] [--questions A-B] [--folds K]
 *        [--select each,both] [--memo FILE] [--json OUT]
 *
 * `--select each`: LoCoMo leave-one-conversation-out (constants chosen on the other conversations by R@10, judged on
 * the held-out one), and LongMemEval K-fold (question i in fold i mod K; chosen by the mean of recall_all@10 and
 * NDCG@10 on the other folds). `--select both`: one set of constants for both, chosen on both sets' other folds (fold
 * i holds LoCoMo conversation i mod K and LongMemEval questions i mod K): a value is taken when it raises the mean of
 * the two objectives and lowers neither, since the product ships one value per constant. Beside each cross-validated figure: today's constants on the same questions
 * (in-sample: they were chosen on this data), the constants chosen on all of it (in-sample too), and plain BM25.
 * `--memo FILE` keeps every (unit, choice) result on disk, so a stopped run of the same tree and data resumes where it
 * stopped: delete the file after changing the ranker or the data.
 */
import { writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openBenchCache } from './lib/prepare';
import { cachedEmbedder } from './lib/product';
import { locomoDataFile } from './lib/locomo-data';
import { lmeDataFile } from './lib/longmemeval-data';
import { chooseCoordinatewise, crossValidate, foldsByIndex, todays, type Choice, type FoldChoice, type Objective } from './lib/cv-folds';
import { KNOBS, NOT_VARIED } from './lib/cv-knobs';
import { lmeUnits, locomoUnits, UnitRanker, type DataSet, type QuestionFigures, type Unit } from './lib/cv-units';
import { optionValue } from './lib/args';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

function range(s: string | undefined, flag: string): [number, number] | undefined {
  if (!s) return undefined;
  const m = s.match(/^(\d+)(?:-(\d+))?$/);
  if (!m) throw new Error(`${flag} wants A-B (1-based), got "${s}"`);
  return [Number(m[1]), Number(m[2] ?? m[1])];
}

function args(argv: string[]) {
  const get = (name: string) => optionValue(argv, name);
  const select = (get('--select') ?? 'each,both').split(',');
  for (const s of select) if (s !== 'each' && s !== 'both') throw new Error(`--select wants each, both or each,both; got "${s}"`);
  const folds = Number(get('--folds') ?? 5);
  if (!(folds >= 2)) throw new Error('--folds wants 2 or more');
  return {
    locomo: get('--locomo'), lme: get('--lme'), conversations: range(get('--conversations'), '--conversations'), questions: range(get('--questions'), '--questions'),
    folds, select: select as ('each' | 'both')[], json: get('--json'), memo: get('--memo'),
  };
}

/** The set's objective: LoCoMo's mean R@10; LongMemEval's mean of recall_all@10 and NDCG@10. */
const OBJECTIVE: Record<DataSet, (f: QuestionFigures) => number> = { locomo: (f) => f.r10, lme: (f) => (f.all10 + f.ndcg10) / 2 };

/** Mean per-question objective of each data set among `units` (a choice must raise their mean and lower neither). */
function objective(ranker: UnitRanker): Objective {
  return async (units, choice) => {
    const sums = new Map<DataSet, { s: number; n: number }>();
    for (const u of units) {
      const set = ranker.units[u].set;
      const acc = sums.get(set) ?? { s: 0, n: 0 };
      for (const f of await ranker.figures(u, choice)) {
        acc.s += OBJECTIVE[set](f);
        acc.n++;
      }
      sums.set(set, acc);
    }
    // One part per data set, in a fixed order.
    return (['locomo', 'lme'] as const).flatMap((set) => {
      const acc = sums.get(set);
      return acc ? [acc.n ? acc.s / acc.n : 0] : [];
    });
  };
}

/** Per-question figures of one data set with each question's category. */
type Rows = { category: string; f: QuestionFigures }[];

async function under(ranker: UnitRanker, units: number[], choiceOf: (u: number) => Choice): Promise<Rows> {
  const rows: Rows = [];
  for (const u of units) {
    const figs = await ranker.figures(u, choiceOf(u));
    ranker.units[u].questions.forEach((q, i) => rows.push({ category: q.category, f: figs[i] }));
  }
  return rows;
}

function baseline(units: readonly Unit[], ids: number[]): Rows {
  return ids.flatMap((u) => units[u].questions.map((q, i) => ({ category: q.category, f: units[u].bm25[i] })));
}

interface Column {
  name: string;
  rows: Rows;
}

function mean(rows: Rows, pick: (f: QuestionFigures) => number): number {
  return rows.length ? rows.reduce((s, r) => s + pick(r.f), 0) / rows.length : 0;
}

/** A table of one data set: a line for all questions and one per category, a column per way of choosing. */
function table(set: DataSet, columns: Column[]): string {
  const cats = [...new Set(columns[0].rows.map((r) => r.category))].sort();
  const cell = (rows: Rows) =>
    set === 'locomo' ? mean(rows, (f) => f.r10).toFixed(3) : `${mean(rows, (f) => f.all10).toFixed(3)} / ${mean(rows, (f) => f.ndcg10).toFixed(3)}`;
  const lines = [`| questions | n | ${columns.map((c) => c.name).join(' | ')} |`, `|---|---|${columns.map(() => '---|').join('')}`];
  for (const cat of ['all', ...cats]) {
    const of = (rows: Rows) => (cat === 'all' ? rows : rows.filter((r) => r.category === cat));
    lines.push(`| ${cat} | ${of(columns[0].rows).length} | ${columns.map((c) => cell(of(c.rows))).join(' | ')} |`);
  }
  return lines.join('\n');
}

const show = (v: unknown) => String(v);

/** Cross-validates `folds` of `ids` and chooses on all of them: the columns of the tables and the choices made. */
async function run(ranker: UnitRanker, folds: number[][]) {
  const obj = objective(ranker);
  const chosen = await crossValidate(KNOBS, folds, obj);
  const onAll = await chooseCoordinatewise(KNOBS, folds.flat(), obj);
  return { chosen, onAll };
}

async function main() {
  const a = args(process.argv.slice(2));
  const cache = openBenchCache(ROOT, 'q8');
  const embedder = cachedEmbedder(cache, 'q8');
  const t0 = performance.now();
  const units = [
    ...(await locomoUnits(locomoDataFile(a.locomo, ROOT), embedder, a.conversations)),
    ...(await lmeUnits(lmeDataFile(a.lme, ROOT), embedder, a.questions)),
  ];
  const ranker = new UnitRanker(units, a.memo);
  const ids = (set: DataSet) => units.flatMap((u, i) => (u.set === set ? [i] : []));
  const loc = ids('locomo');
  const lme = ids('lme');
  const lmeFolds = foldsByIndex(lme.length, a.folds).map((f) => f.map((i) => lme[i]));
  const today = todays(KNOBS);
  const out: Record<string, unknown> = { knobs: KNOBS, notVaried: NOT_VARIED, runs: {} };
  const columns: Record<DataSet, Column[]> = {
    locomo: [{ name: 'BM25', rows: baseline(units, loc) }, { name: "today's constants (in-sample)", rows: await under(ranker, loc, () => today) }],
    lme: [{ name: 'BM25', rows: baseline(units, lme) }, { name: "today's constants (in-sample)", rows: await under(ranker, lme, () => today) }],
  };
  const knobColumns: { name: string; chosen: FoldChoice[]; onAll: Choice }[] = [];
  const heldChoice = (chosen: FoldChoice[]) => (u: number) => chosen.find((c) => c.held.includes(u))!.choice;
  for (const select of a.select) {
    process.stderr.write(`  choosing (${select})…\n`);
    if (select === 'each') {
      const l = await run(ranker, loc.map((u) => [u]));
      const m = await run(ranker, lmeFolds);
      columns.locomo.push({ name: 'CV: chosen on the other conversations', rows: await under(ranker, loc, heldChoice(l.chosen)) });
      columns.locomo.push({ name: 'chosen on all of LoCoMo dev (in-sample)', rows: await under(ranker, loc, () => l.onAll) });
      columns.lme.push({ name: `CV: chosen on the other ${a.folds - 1} folds`, rows: await under(ranker, lme, heldChoice(m.chosen)) });
      columns.lme.push({ name: 'chosen on all of LongMemEval dev (in-sample)', rows: await under(ranker, lme, () => m.onAll) });
      // Each set's choice on the other set, which it never saw: does it carry over to another kind of memory?
      columns.locomo.push({ name: 'chosen on all of LongMemEval dev', rows: await under(ranker, loc, () => m.onAll) });
      columns.lme.push({ name: 'chosen on all of LoCoMo dev', rows: await under(ranker, lme, () => l.onAll) });
      knobColumns.push({ name: 'LoCoMo', ...l }, { name: 'LongMemEval', ...m });
    } else {
      const folds = Array.from({ length: a.folds }, (_, i) => [...loc.filter((_, j) => j % a.folds === i), ...lme.filter((_, j) => j % a.folds === i)]);
      const b = await run(ranker, folds);
      const choice = heldChoice(b.chosen);
      columns.locomo.push({ name: 'CV, one set for both data sets', rows: await under(ranker, loc, choice) });
      columns.lme.push({ name: 'CV, one set for both data sets', rows: await under(ranker, lme, choice) });
      columns.locomo.push({ name: 'one set chosen on all of both (in-sample)', rows: await under(ranker, loc, () => b.onAll) });
      columns.lme.push({ name: 'one set chosen on all of both (in-sample)', rows: await under(ranker, lme, () => b.onAll) });
      knobColumns.push({ name: 'both', ...b });
    }
  }
  const knobLines = [
    `| constant | grid | today | ${knobColumns.map((k) => `${k.name}: on all; each fold`).join(' | ')} |`,
    `|---|---|---|${knobColumns.map(() => '---|').join('')}`,
    ...KNOBS.map(
      (k) =>
        `| ${k.name} | ${k.grid.map(show).join(', ')} | ${show(k.today)} | ${knobColumns.map((c) => `${show(c.onAll[k.name])}; ${c.chosen.map((f) => show(f.choice[k.name])).join(' ')}`).join(' | ')} |`,
    ),
  ];
  console.log(`${KNOBS.length} constants, coordinate-wise, one sweep; ${ranker.rankings} rankings in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  console.log(knobLines.join('\n'));
  console.log(`\nLoCoMo dev, ${loc.length} conversations, R@10 of the ranker's full order:`);
  console.log(table('locomo', columns.locomo));
  console.log(`\nLongMemEval dev, ${lme.length} questions in ${a.folds} folds, turns: recall_all@10 / NDCG@10:`);
  console.log(table('lme', columns.lme));
  console.log('\nNot varied: ' + NOT_VARIED.map(([what, why]) => `${what} (${why})`).join('; '));
  if (a.json) {
    out.runs = Object.fromEntries(knobColumns.map((k) => [k.name, { onAll: k.onAll, folds: k.chosen.map((c) => ({ held: c.held.map((u) => units[u].id), choice: c.choice })) }]));
    out.tables = Object.fromEntries((['locomo', 'lme'] as const).map((s) => [s, columns[s].map((c) => ({ name: c.name, r10: mean(c.rows, (f) => f.r10), all10: mean(c.rows, (f) => f.all10), ndcg10: mean(c.rows, (f) => f.ndcg10) }))]));
    writeFileSync(a.json, JSON.stringify(out, null, 2) + '\n');
  }
  ranker.save();
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
