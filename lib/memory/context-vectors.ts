import { contextText, embedText } from './index/item-text';
import type { IndexedMemory } from './index/memory-index';
import type { StoredVector } from './db';
import { textHash } from './pack';
import type { MemoryItem } from './types';

/** A vector to make: an item's own (`print` undefined) or its context vector (`print`: hash of its text). */
export interface EmbedJob {
  id: string;
  text: string;
  print?: number;
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
      if (text !== undefined) jobs.push({ id, text, print });
    }
    return jobs;
  }
}

/**
 * The items that have a vector, by a hash of the text the model sees: a note whose text another already has (a
 * duplicate capture, the same notes imported under other ids) takes that vector instead of the model's time.
 * Built once per indexing run (about 2 µs per item).
 */
export function sameTextIndex(mem: IndexedMemory) {
  const byHash = new Map<number, string[]>();
  const add = (text: string, id: string) => {
    const h = textHash(text);
    const ids = byHash.get(h);
    if (ids) ids.push(id);
    else byHash.set(h, [id]);
  };
  for (const it of mem.items()) if (!it.needsReview && mem.hasVector(it.id)) add(embedText(it), it.id);
  return {
    add,
    /** An item that has a vector and exactly this text (the hash only narrows the search). */
    donor: (text: string) => byHash.get(textHash(text))?.find((id) => {
      const it = mem.get(id);
      return !!it && !it.needsReview && mem.hasVector(id) && embedText(it) === text;
    }),
  };
}

/**
 * Vectors for the jobs' texts: an item's own read from IndexedDB where an item with the same text has one made by
 * `model` (exactly as the model made it), the rest from the model, each distinct text once.
 */
export async function embedOnce(
  jobs: EmbedJob[],
  sameText: ReturnType<typeof sameTextIndex>,
  readVectors: (ids: string[]) => Promise<(StoredVector | undefined)[]>,
  model: string | undefined,
  embed: (texts: string[]) => Promise<Float32Array[]>,
): Promise<Float32Array[]> {
  const texts = jobs.map((j) => j.text);
  const out: (Float32Array | undefined)[] = new Array(texts.length);
  const donors = jobs.map((j) => (j.print === undefined ? sameText.donor(j.text) : undefined));
  const rows = donors.some(Boolean) ? await readVectors(donors.map((d) => d ?? '')) : [];
  rows.forEach((row, i) => {
    if (donors[i] && row && row.model === model) out[i] = row.vector;
  });
  const missing = [...new Set(texts.filter((_, i) => !out[i]))];
  if (missing.length) {
    const made = await embed(missing);
    const byText = new Map(missing.map((t, k) => [t, made[k]]));
    texts.forEach((t, i) => (out[i] ??= byText.get(t)));
  }
  return out as Float32Array[];
}
