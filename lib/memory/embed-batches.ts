import { MAX_WINDOW_CHARS, MAX_WORD_PIECES, windowText, type Embedder } from '../embed/embedder';
import { pieceCosts } from './index/passages';
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

/**
 * What the model reads of a text, in estimated word pieces ([CLS] and [SEP] included, its window at most): the key
 * batches are sorted by. Characters are a poor guide (a window of code or of another script holds far fewer).
 */
export function readPieces(text: string): number {
  const t = windowText(text);
  return Math.min(MAX_WORD_PIECES, pieceCosts(t)[t.length] + 2);
}

/** The jobs' distinct texts: a text two jobs share, or a job repeats, is made once. */
function distinctTexts(jobs: EmbedJob[]): string[] {
  return [...new Set(jobs.flatMap((j) => j.texts))];
}

/** Sorts texts by the word pieces the model reads of them (`pieces`, else `readPieces`' estimate), fewer first. */
function byPieces(texts: string[], pieces: ReadonlyMap<string, number> = new Map(texts.map((t) => [t, readPieces(t)]))): string[] {
  return texts.sort((a, b) => pieces.get(a)! - pieces.get(b)! || a.length - b.length);
}

/**
 * The jobs' distinct texts cut into batches of `size`, in order of the word pieces the model reads of them (`pieces`;
 * without it, `readPieces`' estimate): the WebGPU engine pads every text of a batch to its longest, so a batch of like
 * lengths wastes little work (the int8 engines run each text alone: batchingFor). Sorting texts rather than jobs matters with passages: a long item's last passage is
 * usually short.
 */
export function lengthBatches(jobs: EmbedJob[], size: number, pieces?: ReadonlyMap<string, number>): string[][] {
  const texts = distinctTexts(jobs);
  byPieces(texts, pieces);
  const out: string[][] = [];
  for (let i = 0; i < texts.length; i += size) out.push(texts.slice(i, i + size));
  return out;
}

/**
 * Characters tokenized between two looks at the worker's other work: about 20 passages, a few tens of milliseconds.
 * Counted in characters, as the tokenizer's work goes, so twenty texts of a whole window each do not hold the worker.
 */
const COUNT_SLICE_CHARS = 24_000;

/**
 * The texts of an indexing run in the order they are embedded. They start in order of `readPieces`' estimate; with the
 * model's own count (`count`), the texts are counted a slice at a time while the first batches run, and the rest are
 * then taken in order of the real count. The estimate misorders enough texts that batches of 16 padded 1.10-1.15 times
 * the real work on LongMemEval's chat turns, the real count 1.02-1.04; but tokenizing a 20,000-message export takes
 * the worker's thread tens of seconds, which neither the engines nor a ranking should wait for.
 */
class LengthQueue {
  private texts: string[];
  private at = 0;
  private counted?: Map<string, number>;

  constructor(jobs: EmbedJob[], count?: (texts: string[]) => number[]) {
    const texts = distinctTexts(jobs);
    this.texts = byPieces(texts);
    if (count) void this.countAll(texts.slice(), count);
  }

  get left(): number {
    return this.texts.length - this.at;
  }

  /** The next `size` texts (the rest sorted by the real count first, once it is known). */
  take(size: number): string[] {
    if (this.counted) {
      this.texts = byPieces(this.texts.slice(this.at), this.counted);
      this.at = 0;
      this.counted = undefined;
    }
    const batch = this.texts.slice(this.at, this.at + size);
    this.at += batch.length;
    return batch;
  }

  private async countAll(texts: string[], count: (texts: string[]) => number[]): Promise<void> {
    const pieces = new Map<string, number>();
    try {
      for (let i = 0; i < texts.length; ) {
        if (i) await new Promise<void>((go) => setTimeout(go, 0));
        if (!this.left) return;
        // At least one text a slice; a text is read no further than the window (`windowText`).
        const slice = [texts[i++]];
        let chars = Math.min(slice[0].length, MAX_WINDOW_CHARS);
        while (i < texts.length && (chars += Math.min(texts[i].length, MAX_WINDOW_CHARS)) <= COUNT_SLICE_CHARS) slice.push(texts[i++]);
        count(slice).forEach((n, k) => pieces.set(slice[k], n));
      }
      this.counted = pieces;
    } catch {
      // No count: the estimate's order stands.
    }
  }
}

/**
 * Makes the jobs' vectors with `make`, batches of like lengths (LengthQueue), and hands `store` the jobs a batch
 * completed, each with all its vectors (an item's passages may be made in several batches; it is stored once the last
 * is made, so a run stopped before that leaves it waiting). With `parallel` above one (engines that queue work on
 * threads of their own), the next batches are started before the last one is stored.
 */
export async function inBatches(
  jobs: EmbedJob[],
  size: number,
  parallel: () => number,
  make: (texts: string[]) => Promise<Float32Array[]>,
  store: (part: EmbedJob[], vectors: Float32Array[][]) => Promise<void>,
  /** The model's own count of word pieces (`Embedder.countPieces`): batches sorted by it pad least. */
  count?: (texts: string[]) => number[],
): Promise<void> {
  const uses = new Map<string, { job: number; k: number }[]>();
  jobs.forEach((job, i) => job.texts.forEach((t, k) => (uses.get(t) ?? uses.set(t, []).get(t)!).push({ job: i, k })));
  const made: Float32Array[][] = jobs.map(() => []);
  const left = jobs.map((j) => j.texts.length);
  const queue = new LengthQueue(jobs, count);
  const ahead: { texts: string[]; vectors: Promise<Float32Array[]> }[] = [];
  while (queue.left || ahead.length) {
    while (ahead.length < parallel() && queue.left) {
      const texts = queue.take(size);
      const vectors = make(texts);
      vectors.catch(() => undefined); // awaited in turn below; a batch started ahead must not fail unobserved
      ahead.push({ texts, vectors });
    }
    const { texts, vectors } = ahead.shift()!;
    const vs = await vectors;
    const done: number[] = [];
    texts.forEach((t, i) => {
      for (const { job, k } of uses.get(t)!) {
        made[job][k] = vs[i];
        if (--left[job] === 0) done.push(job);
      }
    });
    if (done.length) await store(done.map((i) => jobs[i]), done.map((i) => made[i]));
    for (const i of done) made[i] = [];
  }
}

/**
 * The indexing engine, falling back to the worker's own model (`fallback`) if it fails (offscreen document refused
 * or gone) and that model is the same one (vectors of two models never mix).
 */
export function indexingEngine(first: Embedder, fallback: () => Promise<Embedder | null>) {
  let embedder = first;
  return {
    /**
     * The count of word pieces to sort by: the engine's own, else the fallback model's (the same model, so the same
     * tokenizer: an offscreen engine's tokenizer is in another document), else none (the estimate).
     */
    countPieces: async () => first.countPieces ?? (await fallback().catch(() => null))?.countPieces,
    parallel: () => Math.max(1, embedder.parallel ?? 1),
    backend: () => embedder.backend,
    embed: async (texts: string[]): Promise<Float32Array[]> => {
      const used = embedder;
      try {
        return await used.embed(texts);
      } catch (e) {
        const other = await fallback();
        if (!other || other === used || other.modelId !== used.modelId) throw e;
        embedder = other;
        return other.embed(texts);
      }
    },
  };
}

/** Indexing progress in memories: one is done when every job of it (its own vectors, its context vector) is stored. */
export class MemoryProgress {
  private left = new Map<string, number>();
  private done = 0;

  constructor(
    /** The memories the run may embed; one that turns out to have nothing to make is taken off when its window comes. */
    private total: number,
    private readonly report?: (done: number, total: number) => void,
  ) {
    report?.(0, this.total); // panels show the count from the start
  }

  /** A window's memories and their jobs, before its vectors are made. */
  expect(ids: readonly string[], jobs: readonly EmbedJob[]): void {
    for (const job of jobs) this.left.set(job.id, (this.left.get(job.id) ?? 0) + 1);
    const without = ids.filter((id) => !this.left.has(id)).length;
    if (without) {
      this.total -= without;
      this.report?.(this.done, this.total);
    }
  }

  stored(part: EmbedJob[]): void {
    for (const job of part) {
      const n = this.left.get(job.id)! - 1;
      this.left.set(job.id, n);
      if (n === 0) {
        this.done++;
        this.left.delete(job.id);
      }
    }
    this.report?.(this.done, this.total);
  }
}
