import type { MemoryItem } from '../memory/types';
import { cosine } from '../embed/embedder';
import type { RankRequest, RankResult, RankedCard, TraceEntry, TaskReading } from './types';
import { planQuery, type QueryPlan } from './query';
import { retrieve, type Retrieval, type Signal } from './retrieve';
import { filterReason, isListedInstruction } from './filters';
import { markSuperseded } from './supersede';
import { appliesBecause, scopeKey, scopeOf, supersessions, taskDestination } from './scope';
import { scoreItem, type Scored } from './score';
import { selectCards, type Decision, type LazyScoredList } from './select';
import { buildPackage, type Destination } from './package';
import { explainScore, scoreSummary } from './trace';
import { explicitlyTied, taskSituationKeys } from './situation';
import { terms } from '../memory/index/tokenize';
import { TUNING, type Tuning } from './tuning';
import { learnedReason, learnedWeightsFor } from '../learn/learner';
import { WEIGHT_NAMES, type FactorScores, type Weights } from './types';

export interface ScoredMemory {
  plan: QueryPlan;
  retrieval: Retrieval;
  /** Candidates that passed the filters, best score first: the full order used before budget selection. */
  ranked: Scored[];
  /** Candidates removed by a hard filter, with the reason. */
  filtered: { item: MemoryItem; reason: string }[];
  pinned: Scored[];
  /** In-scope instructions, newest first; those retrieval did not score are scored when selection reaches them. */
  instructions: LazyScoredList;
  situated: Scored[];
}

const now = () => (typeof performance !== 'undefined' ? performance.now() : Date.now());

function emptySignal(id: string): Signal {
  return { id, semantic: 0, lexical: 0, matched: [], viaNeighbour: [], expanded: [], fused: 0 };
}

/** Which package format the page wants. */
export function destinationOf(task: TaskReading): Destination {
  // One reading of where the task is (scope.ts); a document is written to like any other page.
  const d = taskDestination(task);
  return d === 'documents' ? 'generic' : d;
}

/**
 * Stages 1-4: query, hybrid retrieval, late hydration of the fused top candidates (plus what a guarantee may need),
 * hard filters, and the weighted factor score. Exposed so the bench can read the full order; the extension calls
 * `rankMemory`.
 */
export function scoreMemory(req: RankRequest, tuning: Tuning = TUNING): ScoredMemory {
  const { task, memory } = req;
  // Learned weights (the sliders times what feedback taught, lib/learn) score everything the sliders would.
  const settings = req.learned ? { ...req.settings, weights: learnedWeightsFor(req.settings.weights, req.learned, task.site) } : req.settings;
  const plan = planQuery(task);
  let qvs: Float32Array[] = [];
  let qw: number[] = [];
  if (req.queryVectors && req.queryVectors.length === plan.texts.length && plan.texts.length > 0) {
    qvs = req.queryVectors;
    qw = plan.weights;
  } else if (req.queryVector) {
    qvs = [req.queryVector];
    qw = [1];
  }
  const retrieval = retrieve(memory, plan, qvs, qw, settings.weights, tuning);

  // Late hydration: only the pool, pinned items, instructions and items tied to this situation are loaded.
  const hydrated = new Map<string, MemoryItem>();
  for (const id of retrieval.pool) {
    const it = memory.get(id);
    if (it) hydrated.set(id, it);
  }
  const flagged = memory.flagged ? memory.flagged() : [...memory.items()].filter((i) => i.pinned || i.kind === 'instruction' || i.sites.length > 0);
  for (const it of flagged) hydrated.set(it.id, it);
  const keys = taskSituationKeys(task);
  if (keys.length) {
    const tied = memory.situated ? memory.situated(keys) : memory.items();
    for (const it of tied) hydrated.set(it.id, it);
  }

  const dismissed = new Set(req.dismissed ?? []);
  const used = new Set(req.recentlyUsed ?? []);
  const usedThreads = new Set<string>();
  for (const id of used) {
    const t = memory.get(id)?.thread?.id;
    if (t) usedThreads.add(t);
  }
  const ranked: Scored[] = [];
  const filtered: { item: MemoryItem; reason: string }[] = [];
  const scoreOf = (item: MemoryItem) =>
    scoreItem(item, retrieval.signals.get(item.id) ?? emptySignal(item.id), task, settings, used, usedThreads, req.now);
  // Instructions that retrieval did not find are scored only if selection reaches them (see LazyScoredList).
  const laterInstructions: MemoryItem[] = [];
  const passing: MemoryItem[] = [];
  for (const item of hydrated.values()) {
    const why = filterReason(item, task, dismissed);
    if (why) filtered.push({ item, reason: why });
    else passing.push(item);
  }
  const superseded = supersededHere(passing);
  for (const item of passing) {
    const by = superseded.get(item);
    if (by) {
      filtered.push({ item, reason: `Superseded by “${by.title || by.text.slice(0, 60)}” (newer, for the same scope)` });
      continue;
    }
    if (!item.pinned && isListedInstruction(item) && !retrieval.signals.has(item.id)) laterInstructions.push(item);
    else ranked.push(scoreOf(item));
  }
  ranked.sort((a, b) => b.score - a.score || b.item.createdAt - a.item.createdAt);
  markSuperseded(ranked, memory);
  ranked.sort((a, b) => b.score - a.score || b.item.createdAt - a.item.createdAt);

  const pinned = ranked.filter((s) => s.item.pinned);
  const touched = (i: MemoryItem) => Math.max(i.createdAt || 0, i.updatedAt || 0);
  // In-scope instructions newest first; each entry holds its item and, once scored, its score (no type test per look).
  const instr: { item: MemoryItem; s?: Scored }[] = [];
  for (const s of ranked) if (!s.item.pinned && isListedInstruction(s.item)) instr.push({ item: s.item, s });
  for (const item of laterInstructions) instr.push({ item });
  instr.sort((a, b) => touched(b.item) - touched(a.item));
  const leftOut = new Map<number, Omit<Decision, 's' | 'included'>>();
  const instructions: LazyScoredList = {
    length: instr.length,
    at(i) {
      const x = instr[i];
      return x.s ?? (x.s = scoreOf(x.item));
    },
    peek: (i) => instr[i].s,
    item: (i) => instr[i].item,
    why: (i) => appliesBecause(instr[i].item, task),
    leaveOut: (i, why) => void leftOut.set(i, why),
    leftOut: (i) => leftOut.get(i),
  };
  const situated = ranked.filter((s) => !s.item.pinned && !isListedInstruction(s.item) && explicitlyTied(s.item, task));
  return { plan, retrieval, ranked, filtered, pinned, instructions, situated };
}

/**
 * The last supersessions found per scope: one memory's rankings meet the same instructions of a scope again and
 * again, and items never change in place (an edit makes a new item), so the same items give the same answer.
 */
const lastSupersessions = new Map<string, { group: MemoryItem[]; found: Map<MemoryItem, MemoryItem> }>();
const sameItems = (a: MemoryItem[], b: MemoryItem[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/** Instructions that apply here but contradict a newer one for the same scope: the older, and what superseded it. */
function supersededHere(items: MemoryItem[]): Map<MemoryItem, MemoryItem> {
  const touched = (i: MemoryItem) => Math.max(i.createdAt || 0, i.updatedAt || 0);
  const groups = new Map<string, MemoryItem[]>();
  for (const i of items) {
    if (i.kind !== 'instruction') continue;
    const key = scopeKey(scopeOf(i));
    const g = groups.get(key);
    if (g) g.push(i);
    else groups.set(key, [i]);
  }
  const out = new Map<MemoryItem, MemoryItem>();
  for (const [key, g] of groups) {
    if (g.length < 2) continue;
    g.sort((a, b) => touched(b) - touched(a));
    // Bounded for very large memories: the newest 200 of one scope.
    const newest = g.slice(0, 200);
    const last = lastSupersessions.get(key);
    const found = last && sameItems(last.group, newest) ? last.found : supersessions(newest);
    lastSupersessions.set(key, { group: newest, found });
    for (const [older, newer] of found) out.set(older, newer);
  }
  return out;
}

/** The ranker: cards for the panel, the context package, and a trace of every candidate. Pure and synchronous. */
export function rankMemory(req: RankRequest): RankResult {
  const t0 = now();
  const { settings, memory } = req;
  const sm = scoreMemory(req);
  const byId = new Map<string, Scored>();
  for (const s of sm.ranked) byId.set(s.item.id, s);

  // Selection compares the same few candidates many times: each vector is decoded once per ranking.
  const vectors = new Map<string, Float32Array | undefined>();
  const vectorOf = (id: string) => {
    if (!vectors.has(id)) vectors.set(id, memory.vector(id));
    return vectors.get(id);
  };
  const vecSim = (a: Scored, b: Scored): number | undefined => {
    const va = vectorOf(a.item.id);
    const vb = vectorOf(b.item.id);
    return va && vb && va.length === vb.length ? Math.max(0, cosine(va, vb)) : undefined;
  };
  const termSets = new Map<string, Set<string>>();
  const termSet = (s: Scored) => {
    let set = termSets.get(s.item.id);
    if (!set) termSets.set(s.item.id, (set = new Set(terms(s.item.text))));
    return set;
  };
  const sim = (a: Scored, b: Scored): number => {
    const v = vecSim(a, b);
    if (v !== undefined) return v;
    const A = termSet(a);
    const B = termSet(b);
    let inter = 0;
    for (const x of A) if (B.has(x)) inter++;
    const union = A.size + B.size - inter;
    return union ? inter / union : 0;
  };
  const childrenOf = (p: Scored): Scored[] => {
    const out: Scored[] = [];
    const idx = memory.lexicalIndex;
    if (!idx) return out;
    // The parent is the item whose id names the thread; its children are that thread's next items.
    for (let k = 1; k <= 8; k++) {
      const id = idx.neighbour(p.item.id, k);
      if (!id) break;
      const s = byId.get(id);
      if (s && s.item.thread?.id === p.item.id) out.push(s);
    }
    return out;
  };

  const { selected, decisions, unreached } = selectCards({
    ranked: sm.ranked,
    pinned: sm.pinned,
    instructions: sm.instructions,
    situated: sm.situated,
    childrenOf,
    settings,
    tuning: TUNING,
    sim,
  });

  const cards: RankedCard[] = panelOrder(selected).map((d) => ({
    item: d.s.item,
    kind: d.s.item.kind,
    score: d.s.score,
    factors: d.s.factors,
    matched: d.s.signal.matched,
    why: [...(d.guaranteed ? [d.reason] : []), ...explainScore(d.s)],
    ...(d.guaranteed ? { guaranteed: d.guaranteed } : {}),
  }));

  if (req.learned) markLearnedOrder(cards, req);

  const trace: TraceEntry[] = [];
  const entry = (d: Decision): TraceEntry => ({
    id: d.s.item.id,
    title: d.s.item.title || d.s.item.text.slice(0, 60),
    included: d.included,
    reason: (d.stage === 'selected' ? scoreSummary(d.s) : `${d.reason}. ${scoreSummary(d.s)}`) + learnedNote(d.s.item.id),
    score: d.s.score,
    factors: d.s.factors,
    contributions: d.s.contributions,
    stage: d.stage,
  });
  const learnedBy = new Map(cards.filter((c) => c.learned).map((c) => [c.item.id, c.learned!]));
  const learnedNote = (id: string) => (learnedBy.has(id) ? `. ${learnedBy.get(id)}` : '');
  for (const d of selected) trace.push(entry(d));
  for (const s of sm.ranked) {
    const d = decisions.get(s.item.id);
    if (d && !d.included) trace.push(entry(d));
    else if (!d) trace.push(entry({ s, included: false, stage: 'limit', reason: 'Not reached' }));
  }
  // Instructions selection reached are decided above; the rest (past the cap, never scored) are explained here.
  for (let i = 0; i < sm.instructions.length; i++) {
    const s = sm.instructions.peek(i);
    if (s && byId.has(s.item.id)) continue; // in `ranked`: traced above
    const d = s && decisions.get(s.item.id);
    if (d) {
      if (!d.included) trace.push(entry(d));
      continue;
    }
    const item = sm.instructions.item(i);
    const why = sm.instructions.leftOut(i) ?? unreached;
    if (why) trace.push({ id: item.id, title: item.title || item.text.slice(0, 60), included: false, reason: why.reason, stage: why.stage });
  }
  for (const f of sm.filtered)
    trace.push({ id: f.item.id, title: f.item.title || f.item.text.slice(0, 60), included: false, reason: f.reason, stage: 'filter' });

  const empty = !selected.some((d) => d.s.score >= settings.threshold);
  const pkg = buildPackage(cards, destinationOf(req.task), settings.budgetTokens);
  return { cards, trace, empty, query: sm.plan.texts[0] ?? '', tookMs: now() - t0, package: pkg };
}

/**
 * The order people see and the insert-top-card command takes: pinned cards first, then by score. Guarantees decide
 * what is included, not what comes first, so a rule that merely applies everywhere never outranks the evidence
 * the task is about. Children (later items of a selected item's thread) stay right after their parent.
 */
function panelOrder(selected: Decision[]): Decision[] {
  const ids = new Set(selected.map((d) => d.s.item.id));
  const parentOf = (d: Decision) => {
    const t = d.s.item.thread?.id;
    return t && t !== d.s.item.id && ids.has(t) ? t : undefined;
  };
  const heads = selected
    .filter((d) => !parentOf(d))
    .sort((a, b) => Number(b.s.item.pinned) - Number(a.s.item.pinned) || b.s.score - a.s.score);
  const out: Decision[] = [];
  for (const h of heads) {
    out.push(h);
    for (const c of selected) if (parentOf(c) === h.s.item.id) out.push(c);
  }
  for (const d of selected) if (!out.includes(d)) out.push(d);
  return out;
}

function weightedScore(w: Weights, x: FactorScores): number {
  let t = 0;
  let s = 0;
  for (const n of WEIGHT_NAMES) {
    t += Math.max(0, w[n]) * x[n];
    s += Math.max(0, w[n]);
  }
  return s > 0 ? t / s : 0;
}

/**
 * Says where a learned weight decided the order: a card above the next one that the sliders alone would have put
 * below it, and the learned change that made the difference.
 */
function markLearnedOrder(cards: RankedCard[], req: RankRequest): void {
  const base = req.settings.weights;
  const learned = learnedWeightsFor(base, req.learned, req.task.site);
  for (let i = 0; i + 1 < cards.length; i++) {
    const a = cards[i];
    const b = cards[i + 1];
    if (a.item.pinned || b.item.pinned || weightedScore(base, a.factors) >= weightedScore(base, b.factors)) continue;
    if (weightedScore(learned, a.factors) < weightedScore(learned, b.factors)) continue;
    // The factor whose learned change favoured this card most.
    let best: (typeof WEIGHT_NAMES)[number] | undefined;
    let gain = 0;
    for (const n of WEIGHT_NAMES) {
      const g = (learned[n] - base[n]) * (a.factors[n] - b.factors[n]);
      if (g > gain) {
        gain = g;
        best = n;
      }
    }
    const why = best && learnedReason(req.learned, base, req.task.site, best);
    if (!why) continue;
    a.learned = `Learned from your feedback: ${why}, so it is above “${(b.item.title || b.item.text).slice(0, 40)}”`;
    a.why.push(a.learned);
  }
}
