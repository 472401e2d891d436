// What a ranking weighs (stages 1-2): the query, retrieval, and the candidates read late: retrieval's pool, flagged and
// situated items, with those whose text nothing reads weighed on their heads as stand-ins (`UnreadItem`).
import type { ItemHead, MemoryItem } from '../memory/types';
import type { RankRequest, SubjectCloseness, TaskReading } from './types';
import { cosine } from '../embed/embedder';
import { planQuery, type QueryPlan } from './query';
import { choosePoolPassages, retrieve, type Retrieval } from './retrieve';
import { scopeMismatch } from './scope';
import { taskSituationKeys } from './situation';
import type { Tuning } from './tuning';
import type { MemoryView } from '../memory/index/memory-view';

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

export interface Prepared {
  plan: QueryPlan;
  retrieval: Retrieval;
  candidates: Candidates;
  /** How close the ask is in meaning to a rule's subject (undefined without vectors). */
  near: SubjectCloseness;
}

/** Stages 1-2: the query, hybrid retrieval, and late hydration of the candidates (the pool's passages then chosen). */
export async function prepare(req: RankRequest, tuning: Tuning): Promise<Prepared> {
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
