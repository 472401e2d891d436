/**
 * Developer tool: compare ranker tuning variants on LoCoMo (prepared dev data) and LongMemEval (questions whose
 * vectors are already in the bench cache) in one run, so no change is judged on one benchmark alone. Not part of the
 * bench commands.
 * Usage: [BENCH_DATASETS=DIR] [EXPLORE_DUMP=FILE] npx tsx bench/lib/explore.ts '[["name", {tuning overrides}, {weight overrides}?, {lexical options}?], ...]' [LME A-B]
 * The first line is plain BM25 on the same LongMemEval questions (the bench's baseline). EXPLORE_DUMP writes each
 * variant's top 20 per LongMemEval question, with the evidence turns' places and signals, to read what outranks them.
 * Each variant's line ends with where LoCoMo's evidence turns that miss the top 10 are: never a candidate, a candidate
 * left out of the pool (never hydrated or scored), or ranked 11-20 or further; and R@5 / R@10 / MRR to four places,
 * since a variant is often judged on a difference of one question (1/760 ≈ 0.0013).
 */
import { writeFileSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_SETTINGS } from '../../lib/settings/defaults';
import { rankMemory, scoreMemory } from '../../lib/rank/rank';
import { TUNING, type Tuning } from '../../lib/rank/tuning';
import type { RankSettings } from '../../lib/rank/types';
import { LexicalIndex, type LexicalIndexOptions } from '../../lib/memory/index/lexical-index';
import { AllAnyTally, Tally, recallAt, reciprocalRank } from './metrics';
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
// The baseline beside every variant: plain BM25 over "Role: text" of the same turns (what bench:longmemeval reports).
const bm25Ranks: string[][] = [];
{
  const bm = new AllAnyTally();
  let top5 = 0;
  lme.forEach((p, i) => {
    const plain = new LexicalIndex();
    for (const it of p.conv.items) plain.add(it.id, `${it.title}: ${it.text}`);
    const ids = plain.search(LexicalIndex.queryTerms(lmeQs[i].question), p.conv.items.length).map((h) => h.id);
    bm.add(ids, p.questions[0].relevant);
    bm25Ranks.push(ids);
    top5 += new Set(ids.slice(0, 5).map((id) => lmeQs[i].sessionOf.get(id))).size;
  });
  const t = bm.stats();
  console.log(`${'bm25'.padEnd(22)} | ${' '.repeat(62)} | LME(${lme.length}) all@5 ${f(t.recall_all5)} all@10 ${f(t.recall_all10)} nDCG ${f(t.ndcg10)} top5 sessions ${(top5 / lme.length).toFixed(1)}`);
}
// EXPLORE_DUMP=FILE: each variant's top 20 per LME question with its signals, for reading traces.
const dump: Record<string, unknown> = {};
for (const [name, tune, w, lex] of variants) {
  // Lexical scoring options (4th element) apply on top of the index's defaults.
  for (const p of [...locomo, ...lme]) (p.view.lexicalIndex as LexicalIndex).configure({ ...defaults, ...(lex ?? {}) });
  const settings = { ...DEFAULT_SETTINGS, weights: { ...DEFAULT_SETTINGS.weights, ...(w ?? {}) } };
  const tuning = { ...TUNING, ...tune };
  const loc = new Tally();
  const locCards = new Tally();
  const exact = { r5: 0, r10: 0, rr: 0, n: 0 };
  const misses = { evidence: 0, notCandidate: 0, outsidePool: 0, near: 0, far: 0 };
  for (const p of locomo)
    for (const q of p.questions) {
      const req = { task: q.task, memory: p.view, settings, queryVector: q.vectors[0], queryVectors: q.vectors, now: p.conv.now };
      const sm = await scoreMemory(req, tuning);
      const ids = sm.ranked.map((s) => s.item.id);
      loc.add(ids, q.relevant, 0);
      exact.r5 += recallAt(ids, q.relevant, 5);
      exact.r10 += recallAt(ids, q.relevant, 10);
      exact.rr += reciprocalRank(ids, q.relevant);
      exact.n++;
      for (const id of q.relevant) {
        misses.evidence++;
        const at = ids.indexOf(id);
        if (at >= 0 && at < 10) continue;
        if (!sm.retrieval.signals.has(id)) misses.notCandidate++;
        else if (!sm.retrieval.pool.includes(id)) misses.outsidePool++;
        else if (at >= 0 && at < 20) misses.near++;
        else misses.far++;
      }
      // A LoCoMo question with evidence placed 6-20: the ones R@5 or R@10 lose, with what outranks them.
      if (process.env.EXPLORE_DUMP && [...q.relevant].some((id) => ids.indexOf(id) >= 5 && ids.indexOf(id) < 20))
        dump[`${name}#locomo:${p.conv.id}:${q.task.field?.text}`] = {
          relevant: [...q.relevant].map((id) => {
            const s = sm.ranked.find((r) => r.item.id === id);
            return { id, rank: ids.indexOf(id) + 1, score: s?.score, sem: s?.signal.semantic, lex: s?.signal.lexical, matched: s?.signal.matched, via: s?.signal.viaNeighbour, text: s ? s.item.title + ': ' + s.item.text.slice(0, 100) : undefined };
          }),
          top: sm.ranked.slice(0, 12).map((s) => ({
            id: s.item.id, rel: q.relevant.has(s.item.id), score: +s.score.toFixed(3), sem: +s.signal.semantic.toFixed(3), lex: +s.signal.lexical.toFixed(3),
            matched: s.signal.matched, via: s.signal.viaNeighbour, text: s.item.title + ': ' + s.item.text.slice(0, 80),
          })),
        };
      locCards.add((await rankMemory(req, tuning)).cards.map((c) => c.item.id), q.relevant, 0);
    }
  const turns = new AllAnyTally();
  const cards = new AllAnyTally();
  let top5 = 0;
  let nCards = 0;
  for (const [i, p] of lme.entries()) {
    const q = p.questions[0];
    const req = { task: q.task, memory: p.view, settings, queryVector: q.vectors[0], queryVectors: q.vectors, now: p.conv.now };
    const sm = await scoreMemory(req, tuning);
    const ids = sm.ranked.map((s) => s.item.id);
    turns.add(ids, q.relevant);
    if (process.env.EXPLORE_DUMP)
      dump[`${name}#${i + lmeRange[0]}`] = {
        question: lmeQs[i].question,
        relevant: [...q.relevant].map((id) => {
          const s = sm.ranked.find((r) => r.item.id === id);
          const sg = sm.retrieval.signals.get(id);
          return { id, rank: ids.indexOf(id) + 1, bm25: bm25Ranks[i].indexOf(id) + 1, score: s?.score, sem: sg?.semantic, lex: sg?.lexical, matched: sg?.matched, text: s ? s.item.title + ': ' + s.item.text.slice(0, 100) : undefined };
        }),
        top: sm.ranked.slice(0, 20).map((s) => ({
          id: s.item.id, rel: q.relevant.has(s.item.id), score: +s.score.toFixed(3), sem: +s.signal.semantic.toFixed(3), lex: +s.signal.lexical.toFixed(3),
          rec: +s.factors.recency.toFixed(3), matched: s.signal.matched, via: s.signal.viaNeighbour, text: s.item.title + ': ' + s.item.text.slice(0, 100),
        })),
      };
    top5 += new Set(ids.slice(0, 5).map((id) => lmeQs[i].sessionOf.get(id))).size;
    const c = (await rankMemory(req, tuning)).cards.map((x) => x.item.id);
    nCards += c.length;
    cards.add(c, q.relevant);
  }
  const l = loc.stats();
  const t = turns.stats();
  console.log(
    `${name.padEnd(22)} | LoCoMo R@5 ${f(l.recall5)} R@10 ${f(l.recall10)} nDCG ${f(l.ndcg10)} MRR ${f(l.mrr)} cardsR@10 ${f(locCards.stats().recall10)} | LME(${lme.length}) all@5 ${f(t.recall_all5)} all@10 ${f(t.recall_all10)} nDCG ${f(t.ndcg10)} cards all ${f(cards.stats().recall_all10)} (${(nCards / lme.length).toFixed(1)}/q) top5 sessions ${(top5 / lme.length).toFixed(1)}`,
  );
  const m = misses;
  const x4 = (v: number) => (v / (exact.n || 1)).toFixed(4);
  console.log(
    `${''.padEnd(22)} | LoCoMo R@5 ${x4(exact.r5)} R@10 ${x4(exact.r10)} MRR ${x4(exact.rr)}; evidence missing the top 10: ${m.notCandidate + m.outsidePool + m.near + m.far} of ${m.evidence} (never a candidate ${m.notCandidate}, outside the pool ${m.outsidePool}, places 11-20 ${m.near}, further ${m.far})`,
  );
}
if (process.env.EXPLORE_DUMP) writeFileSync(process.env.EXPLORE_DUMP, JSON.stringify(dump, null, 1));
