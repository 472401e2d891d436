/**
 * Developer tool: compare ranker tuning variants on LoCoMo (prepared dev data) and LongMemEval (questions whose
 * vectors are already in the bench cache) in one run, so no change is judged on one benchmark alone. Not part of the
 * bench commands.
 * Usage: [BENCH_DATASETS=DIR] npx tsx bench/lib/explore.ts '[["name", {tuning overrides}, {weight overrides}?, {lexical options}?], ...]' [LME A-B]
 */
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_SETTINGS } from '../../lib/settings/defaults';
import { rankMemory, scoreMemory } from '../../lib/rank/rank';
import { TUNING, type Tuning } from '../../lib/rank/tuning';
import type { RankSettings } from '../../lib/rank/types';
import type { LexicalIndex, LexicalIndexOptions } from '../../lib/memory/index/lexical-index';
import { AllAnyTally, Tally } from './metrics';
import { openBenchCache, prepare, prepareConversations } from './prepare';
import { readLmeQuestions } from './longmemeval-data';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const DATASETS = process.env.BENCH_DATASETS ?? join(ROOT, '..', 'shared', 'datasets');
const variants: [string, Partial<Tuning>, Partial<RankSettings['weights']>?, LexicalIndexOptions?][] = JSON.parse(process.argv[2] ?? '[["default",{}]]');
const lmeRange = (process.argv[3] ?? '1-2').split('-').map(Number) as [number, number];
const locomo = await prepare(join(DATASETS, 'locomo-dev.json'), undefined, ROOT);
const lmeQs = readLmeQuestions(join(DATASETS, 'longmemeval-s-dev.json'), lmeRange);
const lme = await prepareConversations(lmeQs, 'q8', openBenchCache(ROOT, 'q8'));
const f = (x: number) => x.toFixed(3);
const defaults = (locomo[0].view.lexicalIndex as LexicalIndex).options();
for (const [name, tune, w, lex] of variants) {
  // Lexical scoring options (4th element) apply on top of the index's defaults.
  for (const p of [...locomo, ...lme]) (p.view.lexicalIndex as LexicalIndex).configure({ ...defaults, ...(lex ?? {}) });
  const settings = { ...DEFAULT_SETTINGS, weights: { ...DEFAULT_SETTINGS.weights, ...(w ?? {}) } };
  const tuning = { ...TUNING, ...tune };
  const loc = new Tally();
  const locCards = new Tally();
  for (const p of locomo)
    for (const q of p.questions) {
      const req = { task: q.task, memory: p.view, settings, queryVector: q.vectors[0], queryVectors: q.vectors, now: p.conv.now };
      loc.add(scoreMemory(req, tuning).ranked.map((s) => s.item.id), q.relevant, 0);
      locCards.add(rankMemory(req, tuning).cards.map((c) => c.item.id), q.relevant, 0);
    }
  const turns = new AllAnyTally();
  const cards = new AllAnyTally();
  let top5 = 0;
  let nCards = 0;
  lme.forEach((p, i) => {
    const q = p.questions[0];
    const req = { task: q.task, memory: p.view, settings, queryVector: q.vectors[0], queryVectors: q.vectors, now: p.conv.now };
    const ids = scoreMemory(req, tuning).ranked.map((s) => s.item.id);
    turns.add(ids, q.relevant);
    top5 += new Set(ids.slice(0, 5).map((id) => lmeQs[i].sessionOf.get(id))).size;
    const c = rankMemory(req, tuning).cards.map((x) => x.item.id);
    nCards += c.length;
    cards.add(c, q.relevant);
  });
  const l = loc.stats();
  const t = turns.stats();
  console.log(
    `${name.padEnd(22)} | LoCoMo R@5 ${f(l.recall5)} R@10 ${f(l.recall10)} nDCG ${f(l.ndcg10)} cardsR@10 ${f(locCards.stats().recall10)} | LME(${lme.length}) all@5 ${f(t.recall_all5)} all@10 ${f(t.recall_all10)} nDCG ${f(t.ndcg10)} cards all ${f(cards.stats().recall_all10)} (${(nCards / lme.length).toFixed(1)}/q) top5 sessions ${(top5 / lme.length).toFixed(1)}`,
  );
}
