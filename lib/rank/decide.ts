// The decision over the weighed candidates: selection under the budget, the panel's cards in their order, the trace
// of every candidate and the context package, and whether memory held anything relevant at all.
import type { MemoryItem } from '../memory/types';
import type { RankRequest, RankResult, RankedCard, ScoreNotes, TraceEntry } from './types';
import type { Prepared } from './candidates';
import { isConditional, weigh } from './weigh';
import type { Scored } from './score';
import { selectCards, type Decision } from './select';
import { buildPackage } from './package';
import { explainNotes, reasonText, scoreNotes } from './trace';
import { terms } from '../memory/index/tokenize';
import { likeness } from './likeness';
import type { Tuning } from './tuning';
import { displayTitle } from '../core/items';

const NOTHING_RELEVANT = 'Nothing in memory is relevant to this task: a rule or pinned item is shown only beside something that is';

/** Whether a note over the threshold was left out only for want of room: in the budget, or among the cards shown. */
function someRefusedForRoom(decisions: Map<string, Decision>, threshold: number): boolean {
  for (const d of decisions.values())
    if ((d.stage === 'budget' || d.stage === 'limit') && d.s.item.kind !== 'instruction' && d.s.score >= threshold) return true;
  return false;
}

/** Stages 3-7 once the candidates are read: scores, selection, cards, trace and package. Reads no text it was not given. */
export function decide(req: RankRequest, p: Prepared, tuning: Tuning): Omit<RankResult, 'tookMs'> {
  const { settings, memory } = req;
  const sm = weigh(req, p, tuning);
  const byId = new Map<string, Scored>();
  for (const s of sm.ranked) byId.set(s.item.id, s);

  // Selection compares the same few candidates many times: each vector is decoded once per ranking.
  const vectors = new Map<string, Float32Array | undefined>();
  const vectorOf = (id: string) => {
    if (!vectors.has(id)) vectors.set(id, memory.vector(id));
    return vectors.get(id);
  };
  const termSets = new Map<string, Set<string>>();
  const termSet = (s: Scored) => {
    let set = termSets.get(s.item.id);
    if (!set) termSets.set(s.item.id, (set = new Set(terms(s.item.text))));
    return set;
  };
  const sim = (a: Scored, b: Scored): number => {
    const l = likeness(vectorOf(a.item.id), vectorOf(b.item.id), () => [termSet(a), termSet(b)]);
    return l.by === 'meaning' ? Math.max(0, l.value) : l.value;
  };
  const childrenOf = (p: Scored): Scored[] => {
    const out: Scored[] = [];
    const idx = memory.lexicalIndex;
    // The parent is the item whose id names the thread; its children are that thread's next items.
    for (let k = 1; k <= 8; k++) {
      const id = idx.neighbour(p.item.id, k);
      if (!id) break;
      const s = byId.get(id);
      if (s && s.item.thread?.id === p.item.id) out.push(s);
    }
    return out;
  };

  const chosen = selectCards({
    ranked: sm.ranked,
    pinned: sm.pinned,
    instructions: sm.instructions,
    situated: sm.situated,
    childrenOf,
    settings,
    tuning,
    sim,
  });
  const { decisions, unreached } = chosen;
  // Nothing relevant found: rules that merely apply here (everywhere, on this site) and pinned items make no cards
  // on their own, so the panel's empty state never shows beside them. What is relevant: a note over the threshold or
  // tied to the situation, a rule whose condition the task meets (it is about its subject, or for its person). A
  // rule's own score says how well its words match, not that memory holds anything about the task. A note over the
  // threshold that pinned items left no room for (in the budget or among the cards) is relevant too: the panel says it
  // did not fit, not that none is.
  const relevant = (d: Decision) =>
    d.s.item.kind === 'instruction' ? isConditional(d.s.item) : d.s.score >= settings.threshold || d.guaranteed === 'situation';
  const empty = !chosen.selected.some(relevant) && !someRefusedForRoom(decisions, settings.threshold);
  const selected = empty ? [] : chosen.selected;
  if (empty)
    for (const d of chosen.selected)
      decisions.set(d.s.item.id, { ...d, included: false, stage: 'threshold', reason: NOTHING_RELEVANT, guaranteed: undefined });

  // A card shows its text: a stand-in selected is read, and the ranking weighed again with it.
  for (const d of selected) p.candidates.want(d.s.item);

  // A card's explanation and its trace entry's are made from the same notes; only a card's words are read now.
  const cardNotes = new Map<Scored, ScoreNotes>();
  const cards: RankedCard[] = panelOrder(selected).map((d) => {
    const notes = scoreNotes(d.s, true);
    cardNotes.set(d.s, notes);
    return {
      item: d.s.item,
      kind: d.s.item.kind,
      score: d.s.score,
      factors: d.s.factors,
      matched: d.s.signal.matched,
      ...(d.s.signal.passages ? { passages: d.s.signal.passages } : {}),
      why: [...(d.guaranteed ? [reasonText(d.reason)] : []), ...explainNotes(d.s.contributions, notes)],
      ...(d.guaranteed ? { guaranteed: d.guaranteed } : {}),
    };
  });

  // Hundreds of candidates are traced and the panel shows a few: entries carry numbers and notes, put in words
  // where they are shown (`traceReason`).
  const trace: TraceEntry[] = [];
  // A stand-in's title is read where its entry is shown (`untitled`): the panel shows a few of thousands.
  const untitled = (e: TraceEntry, item: MemoryItem): TraceEntry => {
    if (p.candidates.isUnread(item)) e.untitled = true;
    return e;
  };
  const titleOf = (item: MemoryItem) => (p.candidates.isUnread(item) ? '' : displayTitle(item));
  const entry = (d: Decision): TraceEntry =>
    untitled(
      {
        id: d.s.item.id,
        title: titleOf(d.s.item),
        included: d.included,
        decided: d.reason,
        score: d.s.score,
        contributions: d.s.contributions,
        notes: cardNotes.get(d.s) ?? scoreNotes(d.s, false),
        stage: d.stage,
      },
      d.s.item,
    );
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
    if (why) trace.push({ id: item.id, title: displayTitle(item), included: false, decided: why.reason, stage: why.stage });
  }
  for (const f of sm.filtered)
    trace.push(untitled({ id: f.item.id, title: titleOf(f.item), included: false, decided: f.reason, stage: 'filter' }, f.item));

  const pkg = buildPackage(cards, req.task.destination, settings.budgetTokens);
  return { cards, trace, empty, query: sm.plan.texts[0] ?? '', package: pkg };
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
