import type { ItemHead, MemoryItem } from '../memory/types';
import type { RankRequest, RankResult, RankedCard, Reason, ScoreNotes, SubjectCloseness, TaskReading, TraceEntry } from './types';
import { cosine } from '../embed/embedder';
import { planQuery, type QueryPlan } from './query';
import { choosePoolPassages, retrieve, type Retrieval, type Signal } from './retrieve';
import { filterReason, isListedInstruction } from './filters';
import { markSuperseded } from './supersede';
import { appliesBecause, scopeMismatch, scopeOf } from './scope';
import { overriddenInstructions } from './overridden-instructions';
import { scoreItem, type Scored } from './score';
import { selectCards, type Decision, type LazyScoredList } from './select';
import { buildPackage } from './package';
import { explainNotes, reasonText, scoreNotes } from './trace';
import { explicitlyTied, taskSituationKeys } from './situation';
import { terms } from '../memory/index/tokenize';
import { likeness } from './likeness';
import { TUNING, type Tuning } from './tuning';
import type { LexicalSearcher, MemoryView } from '../memory/index/memory-view';
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

const now = () => (typeof performance !== 'undefined' ? performance.now() : Date.now());

/** The lists of an item retrieval did not find: empty, shared by the thousands of such candidates, never changed. */
const NONE = Object.freeze([]) as unknown as string[];

function emptySignal(id: string): Signal {
  return { id, semantic: 0, lexical: 0, matched: NONE, viaNeighbour: NONE, expanded: NONE, fused: 0 };
}

/** Where the stand-ins of the pass under way note a read of their text. */
let readsOf: Set<string> | undefined;

const standIns = new WeakMap<ItemHead, MemoryItem>();

/**
 * An item weighed on its head: its fields, with a text and title that note the read (the ranking then reads the item
 * and weighs again) and stand for nothing. The getters are the class's, shared: stand-ins of like heads have one
 * shape, so the ranker's reads of their fields stay as fast as of read items.
 */
class UnreadItem {
  declare readonly id: string;
  constructor(head: ItemHead) {
    Object.assign(this, head);
  }
  get text(): string {
    readsOf?.add(this.id);
    return '';
  }
  get title(): string {
    readsOf?.add(this.id);
    return '';
  }
}

/** The stand-in of an unread item, kept per head: a task ranked again weighs the same stand-ins. */
function unreadItem(head: ItemHead): MemoryItem {
  let item = standIns.get(head);
  if (!item) standIns.set(head, (item = new UnreadItem(head) as unknown as MemoryItem));
  return item;
}

/**
 * A rule whose stored scope, read without its text, does not match the task (a subject's match reads the text, and a
 * rule saved without a scope has it guessed from the text: those are read).
 */
function scopedElsewhere(head: ItemHead, task: TaskReading): boolean {
  return !!head.scope && head.scope.kind !== 'subject' && !!scopeMismatch(head as MemoryItem, task);
}

/**
 * What a ranking weighs: retrieval's pool, the flagged items and the items tied to the task's situation, each once in
 * that order (ties keep it), read whole where their text may matter. Items past the pool may be thousands (a mail to
 * someone with many notes, notes kept for other sites, rules for other places), and the factors and filters of such an
 * item read no text: those are weighed on their heads, as stand-ins (`unreadItem`) that note any read of
 * their text, and read only when a ranking reads them or selects them.
 */
class Candidates {
  /** Unread items whose text the last pass read. */
  readonly wanted = new Set<string>();
  /** With stand-ins, every candidate in the order weighed (without, the order `read` holds). */
  private list?: MemoryItem[];

  private constructor(
    private readonly memory: MemoryView,
    /** The ids read: the pool, flagged items, situated items whose texts are held, and those passes wanted. */
    private readonly first: string[],
    /** Items read (or held whole), by id, in the order asked (as `hydrate` answers). */
    private readonly read: Map<string, MemoryItem>,
  ) {}

  static async gather(memory: MemoryView, retrieval: Retrieval, task: TaskReading): Promise<Candidates> {
    const first = retrieval.pool.slice();
    const fixed = first.length;
    // After the pool: flagged items, then those tied to the situation (an item may be both; its first place counts).
    const later: ItemHead[] = [];
    for (const head of memory.flagged()) later.push(head);
    const keys = taskSituationKeys(task);
    if (keys.length) for (const head of memory.situated(keys)) later.push(head);
    let unheld: Uint8Array | undefined;
    for (let i = 0; i < later.length; i++) {
      const head = later[i];
      // Pinned items and rules that apply here are read (a rule's text decides what it overrides); so is any text held.
      if (head.pinned || (head.kind === 'instruction' && !scopedElsewhere(head, task)) || memory.hasText(head.id)) first.push(head.id);
      else (unheld ??= new Uint8Array(later.length))[i] = 1;
    }
    const c = new Candidates(memory, first, await memory.hydrate(first));
    if (!unheld) return c;
    // The others are weighed as stand-ins, where they come in the order.
    const list: MemoryItem[] = [];
    const placed = new Set<string>();
    const place = (id: string, item: MemoryItem | undefined) => {
      placed.add(id);
      if (item) list.push(item); // (one read but gone meanwhile is left out)
    };
    for (let i = 0; i < fixed; i++) if (!placed.has(first[i])) place(first[i], c.read.get(first[i]));
    for (let i = 0; i < later.length; i++) {
      const head = later[i];
      if (!placed.has(head.id)) place(head.id, unheld[i] ? unreadItem(head) : c.read.get(head.id));
    }
    c.list = list;
    return c;
  }

  /** The candidates in order: read items, and stand-ins for the rest. */
  items(): Iterable<MemoryItem> {
    return this.list ?? this.read.values();
  }

  /** Runs one pass, noting the unread items whose text it reads. */
  pass<T>(run: () => T): T {
    this.wanted.clear();
    readsOf = this.wanted;
    try {
      return run();
    } finally {
      readsOf = undefined;
    }
  }

  /** Notes that the pass needs the item's text (a stand-in's; a read item's is at hand). */
  want(item: MemoryItem): void {
    if (this.isUnread(item)) this.wanted.add(item.id);
  }

  /** Whether an item of this ranking is a stand-in (its text not read). */
  isUnread(item: MemoryItem): boolean {
    return item instanceof UnreadItem;
  }

  /**
   * Reads the items the last pass wanted (with those read before, so none of this ranking's is let go). False when
   * it wanted none: the pass stands.
   */
  async readWanted(): Promise<boolean> {
    if (!this.wanted.size) return false;
    for (const id of this.wanted) this.first.push(id);
    const got = await this.memory.hydrate(this.first);
    // Each stand-in read takes its place (an item gone meanwhile is left out, as a hydration leaves it out).
    const list: MemoryItem[] = [];
    for (const item of this.list!) {
      const now = this.isUnread(item) && this.wanted.has(item.id) ? got.get(item.id) : item;
      if (now) list.push(now);
    }
    this.list = list;
    return true;
  }
}

interface Prepared {
  plan: QueryPlan;
  retrieval: Retrieval;
  candidates: Candidates;
  /** How close the ask is in meaning to a rule's subject (undefined without vectors). */
  near: SubjectCloseness;
}

/** Stages 1-2: the query, hybrid retrieval, and late hydration of the candidates (the pool's passages then chosen). */
async function prepare(req: RankRequest, tuning: Tuning): Promise<Prepared> {
  const { task, memory, settings } = req;
  const plan = planQuery(task, tuning.timeWeight);
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
  // Late hydration: retrieval read no text; only the pool, pinned items, instructions and what the situation needs
  // are read whole (in the extension, from IndexedDB).
  const candidates = await Candidates.gather(memory, retrieval, task);
  choosePoolPassages(memory, retrieval, qvs, qw, settings.weights, tuning);
  // The ask itself (the first query text) against the subject's words: the page around it says less about the topic.
  const ask = qvs[0];
  const near: SubjectCloseness = (subject) => {
    const v = ask && req.conditionVectors?.get(subject);
    const cos = v && v.length === ask.length ? cosine(ask, v) : undefined;
    return cos !== undefined && cos >= tuning.conditionCos ? cos : undefined;
  };
  return { plan, retrieval, candidates, near };
}

/**
 * Stages 1-4: query, hybrid retrieval, late hydration of the fused top candidates (plus what a guarantee may need),
 * hard filters, and the weighted factor score. Exposed so the bench can read the full order; the extension calls
 * `rankMemory`. Situated items whose text nothing read are stand-ins (no text or title).
 */
export async function scoreMemory(req: RankRequest, tuning: Tuning = TUNING): Promise<ScoredMemory> {
  const p = await prepare(req, tuning);
  for (;;) {
    const sm = p.candidates.pass(() => weigh(req, p, tuning));
    if (!(await p.candidates.readWanted())) return sm;
  }
}

/** Stages 3-4 over the candidates: filters, scores, the order, and the lists guarantees read. No text of its own. */
function weigh(req: RankRequest, p: Prepared, tuning: Tuning): ScoredMemory {
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

const NOTHING_RELEVANT = 'Nothing in memory is relevant to this task: a rule or pinned item is shown only beside something that is';

/** Whether a note over the threshold was left out only for want of room: in the budget, or among the cards shown. */
function someRefusedForRoom(decisions: Map<string, Decision>, threshold: number): boolean {
  for (const d of decisions.values())
    if ((d.stage === 'budget' || d.stage === 'limit') && d.s.item.kind !== 'instruction' && d.s.score >= threshold) return true;
  return false;
}

/** A rule with a condition (a subject, a person): when it applies, the task is about what it names. */
function isConditional(item: MemoryItem): boolean {
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

/**
 * The ranker: cards for the panel, the context package, and a trace of every candidate. Pure: the same request gives
 * the same result (an `overrides` memo in it only saves repeating work). It waits only once, for the hydration.
 */
export async function rankMemory(req: RankRequest, tuning: Tuning = TUNING): Promise<RankResult> {
  const t0 = now();
  const p = await prepare(req, tuning);
  // Selection reads the texts of what it selects: a stand-in it reaches is read, and the ranking weighed again.
  for (;;) {
    const result = p.candidates.pass(() => decide(req, p, tuning));
    if (!(await p.candidates.readWanted())) return { ...result, tookMs: now() - t0 };
  }
}

/** Stages 3-7 once the candidates are read: scores, selection, cards, trace and package. Reads no text it was not given. */
function decide(req: RankRequest, p: Prepared, tuning: Tuning): Omit<RankResult, 'tookMs'> {
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
