import type { RankSettings, TraceStage } from './types';
import type { Scored } from './score';
import type { Tuning } from './tuning';
import type { MemoryItem } from '../memory/types';
import { countTokens } from '../memory/tokens';
import { displayTitle } from '../core/items';

export type Guarantee = 'pinned' | 'instruction' | 'situation' | 'child';

export interface Decision {
  s: Scored;
  included: boolean;
  stage: TraceStage;
  reason: string;
  guaranteed?: Guarantee;
  /** Redundancy with the closest already-selected card, when it mattered. */
  similarTo?: { title: string; sim: number };
}

/**
 * Global instructions, newest first, scored only when selection reaches them: past the cap an instruction's score
 * cannot change the outcome, so of hundreds only the first few (and any that retrieval scored anyway) are scored.
 */
export interface LazyScoredList {
  readonly length: number;
  /** Entry i, scored now if it was not yet. */
  at(i: number): Scored;
  /** Entry i if it is scored, without scoring it. */
  peek(i: number): Scored | undefined;
  /** The item of entry i. */
  item(i: number): MemoryItem;
  /** Why entry i applies here (its scope), for the card. */
  why(i: number): string;
  /** Records why entry i, never scored, was left out (its size alone decided it). */
  leaveOut(i: number, why: Omit<Decision, 's' | 'included'>): void;
  /** What `leaveOut` recorded for entry i. */
  leftOut(i: number): Omit<Decision, 's' | 'included'> | undefined;
}

export interface SelectInput {
  /** Candidates that passed the filters, best score first. */
  ranked: Scored[];
  pinned: Scored[];
  /** Instructions whose scope matches the task, newest first. */
  instructions: LazyScoredList;
  /** Items tied to this situation, best first. */
  situated: Scored[];
  /** Children of an item (its thread after it), loaded on demand. */
  childrenOf: (s: Scored) => Scored[];
  settings: RankSettings;
  tuning: Tuning;
  /** Similarity in [0, 1] of two items (cosine of embeddings, or word overlap). */
  sim: (a: Scored, b: Scored) => number;
}

/** Tokens a card takes in the package: its text plus a line of framing. */
export function cardTokens(s: Scored): number {
  return itemCardTokens(s.item);
}

function itemCardTokens(item: MemoryItem): number {
  return (item.tokens || countTokens(item.text)) + 6;
}

const pct = (x: number) => `${Math.round(x * 100)}%`;
const quote = (s: Scored) => `"${displayTitle(s.item, 40)}"`;

/**
 * Guarantees first (pinned, global instructions, this situation), then the rest by score with a redundancy
 * penalty that grows as the budget fills (MMR), then an exact small knapsack for the last slots.
 */
export function selectCards(inp: SelectInput): {
  selected: Decision[];
  decisions: Map<string, Decision>;
  /** Why the instructions selection never scored were left out (all for the same reason). */
  unreached?: Omit<Decision, 's' | 'included'>;
} {
  const { settings, tuning } = inp;
  const budget = Math.max(0, settings.budgetTokens);
  const maxCards = Math.max(0, settings.maxCards);
  const decisions = new Map<string, Decision>();
  const selected: Decision[] = [];
  let used = 0;
  let instrUsed = 0;
  const instrCap = tuning.instructionShare * budget;

  const decide = (d: Decision) => {
    decisions.set(d.s.item.id, d);
    if (d.included) {
      selected.push(d);
      used += cardTokens(d.s);
      if (d.s.item.kind === 'instruction') instrUsed += cardTokens(d.s);
    }
  };
  const fits = (s: Scored) => used + cardTokens(s) <= budget;
  const noRoom = (s: Scored): Decision => ({
    s,
    included: false,
    stage: 'budget',
    reason: `Did not fit the ${budget}-token budget (needs ${cardTokens(s)}, ${Math.max(0, budget - used)} left)`,
  });
  const full = (s: Scored): Decision => ({
    s,
    included: false,
    stage: 'limit',
    reason: `Beyond the ${maxCards} cards shown`,
  });

  const pullChildren = (parent: Scored) => {
    let n = 0;
    for (const c of inp.childrenOf(parent)) {
      if (n >= tuning.childCap || decisions.has(c.item.id)) continue;
      if (selected.length >= maxCards) decide(full(c));
      else if (!fits(c)) decide(noRoom(c));
      else {
        decide({ s: c, included: true, stage: 'guarantee', reason: `Follows ${quote(parent)} in its thread`, guaranteed: 'child' });
        n++;
      }
    }
  };
  const guarantee = (s: Scored, g: Guarantee, reason: string, extraRoom = true) => {
    if (decisions.has(s.item.id)) return;
    if (selected.length >= maxCards) return decide(full(s));
    if (!fits(s) || !extraRoom) return decide(noRoom(s));
    decide({ s, included: true, stage: 'guarantee', reason, guaranteed: g });
    pullChildren(s);
  };

  for (const s of inp.pinned) guarantee(s, 'pinned', 'Pinned: always included');
  let nInstr = 0;
  // Once the cap is met or the cards are full no further instruction can be included: from there on only those
  // scored anyway are decided here, and `unreached` says why for the others.
  let unreached: Omit<Decision, 's' | 'included'> | undefined;
  const shareFull = `Instructions may take ${pct(tuning.instructionShare)} of the budget; this one did not fit`;
  for (let i = 0; i < inp.instructions.length; i++) {
    if (!unreached && nInstr >= tuning.instructionCap)
      unreached = { stage: 'limit', reason: `Only the ${tuning.instructionCap} newest instructions are included` };
    else if (!unreached && selected.length >= maxCards) unreached = { stage: 'limit', reason: `Beyond the ${maxCards} cards shown` };
    let s = inp.instructions.peek(i);
    if (!s && !unreached) {
      // Whether it can be included at all follows from its size: only then is its score worth computing.
      const need = itemCardTokens(inp.instructions.item(i));
      if (instrUsed + need > instrCap) {
        inp.instructions.leaveOut(i, { stage: 'budget', reason: shareFull });
        continue;
      }
      if (used + need > budget) {
        inp.instructions.leaveOut(i, { stage: 'budget', reason: `Did not fit the ${budget}-token budget (needs ${need}, ${Math.max(0, budget - used)} left)` });
        continue;
      }
      s = inp.instructions.at(i);
    }
    if (!s || decisions.has(s.item.id)) continue;
    if (nInstr >= tuning.instructionCap) {
      decide({ s, included: false, stage: 'limit', reason: `Only the ${tuning.instructionCap} newest instructions are included` });
      continue;
    }
    const roomInShare = instrUsed + cardTokens(s) <= instrCap;
    guarantee(s, 'instruction', inp.instructions.why(i), roomInShare);
    if (decisions.get(s.item.id)?.included) nInstr++;
    else if (!roomInShare) decisions.get(s.item.id)!.reason = shareFull;
  }
  let nSit = 0;
  for (const s of inp.situated) {
    if (decisions.has(s.item.id) || nSit >= tuning.situationCap) continue;
    guarantee(s, 'situation', `Tied to this situation: ${s.situationReasons.join(', ')}`);
    if (decisions.get(s.item.id)?.included) nSit++;
  }

  // Scored selection (MMR): pick the best adjusted score, where the penalty for resembling a selected card grows
  // with the share of the budget already used.
  const rest = inp.ranked.filter((s) => !decisions.has(s.item.id));
  // The most similar selected card so far, per candidate: `selected` only grows, so each pair is compared once and
  // the scan in selection order (first of equals kept) continues where it stopped.
  const nearest = new Map<Scored, { sim: number; to?: Scored; seen: number }>();
  const closest = (s: Scored): { sim: number; to?: Scored } => {
    let c = nearest.get(s);
    if (!c) nearest.set(s, (c = { sim: 0, to: undefined, seen: 0 }));
    for (; c.seen < selected.length; c.seen++) {
      const d = selected[c.seen];
      const x = inp.sim(s, d.s);
      if (x > c.sim) {
        c.sim = x;
        c.to = d.s;
      }
    }
    return c;
  };
  const open = new Set(rest);
  const reject = (s: Scored, d: Omit<Decision, 's' | 'included'>) => {
    open.delete(s);
    decide({ s, included: false, ...d });
  };
  const threshold = settings.threshold.toFixed(2);
  for (const s of rest)
    if (s.score < settings.threshold) reject(s, { stage: 'threshold', reason: `Not relevant enough (${s.score.toFixed(2)} < ${threshold})` });

  while (open.size) {
    const fill = budget > 0 ? Math.min(1, used / budget) : 1;
    let pick: Scored | undefined;
    let pickAdj = -Infinity;
    for (const s of [...open]) {
      const c = closest(s);
      if (c.to && c.sim >= tuning.duplicateSim) {
        reject(s, {
          stage: 'redundancy',
          reason: `Says the same as ${quote(c.to)} (${pct(c.sim)} similar)`,
          similarTo: { title: c.to.item.title, sim: c.sim },
        });
        continue;
      }
      const adj = s.score - tuning.redundancy * fill * c.sim;
      if (adj < settings.threshold && c.to && c.sim > 0) {
        reject(s, {
          stage: 'redundancy',
          reason: `Mostly repeats ${quote(c.to)} (${pct(c.sim)} similar) and the budget is ${pct(fill)} full`,
          similarTo: { title: c.to.item.title, sim: c.sim },
        });
        continue;
      }
      if (adj > pickAdj) {
        pickAdj = adj;
        pick = s;
      }
    }
    if (!pick) break;
    if (selected.length >= maxCards) {
      for (const s of open) decide(full(s));
      break;
    }
    if (fits(pick)) {
      open.delete(pick);
      decide({ s: pick, included: true, stage: 'selected', reason: 'Relevant' });
      pullChildren(pick);
      for (const s of [...open]) if (decisions.has(s.item.id)) open.delete(s);
      continue;
    }
    // The best remaining card does not fit: choose the best set of the next few that does (exact, small).
    const next = [...open]
      .map((s) => ({ s, adj: s.score - tuning.redundancy * fill * closest(s).sim }))
      .sort((a, b) => b.adj - a.adj)
      .slice(0, tuning.knapsackSize);
    const chosen = knapsack(next, budget - used, maxCards - selected.length);
    for (const { s } of next) if (chosen.has(s)) decide({ s, included: true, stage: 'selected', reason: 'Relevant' });
    for (const s of open) if (!decisions.has(s.item.id)) decide(selected.length >= maxCards ? full(s) : noRoom(s));
    break;
  }
  return { selected, decisions, unreached };
}

/** Per-subset totals for `knapsack`, kept between calls (2^knapsackSize entries). */
let subsetVal = new Float64Array(0);
let subsetTok = new Float64Array(0);
let subsetCount = new Uint8Array(0);

/** Best total adjusted score within `room` tokens and `slots` cards; exhaustive over at most a dozen items. */
function knapsack(cands: { s: Scored; adj: number }[], room: number, slots: number): Set<Scored> {
  const n = cands.length;
  const subsets = 1 << n;
  if (subsetVal.length < subsets) {
    subsetVal = new Float64Array(subsets);
    subsetTok = new Float64Array(subsets);
    subsetCount = new Uint8Array(subsets);
  }
  const val = subsetVal;
  const tok = subsetTok;
  const count = subsetCount;
  const tokens = cands.map((c) => cardTokens(c.s));
  // Each subset's totals from the subset without its highest member: the adjusted scores add up in index order,
  // exactly as summing each subset from scratch would, in one step per subset instead of n.
  val[0] = tok[0] = count[0] = 0;
  let bestMask = 0;
  let bestVal = 0;
  for (let mask = 1, high = 0; mask < subsets; mask++) {
    if (mask === 2 << high) high++;
    const rest = mask ^ (1 << high);
    val[mask] = val[rest] + cands[high].adj;
    tok[mask] = tok[rest] + tokens[high];
    count[mask] = count[rest] + 1;
    if (tok[mask] <= room && count[mask] <= slots && val[mask] > bestVal) {
      bestVal = val[mask];
      bestMask = mask;
    }
  }
  return new Set(cands.filter((_, i) => bestMask & (1 << i)).map((c) => c.s));
}
