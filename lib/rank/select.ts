import type { NoRoom, RankSettings, TraceStage, Reason } from './types';
import type { Scored } from './score';
import type { Tuning } from './tuning';
import type { MemoryItem } from '../memory/types';
import { countTokens } from '../memory/tokens';
import { passageTokensWithin } from './passage-choice';
import { displayTitle } from '../core/items';

export type Guarantee = 'pinned' | 'instruction' | 'situation' | 'child';

export interface Decision {
  s: Scored;
  included: boolean;
  stage: TraceStage;
  /** Words, or a card the budget had no room for (`reasonText` in trace.ts says it). */
  reason: Reason;
  guaranteed?: Guarantee;
  /** Redundancy with the closest already-selected card, when it mattered. */
  similarTo?: { title: string; sim: number };
}

/**
 * Instructions that apply here, most relevant first (those whose condition the task meets, then those for this kind
 * of place or site, then those for everywhere; within each, those retrieval scored by score, then the newest), scored
 * only when selection reaches them: once their share of the budget is taken an instruction's score cannot change the
 * outcome, so of hundreds only the first few (and any that retrieval scored anyway) are scored.
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
  /** Instructions whose scope matches the task, most relevant first. */
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

/** The line of framing each card takes in the package besides its text. */
const FRAMING = 6;

/** Tokens a card takes in the package: its text (a long item's matching passages) plus a line of framing. */
export function cardTokens(s: Scored): number {
  return s.signal.passages ? s.signal.passages.tokens + FRAMING : itemCardTokens(s.item);
}

/** `cardTokens(s)` when it is at most `limit`, else undefined; a long excerpt is counted no further than the limit. */
function cardTokensWithin(s: Scored, limit: number): number | undefined {
  if (!s.signal.passages) {
    const n = itemCardTokens(s.item);
    return n <= limit ? n : undefined;
  }
  const n = passageTokensWithin(s.signal.passages, limit - FRAMING);
  return n === undefined ? undefined : n + FRAMING;
}

function itemCardTokens(item: MemoryItem): number {
  return (item.tokens || countTokens(item.text)) + FRAMING;
}

const pct = (x: number) => `${Math.round(x * 100)}%`;
const quote = (s: Scored) => `"${displayTitle(s.item, 40)}"`;

type Verdict = Omit<Decision, 's' | 'included'>;

/**
 * Guarantees first (pinned, global instructions, this situation), then the rest by score with a redundancy
 * penalty that grows as the budget fills (MMR), then an exact small knapsack for the last slots.
 */
export function selectCards(inp: SelectInput): {
  selected: Decision[];
  decisions: Map<string, Decision>;
  /** Why the instructions selection never scored were left out (all for the same reason). */
  unreached?: Verdict;
} {
  const sel = new Selection(inp);
  for (const s of inp.pinned) sel.guarantee(s, 'pinned', 'Pinned: always included');
  const unreached = guaranteeInstructions(sel, inp);
  guaranteeSituated(sel, inp);
  selectByScore(sel, inp);
  return { selected: sel.selected, decisions: sel.decisions, unreached };
}

/** The cards selected so far, the tokens they take, and the decision on every candidate decided yet. */
class Selection {
  readonly decisions = new Map<string, Decision>();
  readonly selected: Decision[] = [];
  used = 0;
  instrUsed = 0;
  /** Cards' worth of reading selected (see `reading`). */
  shown = 0;
  readonly budget: number;
  readonly maxCards: number;

  constructor(private readonly inp: SelectInput) {
    this.budget = Math.max(0, inp.settings.budgetTokens);
    this.maxCards = Math.max(0, inp.settings.maxCards);
  }

  /** Tokens `s` takes of the budget. */
  tokens(s: Scored): number {
    return cardTokens(s);
  }

  /**
   * How much of the panel's reading a card takes: a one-line card (at most `shortCard` tokens) half a card, so
   * `maxCards` bounds what there is to read rather than a count, and evidence spread over short turns gets them
   * (at most half as many cards again: `maxCount`).
   */
  reading(s: Scored): number {
    return cardTokensWithin(s, this.inp.tuning.shortCard) !== undefined ? 0.5 : 1;
  }

  /** Cards selected that count against the cards shown: rules are bounded by their share of the budget instead. */
  counted = 0;

  decide(d: Decision): void {
    this.decisions.set(d.s.item.id, d);
    if (d.included) {
      this.selected.push(d);
      this.used += this.tokens(d.s);
      if (d.s.item.kind === 'instruction' && d.guaranteed === 'instruction') this.instrUsed += this.tokens(d.s);
      else {
        this.shown += this.reading(d.s);
        this.counted++;
      }
    }
  }

  /** Cards shown at most, one-line cards included: half as many again as `maxCards` (one stays one). */
  get maxCount(): number {
    return this.maxCards + Math.floor(this.maxCards / 2);
  }

  /**
   * Whether the cards shown are full. The rules that apply are not counted: their share of the budget bounds them, so
   * the rules of a task never take the places of the notes it is about.
   */
  get full(): boolean {
    return this.shown >= this.maxCards || this.counted >= this.maxCount;
  }

  fits(s: Scored): boolean {
    return cardTokensWithin(s, this.budget - this.used) !== undefined;
  }

  /** Why a card of `need` tokens is left out: the budget has no room for it. */
  noRoomFor(need: number): Verdict {
    return { stage: 'budget', reason: { budget: this.budget, need, left: Math.max(0, this.budget - this.used) } };
  }

  /**
   * Why `s` is left out for want of room. A long item's excerpt is counted word by word, so the tokens it needs are
   * counted when the reason is read: of the dozens left out this way the panel reads a few.
   */
  noRoom(s: Scored): Decision {
    const left = Math.max(0, this.budget - this.used);
    if (!s.signal.passages) return { s, included: false, stage: 'budget', reason: { budget: this.budget, need: this.tokens(s), left } };
    const count = () => this.tokens(s);
    let need: number | undefined;
    const reason: NoRoom = {
      budget: this.budget,
      get need() {
        return (need ??= count());
      },
      left,
    };
    return { s, included: false, stage: 'budget', reason };
  }

  beyondCards(s: Scored): Decision {
    // One reason for all: once the cards are full, every situated item past them is decided here (thousands).
    return { s, included: false, stage: 'limit', reason: (this.beyond ??= `Beyond the ${this.maxCards} cards shown`) };
  }
  private beyond?: string;

  /** Includes `s` for a guarantee if there is room (and `extraRoom`), then the next items of its thread. */
  guarantee(s: Scored, g: Guarantee, reason: string, extraRoom = true): void {
    if (this.decisions.has(s.item.id)) return;
    if (this.full && g !== 'instruction') return this.decide(this.beyondCards(s));
    if (!this.fits(s) || !extraRoom) return this.decide(this.noRoom(s));
    this.decide({ s, included: true, stage: 'guarantee', reason, guaranteed: g });
    this.pullChildren(s);
  }

  /** The next items of a selected item's thread, up to the cap, each as long as there is room. */
  pullChildren(parent: Scored): void {
    let n = 0;
    for (const c of this.inp.childrenOf(parent)) {
      if (n >= this.inp.tuning.childCap || this.decisions.has(c.item.id)) continue;
      if (this.full) this.decide(this.beyondCards(c));
      else if (!this.fits(c)) this.decide(this.noRoom(c));
      else {
        this.decide({ s: c, included: true, stage: 'guarantee', reason: `Follows ${quote(parent)} in its thread`, guaranteed: 'child' });
        n++;
      }
    }
  }
}

/**
 * In-scope instructions, most relevant first (see `SelectInput.instructions`), as long as their share of the budget
 * has room: the budget, not a count, limits them. Once the cards are full no further instruction can be included:
 * from there on only those scored anyway are decided here, and the returned verdict says why for the others.
 */
function guaranteeInstructions(sel: Selection, inp: SelectInput): Verdict | undefined {
  const { tuning, instructions } = inp;
  const instrCap = tuning.instructionShare * sel.budget;
  const shareFull = `Instructions may take ${pct(tuning.instructionShare)} of the budget; the more relevant ones took it`;
  let unreached: Verdict | undefined;
  for (let i = 0; i < instructions.length; i++) {
    let s = instructions.peek(i);
    if (!s && !unreached) {
      // Whether it can be included at all follows from its size: only then is its score worth computing.
      const need = itemCardTokens(instructions.item(i));
      if (sel.instrUsed + need > instrCap) {
        instructions.leaveOut(i, { stage: 'budget', reason: shareFull });
        continue;
      }
      if (sel.used + need > sel.budget) {
        instructions.leaveOut(i, sel.noRoomFor(need));
        continue;
      }
      s = instructions.at(i);
    }
    if (!s || sel.decisions.has(s.item.id)) continue;
    const roomInShare = sel.instrUsed + sel.tokens(s) <= instrCap;
    sel.guarantee(s, 'instruction', instructions.why(i), roomInShare);
    if (!sel.decisions.get(s.item.id)?.included && !roomInShare) sel.decisions.get(s.item.id)!.reason = shareFull;
  }
  return unreached;
}

/** The reason a situated card gives, per list of ties: a person's thousands of notes share one list (`situationMatch`). */
const tiedBecause = new WeakMap<readonly string[], string>();
function tiedReason(ties: readonly string[]): string {
  let why = tiedBecause.get(ties);
  if (why === undefined) tiedBecause.set(ties, (why = `Tied to this situation: ${ties.join(', ')}`));
  return why;
}

/** Items tied to this situation (a person, site or URL of the task), best first, up to their cap. */
function guaranteeSituated(sel: Selection, inp: SelectInput): void {
  let nSit = 0;
  for (const s of inp.situated) {
    if (sel.decisions.has(s.item.id) || nSit >= inp.tuning.situationCap) continue;
    sel.guarantee(s, 'situation', tiedReason(s.situationReasons));
    if (sel.decisions.get(s.item.id)?.included) nSit++;
  }
}

/**
 * The most similar selected card so far, per candidate: `selected` only grows, so each pair is compared once and
 * the scan in selection order (first of equals kept) continues where it stopped.
 */
function nearestSelected(sel: Selection, sim: SelectInput['sim']): (s: Scored) => { sim: number; to?: Scored } {
  const nearest = new Map<Scored, { sim: number; to?: Scored; seen: number }>();
  return (s) => {
    let c = nearest.get(s);
    if (!c) nearest.set(s, (c = { sim: 0, to: undefined, seen: 0 }));
    for (; c.seen < sel.selected.length; c.seen++) {
      const d = sel.selected[c.seen];
      const x = sim(s, d.s);
      if (x > c.sim) {
        c.sim = x;
        c.to = d.s;
      }
    }
    return c;
  };
}

/**
 * Scored selection (MMR): pick the best adjusted score, where the penalty for resembling a selected card grows
 * with the share of the budget already used. When the best does not fit, the last slots go to the best set of the
 * next few that does.
 */
function selectByScore(sel: Selection, inp: SelectInput): void {
  const { settings, tuning } = inp;
  const rest = inp.ranked.filter((s) => !sel.decisions.has(s.item.id));
  const closest = nearestSelected(sel, inp.sim);
  const open = new Set(rest);
  const reject = (s: Scored, d: Verdict) => {
    open.delete(s);
    sel.decide({ s, included: false, ...d });
  };
  const threshold = settings.threshold.toFixed(2);
  for (const s of rest)
    if (s.score < settings.threshold) reject(s, { stage: 'threshold', reason: `Not relevant enough (${s.score.toFixed(2)} < ${threshold})` });

  while (open.size) {
    const fill = sel.budget > 0 ? Math.min(1, sel.used / sel.budget) : 1;
    let pick: Scored | undefined;
    let pickAdj = -Infinity;
    for (const s of [...open]) {
      const c = closest(s);
      if (c.to && c.sim >= tuning.duplicateSim) {
        reject(s, { stage: 'redundancy', reason: `Says the same as ${quote(c.to)} (${pct(c.sim)} similar)`, similarTo: { title: c.to.item.title, sim: c.sim } });
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
    if (sel.full) {
      for (const s of open) sel.decide(sel.beyondCards(s));
      break;
    }
    if (!sel.fits(pick)) return fillLastSlots(sel, inp, open, (s) => s.score - tuning.redundancy * fill * closest(s).sim);
    open.delete(pick);
    sel.decide({ s: pick, included: true, stage: 'selected', reason: 'Relevant' });
    sel.pullChildren(pick);
    for (const s of [...open]) if (sel.decisions.has(s.item.id)) open.delete(s);
  }
}

/** The best remaining card does not fit: choose the best set of the next few that does (exact, small). */
function fillLastSlots(sel: Selection, inp: SelectInput, open: Set<Scored>, adjusted: (s: Scored) => number): void {
  const next = [...open]
    .map((s) => ({ s, adj: adjusted(s) }))
    .sort((a, b) => b.adj - a.adj)
    .slice(0, inp.tuning.knapsackSize);
  const chosen = knapsack(next, sel.budget - sel.used, sel.maxCards - sel.shown, sel.maxCount - sel.counted, sel);
  for (const { s } of next) if (chosen.has(s)) sel.decide({ s, included: true, stage: 'selected', reason: 'Relevant' });
  for (const s of open) if (!sel.decisions.has(s.item.id)) sel.decide(sel.full ? sel.beyondCards(s) : sel.noRoom(s));
}

function popcount(x: number): number {
  let n = 0;
  for (; x; x &= x - 1) n++;
  return n;
}

/** Per-subset totals for `knapsack`, kept between calls (2^knapsackSize entries). */
let subsetVal = new Float64Array(0);
let subsetTok = new Float64Array(0);
let subsetCount = new Float64Array(0);

/** Best total adjusted score within `room` tokens and `slots` cards; exhaustive over at most a dozen items. */
function knapsack(cands: { s: Scored; adj: number }[], room: number, slots: number, cards: number, sel: Selection): Set<Scored> {
  const n = cands.length;
  const subsets = 1 << n;
  if (subsetVal.length < subsets) {
    subsetVal = new Float64Array(subsets);
    subsetTok = new Float64Array(subsets);
    subsetCount = new Float64Array(subsets);
  }
  const val = subsetVal;
  const tok = subsetTok;
  const count = subsetCount;
  // A card larger than the room is in no subset that fits: counting it further would change nothing.
  const tokens = cands.map((c) => cardTokensWithin(c.s, room) ?? room + 1);
  const reading = cands.map((c) => sel.reading(c.s));
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
    count[mask] = count[rest] + reading[high];
    if (tok[mask] <= room && count[mask] <= slots && val[mask] > bestVal && popcount(mask) <= cards) {
      bestVal = val[mask];
      bestMask = mask;
    }
  }
  return new Set(cands.filter((_, i) => bestMask & (1 << i)).map((c) => c.s));
}
