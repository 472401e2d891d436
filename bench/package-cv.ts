/**
 * How the package spends its budget on long items (`PackageSpend` in lib/rank/package.ts), chosen by
 * leave-one-conversation-out cross-validation on LoCoMo with each session one item. Each conversation is also ranked
 * with one item per turn, in the same run, for the figure the sessions must keep: at least 0.9× its evidence in the
 * package (issue #38). For each conversation held out, the variant chosen on the others is the one whose lowest ratio to
 * turns over them is highest, as the target is a lowest ratio; ties go to the most selective (the highest `floor`: the
 * fewest passages sent that are about something else), then to the best mean. It is judged on the one held out. The
 * same rule over all the conversations gives the shipped spend. (Taking the most selective variant that just passes on
 * the others chooses at the edge of what passes, which a conversation held out then falls below.)
 * Usage: npx tsx bench/package-cv.ts [--data FILE] [--conversations A-B]
 */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_SETTINGS } from '../lib/settings/defaults';
import { rankMemory } from '../lib/rank/rank';
import { taskQueryTexts } from '../lib/rank/query';
import { buildPackage, PACKAGE_SPEND, type PackageSpend } from '../lib/rank/package';
import { QueryVectorCache } from '../lib/service/query-vectors';
import { locomoDataFile } from './lib/locomo-data';
import { openBenchCache, prepare } from './lib/prepare';
import { cachedEmbedder, importedMemory } from './lib/product';
import { evidenceShare } from './lib/evidence-in-package';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The variants weighed: each card first with its chosen passages or its best one, then further passages or none; with
 * further passages, those below a share (`floor`) of the card's best passage's relevance left out.
 */
const VARIANTS: (PackageSpend & { name: string })[] = [];
for (const first of ['chosen', 'best'] as const) {
  VARIANTS.push({ name: `${first}, no further`, first, sharpness: Infinity, floor: 1 });
  for (const sharpness of [0, 0.5, 1, 2, 4]) {
    for (const floor of [0, 0.1, 0.2, 0.3, 0.5, 0.7]) VARIANTS.push({ name: `${first}, sharpness ${sharpness}, floor ${floor}`, first, sharpness, floor });
  }
}
const TARGET = 0.9;
const shipped = (v: PackageSpend) => v.first === PACKAGE_SPEND.first && v.sharpness === PACKAGE_SPEND.sharpness && v.floor === PACKAGE_SPEND.floor;

async function main() {
  const argv = process.argv.slice(2);
  const get = (n: string) => (argv.includes(n) ? argv[argv.indexOf(n) + 1] : undefined);
  const conv = get('--conversations')?.match(/^(\d+)(?:-(\d+))?$/);
  const range: [number, number] | undefined = conv ? [Number(conv[1]), Number(conv[2] ?? conv[1])] : undefined;
  const cache = openBenchCache(ROOT, 'q8');
  const data = locomoDataFile(get('--data'), ROOT);
  const embedder = cachedEmbedder(cache, 'q8');
  // Each turn one item: the figure each conversation's sessions must keep 0.9× of (turns pack the same way whatever
  // the variant: they have one passage).
  const turns: Record<string, number> = {};
  for (const p of await prepare(data, range, ROOT, 'q8', cache, 'turns')) {
    process.stderr.write(`\r  ${p.conv.id} (turns)   `);
    const store = await importedMemory(p.conv, embedder);
    const queries = new QueryVectorCache();
    let sum = 0;
    for (const q of p.questions) {
      const texts = taskQueryTexts(q.task).filter((t) => t.trim());
      const queryVectors = await Promise.all(texts.map((t) => queries.get(embedder, t)));
      const { cards } = await rankMemory({ task: q.task, memory: store.view, settings: DEFAULT_SETTINGS, queryVectors, now: p.conv.now });
      sum += evidenceShare(buildPackage(cards, q.task.destination, DEFAULT_SETTINGS.budgetTokens).text, q.evidence ?? []);
    }
    turns[p.conv.id] = sum / (p.questions.length || 1);
  }
  const prepared = await prepare(data, range, ROOT, 'q8', cache, 'sessions');
  const share: Record<string, number[]> = {};
  for (const p of prepared) {
    process.stderr.write(`\r  ${p.conv.id}   `);
    const store = await importedMemory(p.conv, embedder);
    const queries = new QueryVectorCache();
    const sums = VARIANTS.map(() => 0);
    for (const q of p.questions) {
      const texts = taskQueryTexts(q.task).filter((t) => t.trim());
      const queryVectors = await Promise.all(texts.map((t) => queries.get(embedder, t)));
      const { cards } = await rankMemory({ task: q.task, memory: store.view, settings: DEFAULT_SETTINGS, queryVectors, now: p.conv.now });
      VARIANTS.forEach((v, i) => {
        // sharpness Infinity: no further passages (with \`chosen\`, the package before this change).
        const pkg = buildPackage(cards, q.task.destination, DEFAULT_SETTINGS.budgetTokens, v);
        sums[i] += evidenceShare(pkg.text, q.evidence ?? []);
      });
    }
    share[p.conv.id] = sums.map((x) => x / (p.questions.length || 1));
  }
  const ids = Object.keys(share);
  console.log(`turns as items, evidence in the package: ${ids.map((id) => `${id} ${turns[id].toFixed(3)}`).join(', ')}`);
  console.log(`| variant | ${ids.join(' | ')} | mean | lowest ratio to turns |`);
  console.log(`|---|${ids.map(() => '---|').join('')}---|---|`);
  const ratio = (id: string, i: number) => share[id][i] / (turns[id] || 1);
  VARIANTS.forEach((v, i) => {
    const xs = ids.map((id) => share[id][i]);
    console.log(`| ${v.name}${shipped(v) ? ' (shipped)' : ''} | ${xs.map((x) => x.toFixed(3)).join(' | ')} | ${(xs.reduce((a, b) => a + b, 0) / xs.length).toFixed(3)} | ${Math.min(...ids.map((id) => ratio(id, i))).toFixed(3)} |`);
  });
  // The lowest ratio is the target's own measure, so it leads; exact ties (variants that pack the same) go to the
  // most selective, then to the best mean.
  const choose = (train: string[]) => {
    const lowest = (i: number) => Math.min(...train.map((id) => ratio(id, i)));
    const mean = (i: number) => train.reduce((a, id) => a + share[id][i], 0) / train.length;
    const better = (i: number, b: number) => {
      const d = lowest(i) - lowest(b);
      if (Math.abs(d) > 1e-9) return d > 0;
      if (VARIANTS[i].floor !== VARIANTS[b].floor) return VARIANTS[i].floor > VARIANTS[b].floor;
      return mean(i) > mean(b) + 1e-9;
    };
    const best = VARIANTS.reduce((b, _, i) => (better(i, b) ? i : b), 0);
    return { best, lowest: lowest(best), mean: mean(best) };
  };
  console.log('\nleave one conversation out: chosen on the others (the highest lowest ratio to turns), judged on the one held out');
  console.log(`| held out | chosen on the others | their lowest ratio | its evidence in the package | ratio to turns (≥ ${TARGET}) |`);
  console.log('|---|---|---|---|---|');
  for (const out of ids) {
    const { best, lowest } = choose(ids.filter((id) => id !== out));
    console.log(`| ${out} | ${VARIANTS[best].name} | ${lowest.toFixed(3)} | ${share[out][best].toFixed(3)} | ${ratio(out, best).toFixed(3)} ${ratio(out, best) >= TARGET ? '✓' : '✗'} |`);
  }
  const all = choose(ids);
  console.log(`\nchosen on all ${ids.length}: ${VARIANTS[all.best].name}${shipped(VARIANTS[all.best]) ? ' (shipped)' : ' (not the shipped spend)'}, lowest ratio ${all.lowest.toFixed(3)}`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
