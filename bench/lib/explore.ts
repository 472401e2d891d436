/**
 * Developer tool: compare ranker tuning variants on prepared LoCoMo data. Not part of the bench command.
 * Usage: npx tsx bench/lib/explore.ts '[["name", {tuning overrides}, {weight overrides}?], ...]'
 * Each variant is scored on conversations 1-2 (choose parameters here) and 3-5 (confirm here), and on all five.
 */
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_SETTINGS } from '../../lib/settings/defaults';
import { scoreMemory } from '../../lib/rank/rank';
import { TUNING, type Tuning } from '../../lib/rank/tuning';
import { LexicalIndex, type LexicalIndexOptions } from '../../lib/memory/index/lexical-index';
import type { RankSettings } from '../../lib/rank/types';
import { Tally, type MethodStats } from './metrics';
import { prepare } from './prepare';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const variants: [string, Partial<Tuning>, Partial<RankSettings['weights']>?, LexicalIndexOptions?][] = JSON.parse(process.argv[2] ?? '[["default",{}]]');
const prepared = await prepare(join(ROOT, '..', 'shared', 'datasets', 'locomo-dev.json'), undefined, ROOT);
const f = (s: MethodStats) => `R@10 ${s.recall10.toFixed(4)} nDCG ${s.ndcg10.toFixed(4)}`;
const defaults = (prepared[0].view.lexicalIndex as LexicalIndex).options();
for (const [name, tune, w, lex] of variants) {
  // Lexical scoring options (4th element) apply on top of the index's defaults, then are restored.
  for (const p of prepared) (p.view.lexicalIndex as LexicalIndex).configure({ ...defaults, ...(lex ?? {}) });
  const tune12 = new Tally();
  const check35 = new Tally();
  const all = new Tally();
  const settings = { ...DEFAULT_SETTINGS, weights: { ...DEFAULT_SETTINGS.weights, ...(w ?? {}) } };
  prepared.forEach((p, ci) => {
    for (const q of p.questions) {
      const t0 = performance.now();
      const r = scoreMemory({ task: q.task, memory: p.view, settings, queryVector: q.vectors[0], queryVectors: q.vectors, now: p.conv.now }, { ...TUNING, ...tune });
      const ms = performance.now() - t0;
      const ids = r.ranked.map((s) => s.item.id);
      (ci < 2 ? tune12 : check35).add(ids, q.relevant, ms);
      all.add(ids, q.relevant, ms);
    }
  });
  const s = all.stats();
  console.log(
    `${name.padEnd(20)} | 1-2 ${f(tune12.stats())} | 3-5 ${f(check35.stats())} | all R@5 ${s.recall5.toFixed(3)} ${f(s)} MRR ${s.mrr.toFixed(3)} p95 ${s.p95_ms.toFixed(1)}`,
  );
}
