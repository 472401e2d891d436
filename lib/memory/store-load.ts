import type { IndexedMemory } from './index/memory-index';
import { packedTerms } from './index/lexical-pack';
import { passageKey } from './index/memory-index';
import type { BackstoryDB, StoredVector } from './db';
import { rowVectors, type ContextVectors } from './context-vectors';
import { indexPrint, PACK_KEY, usablePack } from './pack';
import { countTokens, loadTokenCounter } from './tokens';
import { contentPrint, passagesOf } from './index/item-text';

/**
 * Reads the stored memory into `mem`, once per worker life. Items always come from `items`; their vectors and BM25
 * entries come from the persisted pack where the item's fingerprint still matches (one read, no re-quantising or
 * tokenising), the rest from `vectors` and the tokeniser. If the vectors so gathered do not number the rows of
 * `vectors`, every vector is read again from the table. Context vectors come from the pack, or from `contexts`
 * when the pack does not hold them all; stale ones are dropped.
 *
 * `pickModel` is given the model the stored vectors were made with and returns the one to read them under (the
 * store's, if it already has one). Resolves to how many items were read past the pack (`stale`), and whether the
 * pack should be rewritten at once (`rewrite`: missing, or it disagreed on vectors and each start would read them
 * all again).
 */
export async function loadStored(
  db: BackstoryDB,
  mem: IndexedMemory,
  contexts: ContextVectors,
  pickModel: (found: string | undefined) => string | undefined,
): Promise<{ stale: number; rewrite: boolean }> {
  // The token table is read while IndexedDB is (items are counted below, and ranked and made after the load).
  const [items, stored, vectorRows, contextRows] = await Promise.all([
    db.items.toArray(),
    db.packs.get(PACK_KEY).catch(() => undefined),
    db.vectors.count(),
    db.contexts.count(),
    loadTokenCounter(),
  ]);
  // Items from schema v1 have no token count (the upgrade step leaves it to the worker, see migrateItemV1).
  for (const item of items) if (typeof item.tokens !== 'number') item.tokens = countTokens(item.text);
  const usable = usablePack(stored, undefined) ? stored : undefined;
  // The vectors table is the truth about which model made the vectors (a pack may predate a change of model).
  const model = pickModel((vectorRows ? (await db.vectors.toCollection().first())?.model : undefined) || usable?.model || undefined);
  const pack = usable && usable.model === model ? usable : undefined;
  const at = new Map<string, number>();
  pack?.ids.forEach((id, i) => at.set(id, i));
  const terms = pack ? packedTerms(pack.lexical) : [];
  const packIds: string[] = [];
  const packSlots: number[] = [];
  const entries: number[] = [];
  const rest: string[] = [];
  // The print of each pack entry whose item still matches it.
  const printAt = new Map<number, number>();
  // Each item's words are hashed once: the pack's check and the index (which keeps the print, not the text) share it.
  const contents = items.map(contentPrint);
  const fromPack = items.map((item, k) => {
    const i = at.get(item.id);
    const ok = !!pack && i !== undefined && pack.prints[i] === indexPrint(item, contents[k]);
    if (ok) printAt.set(i!, pack!.prints[i!]);
    if (ok && !item.needsReview) {
      entries.push(i!);
      packIds.push(item.id);
      if (pack!.slots[i!] >= 0) packSlots.push(pack!.slots[i!]);
      else packIds.pop();
    }
    if (!ok && !item.needsReview) rest.push(item.id);
    return ok;
  });
  // BM25 entries of unchanged items first, as loaded (postings are built per term on first use), then the rest.
  if (pack) mem.lexicalIndex.loadPacked(pack.lexical, terms, entries, entries.map((i) => pack.ids[i]));
  // Whether a text reads as a decision, from packs that keep it; else each text is read for it.
  const decides = pack?.decisions ? new Set(pack.decisions) : undefined;
  items.forEach((item, k) => {
    const i = fromPack[k] && decides ? at.get(item.id) : undefined;
    mem.put(item, undefined, { lexicalLoaded: fromPack[k] && !item.needsReview, content: contents[k], textDecides: i === undefined ? undefined : decides!.has(i) });
  });
  // The rows at hand are the whole items until this load ends (the index keeps their heads).
  const rowOf = new Map(items.map((it) => [it.id, it]));
  if (pack) {
    // Other passages of the items taken from the pack, under their passage keys.
    const { owner, part, slot } = pack.passages;
    for (let j = 0; j < owner.length; j++) {
      const i = owner[j];
      if (pack.slots[i] < 0 || pack.prints[i] !== printAt.get(i)) continue;
      packIds.push(passageKey(pack.ids[i], part[j]));
      packSlots.push(slot[j]);
    }
    mem.addPackedVectors(packIds, packSlots, pack.dim, pack.codes, pack.scales);
  }
  // A row is used only if it holds a vector for every passage the item has now (a row made before passages, or
  // by another split, is embedded again).
  const useRow = (v: StoredVector | undefined) => {
    const item = v && v.model === model && mem.head(v.id) ? rowOf.get(v.id) : undefined;
    if (!item || item.needsReview) return;
    const vs = rowVectors(v!);
    mem.setVectors(item.id, vs.length === passagesOf(item).length ? vs : undefined);
  };
  if (rest.length) for (const v of rest.length > items.length / 2 ? await db.vectors.toArray() : await db.vectors.bulkGet(rest)) useRow(v);
  const fullRead = mem.vectorCount !== vectorRows;
  if (fullRead) {
    // The pack and the table disagree about which items have vectors (written by other code, or a vector
    // added or dropped since the pack): the table is the truth.
    const byId = new Map((await db.vectors.toArray()).map((v) => [v.id, v]));
    for (const item of items) if (!item.needsReview) {
      mem.setVectors(item.id, undefined);
      useRow(byId.get(item.id));
    }
  }
  const contextsRead = !pack || pack.contexts.ids.length !== contextRows;
  if (!contextsRead) {
    const c = pack.contexts;
    mem.addPackedContextVectors(c.ids, c.ids.map((_, i) => i), c.dim, c.codes, c.scales);
    c.ids.forEach((id, i) => contexts.prints.set(id, c.prints[i]));
  } else if (contextRows) {
    for (const row of await db.contexts.toArray()) {
      if (row.model !== model || !mem.head(row.id)) continue;
      mem.setContextVector(row.id, row.vector);
      contexts.prints.set(row.id, row.print);
    }
  }
  const fromRows = async (ids: string[]) => new Map(ids.flatMap((id) => (rowOf.has(id) ? [[id, rowOf.get(id)!] as const] : [])));
  await contexts.jobs(contexts.prints.keys(), fromRows); // drops the stale ones
  return { stale: rest.length, rewrite: !pack || fullRead || (contextsRead && contextRows > 0) };
}
