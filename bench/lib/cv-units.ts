/**
 * The units cross-validation folds: a LoCoMo conversation or a LongMemEval question, each imported once through the
 * product's path (bench/lib/product.ts: memory file, import reader, store, the store's own embedding) with its
 * questions' vectors, then ranked by `scoreMemory` (the ranker's full order, as bench:locomo's `backstory` row) under
 * any choice of constants. A choice's results on a unit are kept, so a choice met again costs nothing.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { Embedder } from '../../lib/embed/embedder';
import type { MemoryView } from '../../lib/memory/index/memory-view';
import { LexicalIndex } from '../../lib/memory/index/lexical-index';
import { scoreMemory } from '../../lib/rank/rank';
import { taskQueryTexts } from '../../lib/rank/query';
import type { TaskReading } from '../../lib/rank/types';
import { QueryVectorCache } from '../../lib/service/query-vectors';
import { loadConversations, LOCOMO_CATEGORIES, type Conversation } from './locomo-data';
import { readLmeQuestions } from './longmemeval-data';
import { benchTask } from './prepare';
import { importedMemory } from './product';
import { ndcgAt, recallAllAt, recallAt } from './metrics';
import { applyChoice } from './cv-knobs';
import { choiceKey, type Choice } from './cv-folds';

export type DataSet = 'locomo' | 'lme';

/** One question's figures under one choice (LoCoMo reads r10; LongMemEval all10 and ndcg10). */
export interface QuestionFigures {
  r10: number;
  all10: number;
  ndcg10: number;
}

interface UnitQuestion {
  task: TaskReading;
  queryVectors: Float32Array[];
  relevant: Set<string>;
  category: string;
}

export interface Unit {
  set: DataSet;
  id: string;
  view: MemoryView;
  lexical: LexicalIndex;
  now: number;
  questions: UnitQuestion[];
  /** Plain BM25's figures (the benches' baseline), per question. */
  bm25: QuestionFigures[];
}

export function figures(ranked: string[], relevant: Set<string>): QuestionFigures {
  return { r10: recallAt(ranked, relevant, 10), all10: recallAllAt(ranked, relevant, 10), ndcg10: ndcgAt(ranked, relevant, 10) };
}

async function unitOf(
  set: DataSet,
  conv: Conversation,
  qs: { question: string; relevant: Set<string>; category: string }[],
  baselineText: (it: Conversation['items'][number]) => string,
  embedder: Embedder,
): Promise<Unit> {
  const store = await importedMemory(conv, embedder);
  const lexical = store.view.lexicalIndex;
  if (!(lexical instanceof LexicalIndex)) throw new Error(`${conv.id}: the store's word index is not a LexicalIndex; its options cannot be varied`);
  const queries = new QueryVectorCache();
  const plain = new LexicalIndex();
  for (const it of conv.items) plain.add(it.id, baselineText(it));
  const questions: UnitQuestion[] = [];
  const bm25: QuestionFigures[] = [];
  for (const q of qs) {
    const task = benchTask(q.question, conv.now);
    const texts = taskQueryTexts(task).filter((x) => x.trim());
    questions.push({ task, queryVectors: await Promise.all(texts.map((x) => queries.get(embedder, x))), relevant: q.relevant, category: q.category });
    bm25.push(figures(plain.search(LexicalIndex.queryTerms(q.question), conv.items.length).map((h) => h.id), q.relevant));
  }
  return { set, id: conv.id, view: store.view, lexical, now: conv.now, questions, bm25 };
}

/** LoCoMo's conversations as units (`range` 1-based, inclusive), baseline text as bench:locomo indexes it. */
export async function locomoUnits(file: string, embedder: Embedder, range?: [number, number]): Promise<Unit[]> {
  let convs = loadConversations(JSON.parse(readFileSync(file, 'utf8')) as unknown[]);
  if (range) convs = convs.slice(range[0] - 1, range[1]);
  const out: Unit[] = [];
  for (const c of convs) {
    process.stderr.write(`\r  importing LoCoMo ${c.id}   `);
    const qs = c.questions.map((q) => ({ ...q, category: LOCOMO_CATEGORIES[q.category ?? 0] ?? `category ${q.category}` }));
    out.push(await unitOf('locomo', c, qs, (it) => `${it.title} ${it.people.join(' ')}: ${it.text} ${it.aux ?? ''}`, embedder));
  }
  return out;
}

/** LongMemEval's questions with evidence as units, baseline text as bench:longmemeval indexes it. */
export async function lmeUnits(file: string, embedder: Embedder, range?: [number, number]): Promise<Unit[]> {
  const out: Unit[] = [];
  for (const q of readLmeQuestions(file, range)) {
    if (!q.relevant.size) continue; // nothing to find (an abstention question)
    process.stderr.write(`\r  importing LongMemEval ${q.id} (${out.length + 1})   `);
    out.push(await unitOf('lme', q, [{ question: q.question, relevant: q.relevant, category: q.type }], (it) => `${it.title}: ${it.text}`, embedder));
  }
  process.stderr.write('\n');
  return out;
}

/**
 * Each unit's figures under a choice, worked out once per (unit, choice); with a memo file, kept on disk as well
 * (written every minute and by `save`), so a stopped run resumes.
 */
export class UnitRanker {
  private readonly memo = new Map<string, QuestionFigures[]>();
  private savedAt = performance.now();
  rankings = 0;
  constructor(
    readonly units: readonly Unit[],
    private readonly memoFile?: string,
  ) {
    if (memoFile && existsSync(memoFile)) for (const [k, v] of Object.entries(JSON.parse(readFileSync(memoFile, 'utf8')) as Record<string, QuestionFigures[]>)) this.memo.set(k, v);
  }

  async figures(u: number, choice: Choice): Promise<QuestionFigures[]> {
    const unit = this.units[u];
    const key = `${unit.set}:${unit.id}|${choiceKey(choice)}`;
    let f = this.memo.get(key);
    if (!f) {
      const a = applyChoice(choice);
      unit.lexical.configure(a.lexical);
      f = [];
      for (const q of unit.questions) {
        const sm = await scoreMemory({ task: q.task, memory: unit.view, settings: a.settings, queryVectors: q.queryVectors, now: unit.now }, a.tuning);
        f.push(figures(sm.ranked.map((s) => s.item.id), q.relevant));
      }
      this.rankings += f.length;
      this.memo.set(key, f);
      process.stderr.write(`\r  ${this.rankings} rankings, ${this.memo.size} unit results   `);
      if (performance.now() - this.savedAt > 60_000) this.save();
    }
    return f;
  }

  save(): void {
    if (!this.memoFile) return;
    writeFileSync(this.memoFile + '.tmp', JSON.stringify(Object.fromEntries(this.memo)));
    renameSync(this.memoFile + '.tmp', this.memoFile);
    this.savedAt = performance.now();
  }
}
