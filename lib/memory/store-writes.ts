// The store's changes to items, each run inside its turn (MemoryStore.add, update, commitImport, touch, remove): written
// to IndexedDB first, in one transaction, and only then to the in-memory indexes.
import type { Table } from 'dexie';
import { ownJob, sameTexts, type ContextVectors, type EmbedJob } from './context-vectors';
import type { BackstoryDB } from './db';
import { planImport, type ImportCounts } from './import-plan';
import type { IndexedMemory } from './index/memory-index';
import { intake, type Provenance } from './intake';
import { patchItem } from './normalize';
import type { MemoryInput, MemoryItem, MemoryPatch } from './types';

/** The parts of the store a write inside its turn reaches (these, and a synced write: synced-write.ts). */
export interface StoreParts {
  db: BackstoryDB;
  mem: IndexedMemory;
  contexts: ContextVectors;
  /** One read-write transaction over items, vectors and context vectors (and `more`), then `changed` noted. */
  write: (fn: () => Promise<void>, changed?: number, more?: Table[]) => Promise<void>;
}

/**
 * Stores new or replacing items (`MemoryStore.add`). Returns the vectors to make now: the items' own (unless kept) and
 * the context vectors they touch; none with `deferEmbedding`.
 */
export async function addItems(s: StoreParts, items: MemoryItem[], deferEmbedding: boolean | undefined): Promise<EmbedJob[]> {
  const olds = await s.mem.hydrate(items.map((it) => it.id), false);
  // An item replaced by one whose embedded text is the same (a re-import of the same notes) keeps its vector.
  const keeps = (it: MemoryItem) => {
    const old = olds.get(it.id);
    return !!old && !it.needsReview && s.mem.hasVector(it.id) && sameTexts(ownJob(old).texts, ownJob(it).texts);
  };
  const kept = new Set(items.filter(keeps).map((it) => it.id));
  const dropped = items.filter((it) => !kept.has(it.id));
  const before = s.contexts.withSuccessors(items.map((it) => it.id));
  await s.write(async () => {
    await s.db.items.bulkPut(items);
    await s.db.vectors.bulkDelete(dropped.map((it) => it.id));
  }, items.length);
  for (const item of items) s.mem.put(item); // put() leaves the vector held (kept items)
  for (const item of dropped) s.mem.setVector(item.id, undefined);
  const touched = s.contexts.withSuccessors(items.map((it) => it.id), before);
  if (deferEmbedding) {
    await s.contexts.dropStale(touched); // embedPending makes them
    return [];
  }
  const contexts = await s.contexts.jobs(touched); // stale ones dropped
  return [...dropped.filter((it) => !it.needsReview).map(ownJob), ...contexts];
}

/** Applies `patch` to the item as stored (`MemoryStore.update`); the vectors to make now come with it. */
export async function updateItem(s: StoreParts, id: string, patch: MemoryPatch, now: number): Promise<{ item: MemoryItem; jobs: EmbedJob[] }> {
  const current = (await s.mem.hydrate([id])).get(id);
  if (!current) throw new Error(`No memory with id ${id}.`);
  const { item, textChanged } = patchItem(current, patch, now);
  const reembed = textChanged || item.title !== current.title;
  const before = s.contexts.withSuccessors([id]);
  await s.write(async () => {
    await s.db.items.put(item);
    if (reembed) await s.db.vectors.delete(id);
  });
  s.mem.put(item);
  if (reembed) s.mem.setVector(id, undefined);
  const own: EmbedJob[] = reembed && !item.needsReview ? [ownJob(item)] : [];
  return { item, jobs: [...own, ...(await s.contexts.jobs(s.contexts.withSuccessors([id], before)))] };
}

/** Commits an import's items (`MemoryStore.commitImport`); embedPending makes their vectors. */
export async function importItems(
  s: StoreParts,
  inputs: MemoryInput[],
  opts: { importId: string; provenance: Provenance; now?: number },
): Promise<ImportCounts> {
  const taken = inputs.map((input) => intake(input, opts.provenance));
  const olds = await s.mem.hydrate(taken.flatMap((t) => (t.id ? [t.id] : [])), false);
  const { counts, changed, reembed } = planImport(taken, (id) => olds.get(id), opts.importId, opts.now ?? Date.now());
  const before = s.contexts.withSuccessors(changed.map((it) => it.id));
  await s.write(async () => {
    await s.db.items.bulkPut(changed);
    await s.db.vectors.bulkDelete(reembed);
  }, changed.length);
  for (const item of changed) s.mem.put(item);
  for (const id of reembed) s.mem.setVector(id, undefined);
  await s.contexts.dropStale(s.contexts.withSuccessors(changed.map((it) => it.id), before)); // embedPending makes them
  return counts;
}

/** Marks items as used at `now` (`MemoryStore.touch`). */
export async function touchItems(s: StoreParts, ids: string[], now: number): Promise<void> {
  const items = [...(await s.mem.hydrate(ids, false)).values()].map((it) => ({ ...it, lastUsedAt: now }));
  await s.db.items.bulkPut(items);
  for (const it of items) s.mem.put(it);
}

/** Deletes items (`MemoryStore.remove`, `removeImport`); returns them. */
export async function removeItems(s: StoreParts, ids: string[]): Promise<MemoryItem[]> {
  const removed = [...(await s.mem.hydrate(ids, false)).values()];
  // Their successors' context vectors were made with them: they go too.
  const gone = new Set(ids);
  const next = s.contexts.withSuccessors(ids).filter((id) => !gone.has(id));
  await s.write(async () => {
    await s.db.items.bulkDelete(ids);
    await s.db.vectors.bulkDelete(ids);
    await s.db.contexts.bulkDelete([...ids, ...next]);
  }, ids.length);
  for (const id of ids) {
    s.mem.delete(id);
    s.contexts.prints.delete(id);
  }
  await s.contexts.dropStale(next);
  return removed;
}
