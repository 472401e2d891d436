import type { EmbedJob } from './context-vectors';
import type { StoredVector } from './db';

/** How many texts the jobs hold (an item of several passages is one job of several texts). */
export function textCount(jobs: EmbedJob[]): number {
  let n = 0;
  for (const j of jobs) n += j.texts.length;
  return n;
}

/** Vectors made for the jobs' texts in one flat list, handed back per job. */
export function perJob(jobs: EmbedJob[], flat: Float32Array[]): Float32Array[][] {
  let at = 0;
  return jobs.map((j) => flat.slice(at, (at += j.texts.length)));
}

/** An item's vectors as its row: the first passage's as `vector` (as before passages), the others after it. */
export function storedVector(id: string, model: string, vectors: Float32Array[]): StoredVector {
  return { id, model, vector: vectors[0], ...(vectors.length > 1 ? { passages: vectors.slice(1) } : {}) };
}

/** Jobs cut into batches of about `size` texts (an item's texts stay in one batch). */
function batchesOf(jobs: EmbedJob[], size: number): EmbedJob[][] {
  const out: EmbedJob[][] = [];
  let cur: EmbedJob[] = [];
  let n = 0;
  for (const job of jobs) {
    cur.push(job);
    n += job.texts.length;
    if (n >= size) {
      out.push(cur);
      cur = [];
      n = 0;
    }
  }
  if (cur.length) out.push(cur);
  return out;
}

/**
 * Runs `make` on batches of the jobs and `store` on each result in order; with `parallel` above one (engines that
 * queue work on threads of their own), the next batches are started before the last one is stored.
 */
export async function inBatches(
  jobs: EmbedJob[],
  size: number,
  parallel: () => number,
  make: (part: EmbedJob[]) => Promise<Float32Array[][]>,
  store: (part: EmbedJob[], vectors: Float32Array[][]) => Promise<void>,
): Promise<void> {
  const batches = batchesOf(jobs, size);
  const ahead: { part: EmbedJob[]; vectors: Promise<Float32Array[][]> }[] = [];
  for (let next = 0; next < batches.length || ahead.length; ) {
    while (ahead.length < parallel() && next < batches.length) {
      const part = batches[next++];
      const vectors = make(part);
      vectors.catch(() => undefined); // awaited in turn below; a batch started ahead must not fail unobserved
      ahead.push({ part, vectors });
    }
    const { part, vectors } = ahead.shift()!;
    await store(part, await vectors);
  }
}

/** Indexing progress in memories: one is done when every job of it (its own vectors, its context vector) is stored. */
export class MemoryProgress {
  private left = new Map<string, number>();
  private done = 0;
  private readonly total: number;

  constructor(
    jobs: EmbedJob[],
    private readonly report?: (done: number, total: number) => void,
  ) {
    for (const job of jobs) this.left.set(job.id, (this.left.get(job.id) ?? 0) + 1);
    this.total = this.left.size;
    report?.(0, this.total); // panels show the count from the start
  }

  stored(part: EmbedJob[]): void {
    for (const job of part) {
      const n = this.left.get(job.id)! - 1;
      this.left.set(job.id, n);
      if (n === 0) this.done++;
    }
    this.report?.(this.done, this.total);
  }
}
