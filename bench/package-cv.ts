/**
 * How the package spends its budget on long items (`PackageSpend` in lib/rank/package.ts), chosen by
 * leave-one-conversation-out cross-validation on LoCoMo with each session one item: for each conversation held out,
 * the variant with the best mean evidence in the package over the other conversations is chosen, and judged on the
 * one held out. Usage: npx tsx bench/package-cv.ts [--data FILE] [--conversations A-B]
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

/** The variants weighed: each card first with its chosen passages or its best one, then further passages or none. */
const VARIANTS: (PackageSpend & { name: string })[] = [];
for (const first of ['chosen', 'best'] as const) {
  VARIANTS.push({ name: `${first}, no further`, first, sharpness: Infinity });
  for (const sharpness of [0, 0.5, 1, 2, 4]) VARIANTS.push({ name: `${first}, sharpness ${sharpness}`, first, sharpness });
}

async function main() {
  const argv = process.argv.slice(2);
  const get = (n: string) => (argv.includes(n) ? argv[argv.indexOf(n) + 1] : undefined);
  const conv = get('--conversations')?.match(/^(\d+)(?:-(\d+))?$/);
  const range: [number, number] | undefined = conv ? [Number(conv[1]), Number(conv[2] ?? conv[1])] : undefined;
  const cache = openBenchCache(ROOT, 'q8');
  const prepared = await prepare(locomoDataFile(get('--data'), ROOT), range, ROOT, 'q8', cache, 'sessions');
  const embedder = cachedEmbedder(cache, 'q8');
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
  console.log(`| variant | ${ids.join(' | ')} | mean |`);
  console.log(`|---|${ids.map(() => '---|').join('')}---|`);
  VARIANTS.forEach((v, i) => {
    const xs = ids.map((id) => share[id][i]);
    console.log(`| ${v.name}${v.first === PACKAGE_SPEND.first && v.sharpness === PACKAGE_SPEND.sharpness ? ' (shipped)' : ''} | ${xs.map((x) => x.toFixed(3)).join(' | ')} | ${(xs.reduce((a, b) => a + b, 0) / xs.length).toFixed(3)} |`);
  });
  console.log('\nleave one conversation out: chosen on the others, judged on the one held out');
  console.log('| held out | chosen on the others | its evidence in the package |');
  console.log('|---|---|---|');
  for (const out of ids) {
    const train = ids.filter((id) => id !== out);
    let best = 0;
    let bestMean = -1;
    VARIANTS.forEach((_, i) => {
      const m = train.reduce((a, id) => a + share[id][i], 0) / train.length;
      if (m > bestMean + 1e-9) {
        bestMean = m;
        best = i;
      }
    });
    console.log(`| ${out} | ${VARIANTS[best].name} (mean ${bestMean.toFixed(3)}) | ${share[out][best].toFixed(3)} |`);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
