// The store's indexing: what a run of embedPending embeds, and made vectors stored (in a turn of the store's) only
// for items that still have the texts they were made from.
import { ownJob, sameTexts, type ContextVectors, type EmbedJob } from './context-vectors';
import { storedVector } from './embed-batches';
import type { IndexedMemory } from './index/memory-index';
import { textHash } from '../core/text-hash';
import type { StoreParts } from './store-writes';

/**
 * What an indexing run embeds, by id, without reading a text: items without their vectors (`unembedded`), then the
 * threaded items whose context vectors are missing. `mem` gives the store's memory as it is at each read (a Clear all
 * replaces it).
 */
export function pendingIds(mem: () => IndexedMemory, contexts: ContextVectors, unembedded: string[]): { own: string[]; threaded: string[] } {
  // Context vectors held are kept current by every write (and checked at load): only missing ones are looked for.
  const threaded = [...mem().items()].filter((it) => it.thread && !contexts.prints.has(it.id)).map((it) => it.id);
  return { own: unembedded, threaded };
}

/**
 * The jobs of some of those ids (a window of the run: `own` to embed, `threaded` whose context vectors to make), their
 * texts read now (inBatches orders them).
 */
export async function pendingJobs(mem: () => IndexedMemory, contexts: ContextVectors, own: string[], threaded: string[]): Promise<EmbedJob[]> {
  const waiting = await mem().hydrate(own, false);
  const jobs = [...waiting.values()].map(ownJob);
  // Their texts are mostly those just read (an import's messages): only the others are read.
  const read = async (ids: string[]) => {
    const more = await mem().hydrate(ids.filter((id) => !waiting.has(id)), false);
    for (const [id, item] of waiting) more.set(id, item);
    return more;
  };
  return [...jobs, ...(await contexts.jobs(threaded, read))];
}

/**
 * Writes made vectors in one transaction and then into memory, in a turn of their own (MemoryStore.storeVectors); jobs
 * whose item changed while they were made (edited, deleted, cleared, its predecessor changed) are skipped, and all of
 * them when `held`, the model of the vectors the store holds now, is not `model`. `vectors[i]` are job i's, one per text.
 */
export async function storeMadeVectors(
  s: StoreParts,
  jobs: EmbedJob[],
  vectors: Float32Array[][],
  model: string,
  held: string | undefined,
): Promise<void> {
  if (model !== held) return; // the model changed while these were made
  const ids = jobs.map((j) => j.id);
  const [items, contextTexts] = await Promise.all([
    s.mem.hydrate(ids.filter((_, i) => jobs[i].print === undefined), false),
    s.contexts.textsOf(ids.filter((_, i) => jobs[i].print !== undefined)),
  ]);
  const live = jobs.map((job, i) => ({ job, vs: vectors[i] })).filter(({ job, vs }) => {
    const head = s.mem.head(job.id);
    if (!head || head.needsReview || vs.length !== job.texts.length) return false;
    if (job.print === undefined) {
      const item = items.get(job.id);
      return !!item && !s.mem.hasVector(job.id) && sameTexts(ownJob(item).texts, job.texts);
    }
    const text = contextTexts.get(job.id);
    return text !== undefined && textHash(text) === job.print;
  });
  const own = live.filter(({ job }) => job.print === undefined);
  const ctx = live.filter(({ job }) => job.print !== undefined);
  await s.write(async () => {
    if (own.length) await s.db.vectors.bulkPut(own.map(({ job, vs }) => storedVector(job.id, model, vs)));
    if (ctx.length) await s.db.contexts.bulkPut(ctx.map(({ job, vs }) => ({ id: job.id, model, vector: vs[0], print: job.print! })));
  }, live.length);
  for (const { job, vs } of own) s.mem.setVectors(job.id, vs);
  for (const { job, vs } of ctx) {
    s.mem.setContextVector(job.id, vs[0]);
    s.contexts.prints.set(job.id, job.print!);
  }
}
