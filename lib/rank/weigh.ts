// Stages 3-4 of a ranking: the hard filters, the factor scores, the order (threads spread, superseded items marked)
// and the lists selection's guarantees read: pinned items, the rules that apply here, items tied to the situation.
import type { MemoryItem } from '../memory/types';
import type { RankRequest, Reason } from './types';
import type { QueryPlan } from './query';
import type { Retrieval, Signal } from './retrieve';
import type { Prepared } from './candidates';
import { filterReason, isListedInstruction } from './filters';
import { markSuperseded } from './supersede';
import { appliesBecause, scopeOf } from './scope';
import { overriddenInstructions } from './overridden-instructions';
import { scoreItem, type Scored } from './score';
import type { Decision, LazyScoredList } from './select';
import { explicitlyTied } from './situation';
import type { Tuning } from './tuning';
import type { LexicalSearcher } from '../memory/index/memory-view';
import { displayTitle, lastTouched } from '../core/items';

export interface ScoredMemory {
  plan: QueryPlan;
  retrieval: Retrieval;
  /** Candidates that passed the filters, best score first: the full order used before budget selection. */
  ranked: Scored[];
  /** Candidates removed by a hard filter, with the reason. */
  filtered: { item: MemoryItem; reason: Reason }[];
  pinned: Scored[];
  /** In-scope instructions, newest first; those retrieval did not score are scored when selection reaches them. */
  instructions: LazyScoredList;
  situated: Scored[];
}

/** The lists of an item retrieval did not find: empty, shared by the thousands of such candidates, never changed. */
const NONE = Object.freeze([]) as unknown as string[];

function emptySignal(id: string): Signal {
  return { id, semantic: 0, lexical: 0, matched: NONE, viaNeighbour: NONE, expanded: NONE, fused: 0 };
}

/** Stages 3-4 over the candidates: filters, scores, the order, and the lists guarantees read. No text of its own. */
export function weigh(req: RankRequest, p: Prepared, tuning: Tuning): ScoredMemory {
  const { task, memory, settings } = req;
  const { plan, retrieval } = p;
  const dismissed = new Set(req.dismissed ?? []);
  const used = new Set(req.recentlyUsed ?? []);
  const usedThreads = new Set<string>();
  for (const id of used) {
    const t = memory.head(id)?.thread?.id;
    if (t) usedThreads.add(t);
  }
  const ranked: Scored[] = [];
  const filtered: { item: MemoryItem; reason: Reason }[] = [];
  const scoreOf = (item: MemoryItem) =>
    scoreItem(item, retrieval.signals.get(item.id) ?? emptySignal(item.id), task, settings, used, usedThreads, req.now);
  // Instructions that retrieval did not find are scored only if selection reaches them (see LazyScoredList).
  const laterInstructions: MemoryItem[] = [];
  const passing: MemoryItem[] = [];
  for (const item of p.candidates.items()) {
    const why = filterReason(item, task, dismissed, p.near);
    if (why) filtered.push({ item, reason: why });
    else passing.push(item);
  }
  const overridden = overriddenInstructions(passing, req.overrides);
  for (const item of passing) {
    const by = overridden.get(item);
    if (by) {
      filtered.push({ item, reason: `Superseded by “${displayTitle(by)}” (newer, for the same scope)` });
      continue;
    }
    if (!item.pinned && isListedInstruction(item) && !retrieval.signals.has(item.id)) laterInstructions.push(item);
    else ranked.push(scoreOf(item));
  }
  ranked.sort(byScore);
  // Each step below reads the order the one before left; a step that moved no score needs no new sort.
  if (tuning.threadSpread > 0 && spreadThreads(ranked, tuning, memory.lexicalIndex)) ranked.sort(byScore);
  if (markSuperseded(ranked, memory)) ranked.sort(byScore);

  const pinned = ranked.filter((s) => s.item.pinned);
  // In-scope instructions most relevant first (`LazyScoredList`); each entry holds its item and, once scored, its score.
  const instr: { item: MemoryItem; s?: Scored; tier: number }[] = [];
  for (const s of ranked) if (!s.item.pinned && isListedInstruction(s.item)) instr.push({ item: s.item, s, tier: ruleTier(s.item) });
  for (const item of laterInstructions) instr.push({ item, tier: ruleTier(item) });
  instr.sort((a, b) => a.tier - b.tier || (b.s?.score ?? -1) - (a.s?.score ?? -1) || lastTouched(b.item) - lastTouched(a.item));
  const leftOut = new Map<number, Omit<Decision, 's' | 'included'>>();
  const instructions: LazyScoredList = {
    length: instr.length,
    at(i) {
      const x = instr[i];
      return x.s ?? (x.s = scoreOf(x.item));
    },
    peek: (i) => instr[i].s,
    item: (i) => instr[i].item,
    why: (i) => appliesBecause(instr[i].item, task, p.near),
    leaveOut: (i, why) => void leftOut.set(i, why),
    leftOut: (i) => leftOut.get(i),
  };
  const situated = ranked.filter((s) => !s.item.pinned && !isListedInstruction(s.item) && explicitlyTied(s.item, task));
  return { plan, retrieval, ranked, filtered, pinned, instructions, situated };
}

/** A rule with a condition (a subject, a person): when it applies, the task is about what it names. */
export function isConditional(item: MemoryItem): boolean {
  const k = scopeOf(item).kind;
  return item.kind === 'instruction' && (k === 'subject' || k === 'people');
}

/**
 * How specific a rule that applies here is: one whose condition the task meets (a subject, a person) says most about
 * this task, one for this kind of place or site less, one for everywhere least.
 */
function ruleTier(item: MemoryItem): number {
  if (isConditional(item)) return 0;
  const k = scopeOf(item).kind;
  return k === 'destination' || k === 'sites' ? 1 : 2;
}

/**
 * Past the first free items of a thread (`Tuning.threadFree`, `threadFreeShare` of its turns; ranked is best first),
 * each loses `threadSpread` of its score per place: a conversation that matches throughout makes room for other
 * conversations.
 */
function spreadThreads(ranked: Scored[], t: Tuning, index: LexicalSearcher): boolean {
  let moved = false;
  const seen = new Map<string, { n: number; free: number }>();
  for (const s of ranked) {
    const th = s.item.thread?.id;
    if (!th) continue;
    let at = seen.get(th);
    if (!at) seen.set(th, (at = { n: 0, free: Math.max(t.threadFree, Math.floor(t.threadFreeShare * index.threadSize(s.item.id))) }));
    const n = at.n++;
    if (n < at.free) continue;
    s.score *= Math.pow(1 - t.threadSpread, n - at.free + 1);
    s.threadPlace = n + 1;
    moved = true;
  }
  return moved;
}

/** Best score first; of equal scores the newer item. */
function byScore(a: Scored, b: Scored): number {
  return b.score - a.score || b.item.createdAt - a.item.createdAt;
}
