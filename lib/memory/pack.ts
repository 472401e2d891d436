import { LexicalIndex } from './index/lexical-index';
import { headOf, passageKey, type IndexedMemory } from './index/memory-index';
import type { PackRow } from './db';
import type { ItemHead } from './types';
import { textHash } from '../core/text-hash';
import { lexiconDigest } from './index/lexical-pack';

export const PACK_KEY = 'index';
/**
 * Bump when the pack's layout changes; a pack of another version is ignored (and rewritten). v2: BM25 entries hold
 * the body's term sequence instead of phrase terms (lib/memory/index/lexical-pack.ts PackedLexicon), tf as Uint16Array.
 * v3: threaded items' context vectors are in the pack too. v4: an item longer than the model's window has a vector
 * and a BM25 entry per passage (lib/memory/index/passages.ts); bump it too when the split of passages changes. v5: an
 * entry's print reads the text and title by their print (`indexPrint`). v6: a number with its separators ("£1,200",
 * "3.5") is one term (lib/memory/index/tokenize.ts `words`). v7: the items' heads, content prints and revisions, so a
 * start reads whole only the rows written since; BM25 term numbers in 16 bits when the lexicon allows it. v8: the BM25
 * index's pools as it holds them (forward entries, sequences, postings), taken as they are at a start. v9: the lexicon's
 * check is a SHA-256 digest (`lexiconDigest`), not an FNV-1a print.
 */
export const PACK_VERSION = 9;

/**
 * FNV-1a of the fields an item's vectors and BM25 entry are made from, its text and title by their print
 * (`contentPrint`, kept in memory while the texts stay in IndexedDB): a pack entry is used only if it matches.
 */
export function indexPrint(item: ItemHead, content: number): number {
  const s = [
    item.id, String(content), (item.tags ?? []).join('\u0001'), (item.people ?? []).join('\u0001'),
    item.thread ? `${item.thread.id}\u0001${item.thread.seq}` : '', String(item.createdAt ?? ''), item.needsReview ? '1' : '',
  ].join('\u0000');
  return textHash(s);
}

/**
 * The BM25 entry today's code makes for a fixed item (dates, a question, people, phrases, inflections): a pack whose
 * canary differs was tokenised by other code (a changed stemmer or stop list) and is not used.
 */
export function lexicalCanary(): string {
  const idx = new LexicalIndex();
  idx.addItem({ id: 'c', title: 'Budget review', text: 'Did Alice approve the painted houses? Running costs rose 12% (£1,200, 3.5 a day) on 3 March 2025 at 10:30, see https://x.example/a.', tags: ['Finance'], people: ['Alice Smith <alice@x.example>'], aux: 'chart of costs', createdAt: Date.UTC(2025, 2, 3) });
  const p = idx.exportDocs(['c']);
  return `${p.terms}|${Array.from(p.fPool).join(',')}|${Array.from(p.seqs).join(',')}|${Array.from(p.post).join(',')}|${p.len[0]}|${p.asks[0]}`;
}

/** How many BM25 documents a pack's lexicon holds (an item of several passages has one per passage). */
const docs = (l: PackRow['lexical']) => l.items[l.items.length - 1];

/** Every value of `a` is below `bound` (an index into a table of that many rows). */
function allBelow(a: ArrayLike<number>, bound: number): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] >= bound) return false;
  return true;
}

/** Strictly ascending indexes into a table of `bound` rows. */
function ascending(a: Uint32Array, bound: number): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] >= bound || (i > 0 && a[i] <= a[i - 1])) return false;
  return true;
}

/** Offsets into a table of `end` rows: from 0 to `end`, never running backwards. */
function offsets(a: ArrayLike<number>, end: number): boolean {
  if (a[0] !== 0 || a[a.length - 1] !== end) return false;
  for (let i = 1; i < a.length; i++) if (a[i] < a[i - 1]) return false;
  return true;
}

/**
 * Every number in the pack that points into one of its tables points inside it: term numbers into the lexicon,
 * entry bounds into the terms and sequences, vector slots into the vectors, passages to items the pack holds. A
 * damaged number would load a term that never matches, a vector of garbage, or a length that takes the worker down.
 */
function inRange(p: PackRow): boolean {
  const l = p.lexical;
  let terms = l.terms ? 1 : 0;
  for (let at = l.terms.indexOf('\u0000'); at >= 0; at = l.terms.indexOf('\u0000', at + 1)) terms++;
  if (l.postCount.length !== terms) return false;
  const vectors = p.scales.length;
  const { owner, part, slot } = p.passages;
  for (let j = 0; j < owner.length; j++) {
    const i = owner[j];
    if (i >= p.ids.length || part[j] < 1 || part[j] >= l.items[i + 1] - l.items[i] || slot[j] < 0 || slot[j] >= vectors) return false;
  }
  return offsets(l.postStart, l.post.length) && allBelow(l.sStart, l.seqs.length + 1) && allBelow(p.slots, vectors);
}

/** A head as the store writes one: the fields every item has, of their kinds, and a revision no higher than the pack's. */
function headLike(h: ItemHead | undefined, id: string, top: number): boolean {
  return (
    !!h && typeof h === 'object' && h.id === id && typeof h.kind === 'string' && Array.isArray(h.tags) && Array.isArray(h.people) &&
    Array.isArray(h.sites) && !!h.source && typeof h.source === 'object' && typeof h.createdAt === 'number' && typeof h.updatedAt === 'number' &&
    typeof h.tokens === 'number' && (h.rev === undefined || (Number.isSafeInteger(h.rev) && h.rev > 0 && h.rev <= top))
  );
}

/** The arrays a pack must hold, of the right kinds and lengths, pointing inside each other: a damaged row is ignored, never trusted. */
export function wellFormed(p: PackRow): boolean {
  const l = p.lexical;
  const n = p.ids?.length ?? -1;
  const c = p.contexts;
  return (
    !!l && p.prints instanceof Uint32Array && p.prints.length === n && p.slots instanceof Int32Array && p.slots.length === n &&
    !!p.passages && p.passages.owner instanceof Uint32Array && p.passages.part instanceof Uint32Array && p.passages.slot instanceof Int32Array &&
    p.passages.part.length === p.passages.owner.length && p.passages.slot.length === p.passages.owner.length &&
    p.codes instanceof Int8Array && p.scales instanceof Float32Array && p.codes.length === p.scales.length * p.dim &&
    l.items instanceof Uint32Array && l.items.length === n + 1 && l.items[0] === 0 && l.items.every((e, i) => i === 0 || e > l.items[i - 1]) &&
    l.len instanceof Uint32Array && l.asks instanceof Uint8Array && l.len.length === docs(l) && l.asks.length === docs(l) &&
    Array.isArray(l.threads) && l.threads.length === docs(l) && typeof l.terms === 'string' &&
    l.fPool instanceof Uint8Array && l.fStart instanceof Uint32Array && l.fCount instanceof Uint32Array && l.fStart.length === docs(l) && l.fCount.length === docs(l) &&
    l.seqs instanceof Uint8Array && l.sStart instanceof Uint32Array && l.sCount instanceof Uint32Array && l.sStart.length === docs(l) && l.sCount.length === docs(l) &&
    l.post instanceof Uint8Array && l.postStart instanceof Uint32Array && l.postCount instanceof Uint32Array && l.postLast instanceof Int32Array &&
    l.postCount.length === l.postLast.length && l.postStart.length === l.postCount.length + 1 && typeof l.sum === 'string' &&
    p.decisions instanceof Uint32Array && ascending(p.decisions, n) &&
    Number.isSafeInteger(p.rev) && p.rev >= 0 && p.contents instanceof Uint32Array && p.contents.length === n &&
    Array.isArray(p.heads) && p.heads.length === n && p.heads.every((h, i) => headLike(h, p.ids[i], p.rev)) &&
    !!c && Array.isArray(c.ids) && c.prints instanceof Uint32Array && c.prints.length === c.ids.length &&
    c.codes instanceof Int8Array && c.scales instanceof Float32Array && c.scales.length === c.ids.length && c.codes.length === c.scales.length * c.dim &&
    inRange(p)
  );
}

/**
 * A pack this code can use for vectors made by `model` (undefined: the pack's own model is taken): of this version
 * and tokeniser, well formed, and its lexicon matching its digest.
 */
export async function usablePack(row: PackRow | undefined, model: string | undefined): Promise<boolean> {
  if (!row || row.version !== PACK_VERSION || (model !== undefined && row.model !== model) || row.canary !== lexicalCanary() || !wellFormed(row)) return false;
  return (await lexiconDigest(row.lexical).catch(() => undefined)) === row.lexical.sum;
}

/**
 * The in-memory indexes as a pack row (written by MemoryStore.savePack). Everything is copied before the first await
 * (the lexicon's digest), so the row is the indexes as they were when it was called.
 */
export async function buildPack(mem: IndexedMemory, model: string, contextPrints: Map<string, number>): Promise<PackRow> {
  // In the table's key order (code units, as IndexedDB orders keys): a start keeps BM25 documents in that order,
  // as a start without a pack makes them, so rankings tie alike.
  const all = [...mem.items()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const ids = all.map((it) => it.id);
  const pv = mem.packedVectors();
  const slotOf = new Map<string, number>();
  pv.ids.forEach((id, i) => slotOf.set(id, i));
  const cv = mem.packedContextVectors();
  const owner: number[] = [];
  const part: number[] = [];
  const slot: number[] = [];
  const decisions: number[] = [];
  ids.forEach((id, i) => {
    if (mem.textDecides(id)) decisions.push(i);
    if (!mem.hasVector(id)) return;
    for (let k = 1; slotOf.has(passageKey(id, k)); k++) {
      owner.push(i);
      part.push(k);
      slot.push(slotOf.get(passageKey(id, k))!);
    }
  });
  const heads = all.map(headOf);
  const pools = mem.lexicalIndex.exportDocs(ids);
  const row: PackRow = {
    key: PACK_KEY, version: PACK_VERSION, model, canary: lexicalCanary(), dim: pv.dim, ids,
    heads, contents: Uint32Array.from(ids, (id) => mem.contentPrint(id)), rev: heads.reduce((top, h) => Math.max(top, h.rev ?? 0), 0),
    prints: Uint32Array.from(all, (it) => indexPrint(it, mem.contentPrint(it.id))), slots: Int32Array.from(ids, (id) => slotOf.get(id) ?? -1),
    passages: { owner: Uint32Array.from(owner), part: Uint32Array.from(part), slot: Int32Array.from(slot) },
    decisions: Uint32Array.from(decisions),
    codes: pv.codes, scales: pv.scales, lexical: { ...pools, sum: '' },
    contexts: { ids: cv.ids, prints: Uint32Array.from(cv.ids, (id) => contextPrints.get(id) ?? 0), dim: cv.dim, codes: cv.codes, scales: cv.scales },
  };
  row.lexical.sum = await lexiconDigest(pools);
  return row;
}

/** Quiet time after the last change before the pack is rewritten, ms. */
const PACK_DELAY_MS = 5000;
/**
 * The pack is rewritten once this many items changed since it was written (at least PACK_MIN_STALE, else this share
 * of memory): rewriting costs about a second of the worker's time per 10k items, while a start with a few stale
 * entries only re-reads and re-tokenises those few.
 */
const PACK_MIN_STALE = 64;
const PACK_STALE_SHARE = 0.02;

/** When to rewrite the pack: once enough items changed, after changes pause, and not while rankings or indexing run. */
export class PackSchedule {
  private timer?: ReturnType<typeof setTimeout>;
  /** Items changed since the pack was last written. */
  private stale = 0;
  /** A rewrite came due while indexing ran. */
  private due = false;

  constructor(
    private readonly rewrite: () => Promise<void>,
    private readonly size: () => number,
  ) {}

  /** `n` items changed (`force`: rewrite soon whatever the count). */
  changed(n: number, force = false): void {
    this.stale += n;
    if (force || this.stale >= Math.max(PACK_MIN_STALE, this.size() * PACK_STALE_SHARE)) this.schedule();
  }

  /** Rewrites the pack once changes have stopped for a moment. */
  schedule(delay = PACK_DELAY_MS): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.rewrite().catch(() => undefined);
    }, delay);
  }

  /** A ranking is being served: a rewrite due now waits until rankings pause. */
  pressure(): void {
    if (this.timer !== undefined) this.schedule();
  }

  /** Indexing is running: the rewrite waits for it to end. */
  afterIndexing(): void {
    this.due = true;
  }

  indexingEnded(): void {
    if (!this.due) return;
    this.due = false;
    this.schedule();
  }

  /** The pack is being written now. */
  written(): void {
    this.stale = 0;
  }
}
