import { contextText, passageEmbedTexts } from './index/item-text';
import type { IndexedMemory } from './index/memory-index';
import type { StoredVector } from './db';
import { textHash } from './pack';
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

  /** The ids and, for threaded ones, the next item of their thread (whose context vector reads them). */
  withSuccessors(ids: string[]): string[] {
    const out = new Set(ids);
    for (const id of ids) {
      const next = this.mem().lexicalIndex.neighbour(id, 1);
      if (next) out.add(next);
    }
    return [...out];
  }

  /**
   * The text of an item's context vector: its thread's previous item, then the item. None for an item that is not
   * threaded, is first in its thread, or is held, or whose predecessor is held.
   */
  textOf(item: MemoryItem): string | undefined {
    if (!item.thread || item.needsReview) return undefined;
    const mem = this.mem();
    const prevId = mem.lexicalIndex.neighbour(item.id, -1);
    const prev = prevId ? mem.get(prevId) : undefined;
    return prev && !prev.needsReview ? contextText(item, prev) : undefined;
  }

  /**
   * Context vectors to make for these items: those missing or stale. A stale one, or one the item should no longer
   * have, is dropped from memory at once; its row is replaced when it is made again.
   */
  jobs(ids: Iterable<string>): EmbedJob[] {
    const mem = this.mem();
    const jobs: EmbedJob[] = [];
    for (const id of [...ids]) {
      const item = mem.get(id);
      const text = item && this.textOf(item);
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
 * The items that have their vectors, by a hash of the texts the model sees: a note whose text another already has
 * (a duplicate capture, the same notes imported under other ids) takes those vectors instead of the model's time.
 * Built once per indexing run.
 */
export function sameTextIndex(mem: IndexedMemory) {
  const byHash = new Map<number, string[]>();
  const key = (texts: readonly string[]) => texts.join('\u0000');
  const add = (texts: readonly string[], id: string) => {
    const h = textHash(key(texts));
    const ids = byHash.get(h);
    if (ids) ids.push(id);
    else byHash.set(h, [id]);
  };
  for (const it of mem.items()) if (!it.needsReview && mem.hasVector(it.id)) add(passageEmbedTexts(it), it.id);
  return {
    add,
    /** An item that has its vectors and exactly these texts (the hash only narrows the search). */
    donor: (texts: readonly string[]) => byHash.get(textHash(key(texts)))?.find((id) => {
      const it = mem.get(id);
      return !!it && !it.needsReview && mem.hasVector(id) && sameTexts(passageEmbedTexts(it), texts);
    }),
  };
}

/** A stored row's vectors, one per passage. */
export function rowVectors(row: StoredVector): Float32Array[] {
  return [row.vector, ...(row.passages ?? [])];
}

/**
 * Vectors for the jobs an item with the same texts already has, made by `model` (read from IndexedDB, exactly as the
 * model made them); undefined for a job the model must make.
 */
export async function donatedVectors(
  jobs: EmbedJob[],
  sameText: ReturnType<typeof sameTextIndex>,
  readVectors: (ids: string[]) => Promise<(StoredVector | undefined)[]>,
  model: string | undefined,
): Promise<(Float32Array[] | undefined)[]> {
  const out: (Float32Array[] | undefined)[] = new Array(jobs.length);
  const donors = jobs.map((j, i) => ({ i, id: j.print === undefined ? sameText.donor(j.texts) : undefined })).filter((d) => d.id !== undefined);
  if (!donors.length) return out;
  const rows = await readVectors(donors.map((d) => d.id!));
  rows.forEach((row, n) => {
    const { i } = donors[n];
    const vs = row && row.model === model ? rowVectors(row) : undefined;
    if (vs && vs.length === jobs[i].texts.length) out[i] = vs;
  });
  return out;
}
