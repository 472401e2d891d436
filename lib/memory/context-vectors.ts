import { contextText, passageEmbedTexts } from './index/item-text';
import type { IndexedMemory } from './index/memory-index';
import type { StoredVector } from './db';
import { textHash } from '../core/text-hash';
import type { MemoryItem } from './types';

/**
 * Vectors to make for one item: its own, one per passage (`print` undefined; `passageEmbedTexts`), or its context
 * vector (one text; `print`: hash of it). An item's own vectors are stored together or not at all.
 */
export interface EmbedJob {
  id: string;
  texts: string[];
  print?: number;
}

/** Reads whole items by id (those that exist). */
export type ItemsRead = (ids: string[]) => Promise<Map<string, MemoryItem>>;

/** The job making an item's own vectors. */
export function ownJob(item: MemoryItem): EmbedJob {
  return { id: item.id, texts: passageEmbedTexts(item) };
}

/** Whether two lists of texts are the same texts in the same order. */
export function sameTexts(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((t, i) => t === b[i]);
}

/**
 * Which threaded items have a context vector and from what text (`prints`: its hash). An item's context vector reads
 * the item after the one before it in its thread (`contextText`), so it is stale once either changes.
 */
export class ContextVectors {
  readonly prints = new Map<string, number>();
  constructor(private readonly mem: () => IndexedMemory) {}

  /**
   * The ids and, for threaded ones, the next item of their thread (whose context vector reads them), with `also` (the
   * same asked before a change: an item that leaves its thread or moves in it leaves a successor behind).
   */
  withSuccessors(ids: string[], also: string[] = []): string[] {
    const out = new Set([...ids, ...also]);
    for (const id of ids) {
      const next = this.mem().lexicalIndex.neighbour(id, 1);
      if (next) out.add(next);
    }
    return [...out];
  }

  /**
   * The texts of these items' context vectors: the thread's previous item, then the item (undefined for an item that
   * is not threaded, is first in its thread, or is held, or whose predecessor is held). `read` gives whole items
   * (IndexedMemory.hydrate, or the rows at hand while loading).
   */
  async textsOf(ids: string[], read: ItemsRead = (ids) => this.mem().hydrate(ids, false)): Promise<Map<string, string | undefined>> {
    const mem = this.mem();
    const prevOf = new Map<string, string>();
    for (const id of ids) {
      const head = mem.head(id);
      const prev = head?.thread && !head.needsReview ? mem.lexicalIndex.neighbour(id, -1) : undefined;
      if (prev) prevOf.set(id, prev);
    }
    const items = prevOf.size ? await read([...prevOf.keys(), ...prevOf.values()]) : new Map<string, MemoryItem>();
    const out = new Map<string, string | undefined>();
    for (const id of ids) {
      const item = items.get(id);
      const prev = items.get(prevOf.get(id) ?? '');
      out.set(id, item && prev && !prev.needsReview ? contextText(item, prev) : undefined);
    }
    return out;
  }

  /**
   * Drops the context vectors of these items that are stale (`jobs` without making any): only items that have one are
   * read, so committing thousands of new items reads none of their texts back.
   */
  async dropStale(ids: Iterable<string>): Promise<void> {
    const held = [...ids].filter((id) => this.prints.has(id));
    if (held.length) await this.jobs(held);
  }

  /**
   * Context vectors to make for these items: those missing or stale. A stale one, or one the item should no longer
   * have, is dropped from memory at once; its row is replaced when it is made again.
   */
  async jobs(ids: Iterable<string>, read?: ItemsRead): Promise<EmbedJob[]> {
    const mem = this.mem();
    const list = [...ids];
    const texts = await this.textsOf(list, read);
    const jobs: EmbedJob[] = [];
    for (const id of list) {
      const text = texts.get(id);
      const print = text === undefined ? undefined : textHash(text);
      const held = this.prints.get(id);
      if (held !== undefined && held === print && mem.hasContextVector(id)) continue;
      if (held !== undefined) {
        this.prints.delete(id);
        mem.setContextVector(id, undefined);
      }
      if (text !== undefined) jobs.push({ id, texts: [text], print });
    }
    return jobs;
  }
}

/**
 * The items that have their vectors, by the print of their words (`IndexedMemory.contentPrint`): a note whose text
 * another already has (a duplicate capture, the same notes imported under other ids) takes those vectors instead of
 * the model's time. Built once per indexing run, from prints held in memory (the texts stay in IndexedDB).
 */
export function sameTextIndex(mem: IndexedMemory) {
  const byPrint = new Map<number, string[]>();
  for (const it of mem.items()) {
    if (it.needsReview || !mem.hasVector(it.id)) continue;
    const p = mem.contentPrint(it.id);
    const ids = byPrint.get(p);
    if (ids) ids.push(it.id);
    else byPrint.set(p, [it.id]);
  }
  /** Items that may have the same words as `id` (the print only narrows the search: `donatedVectors` confirms). */
  return (id: string): string[] => (byPrint.get(mem.contentPrint(id)) ?? []).filter((d) => d !== id);
}
/** A stored row's vectors, one per passage. */
export function rowVectors(row: StoredVector): Float32Array[] {
  return [row.vector, ...(row.passages ?? [])];
}

/**
 * Vectors for the jobs an item with the same texts already has, made by `model` (read from IndexedDB, exactly as the
 * model made them); undefined for a job the model must make. A donor counts only if its texts are the job's.
 */
export async function donatedVectors(
  jobs: EmbedJob[],
  candidates: ReturnType<typeof sameTextIndex>,
  read: ItemsRead,
  readVectors: (ids: string[]) => Promise<(StoredVector | undefined)[]>,
  model: string | undefined,
): Promise<(Float32Array[] | undefined)[]> {
  const out: (Float32Array[] | undefined)[] = new Array(jobs.length);
  const asked = jobs.map((j, i) => ({ i, ids: j.print === undefined ? candidates(j.id).slice(0, 4) : [] })).filter((d) => d.ids.length);
  if (!asked.length) return out;
  const items = await read([...new Set(asked.flatMap((d) => d.ids))]);
  const donors = asked
    .map(({ i, ids }) => ({ i, id: ids.find((id) => {
      const it = items.get(id);
      return !!it && !it.needsReview && sameTexts(passageEmbedTexts(it), jobs[i].texts);
    }) }))
    .filter((d): d is { i: number; id: string } => d.id !== undefined);
  if (!donors.length) return out;
  const rows = await readVectors(donors.map((d) => d.id));
  rows.forEach((row, n) => {
    const { i } = donors[n];
    const vs = row && row.model === model ? rowVectors(row) : undefined;
    if (vs && vs.length === jobs[i].texts.length) out[i] = vs;
  });
  return out;
}
