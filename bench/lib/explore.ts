/** Developer tool: compare ranker tuning variants on prepared LoCoMo data. Not part of the bench command. */
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_SETTINGS } from '../../lib/settings/defaults';
import { scoreMemory } from '../../lib/rank/rank';
import { TUNING, type Tuning } from '../../lib/rank/tuning';
import type { RankSettings } from '../../lib/rank/types';
import { Tally } from './metrics';
import { prepare } from './prepare';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const variants: [string, Partial<Tuning>, Partial<RankSettings['weights']>?][] = JSON.parse(process.argv[2] ?? '[["default",{}]]');
const prepared = await prepare(join(ROOT, '..', 'shared', 'datasets', 'locomo-dev.json'), undefined, ROOT);
for (const [name, tune, w] of variants) {
  const tally = new Tally();
  const settings = { ...DEFAULT_SETTINGS, weights: { ...DEFAULT_SETTINGS.weights, ...(w ?? {}) } };
  for (const p of prepared)
    for (const q of p.questions) {
      const t0 = performance.now();
      const r = scoreMemory({ task: q.task, memory: p.view, settings, queryVector: q.vectors[0], queryVectors: q.vectors, now: p.conv.now }, { ...TUNING, ...tune });
      tally.add(r.ranked.map((s) => s.item.id), q.relevant, performance.now() - t0);
    }
  const s = tally.stats();
  console.log(`${name.padEnd(28)} R@5 ${s.recall5.toFixed(3)} R@10 ${s.recall10.toFixed(3)} nDCG ${s.ndcg10.toFixed(3)} MRR ${s.mrr.toFixed(3)} p95 ${s.p95_ms.toFixed(1)}`);
}
