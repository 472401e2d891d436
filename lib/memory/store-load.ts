import type { IndexedMemory } from './index/memory-index';
import { packedTerms } from './index/lexical-pack';
import { passageKey } from './index/memory-index';
import { readInSlices, type BackstoryDB, type PackRow, type StoredVector } from './db';
import type { MemoryItem } from './types';
import { rowVectors, type ContextVectors } from './context-vectors';
import { indexPrint, PACK_KEY, PACK_VERSION, usablePack } from './pack';
import { countTokens, loadTokenCounter } from './tokens';
import { contentPrint, passagesOf } from './index/item-text';

/**
 * Reads the stored memory into `mem`, once per worker life. An item's head comes from the persisted pack when its row
 * was not written since the pack (its `rev`, lib/memory/item-revs.ts), else its row is read whole; a whole row's
 * vectors and BM25 entry still come from the pack when its fingerprint matches (one read, no re-quantising or
 * tokenising), the rest from `vectors` and the tokeniser. If the vectors so gathered do not number the rows of
 * `vectors`, every vector is read again from the table. Context vectors come from the pack, or from `contexts`
 * when the pack does not hold them all; those an item's change made stale are dropped.
 *
 * `pickModel` is given the model the stored vectors were made with and returns the one to read them under (the
 * store's, if it already has one). Resolves to how many items were read past the pack (`stale`), whether the pack
 * should be rewritten at once (`rewrite`: missing, or it disagreed on vectors and each start would read them all
 * again), and the rows without a revision (`unstamped`: to stamp, so the next start need not read them).
 */
export async function loadStored(
  db: BackstoryDB,
  mem: IndexedMemory,
  contexts: ContextVectors,
  pickModel: (found: string | undefined) => string | undefined,
): Promise<{ stale: number; rewrite: boolean; unstamped: string[] }> {
  // The token table is read while IndexedDB is (items are counted below, and ranked and made after the load). The
  // pack's version and revision come first, in a small row: every row is read whole at once when some have no
  // revision or no pack of this version holds heads, else the rows written since the pack, while the pack is read.
  const keysRead = Promise.all([db.items.toCollection().primaryKeys() as Promise<string[]>, db.items.orderBy('rev').count()]);
  const infoRead = db.packInfo.get(PACK_KEY).catch(() => undefined);
  const plan = Promise.all([keysRead, infoRead]).then(([[keys, stamped], info]) =>
    stamped === keys.length && info?.version === PACK_VERSION && Number.isSafeInteger(info.rev) ? info.rev : undefined,
  );
  const [stored, [keys], whole, since, top, info, vectorRows, contextKeys] = await Promise.all([
    db.packs.get(PACK_KEY).catch(() => undefined),
    keysRead,
    plan.then((rev) => (rev === undefined ? db.items.toArray() : undefined)),
    plan.then((rev) => (rev === undefined ? undefined : { rev, rows: quiet(db.items.where('rev').above(rev).toArray()) })),
    db.items.orderBy('rev').lastKey(),
    infoRead,
    db.vectors.count(),
    db.contexts.toCollection().primaryKeys() as Promise<string[]>,
    loadTokenCounter(),
  ]);
  // Writes from now on are stamped above every revision the table or a pack holds (a deleted row's is in the pack),
  // even a pack not read this time.
  const revOf = (x: { rev?: unknown } | undefined) => (typeof x?.rev === 'number' && Number.isFinite(x.rev) ? x.rev : 0);
  db.revs.startAbove(Math.max(Number(top ?? 0) || 0, revOf(stored), revOf(info)));
  const usable = (await usablePack(stored, undefined)) ? stored : undefined;
  // The vectors table is the truth about which model made the vectors (a pack may predate a change of model).
  const model = pickModel((vectorRows ? (await db.vectors.toCollection().first())?.model : undefined) || usable?.model || undefined);
  const pack = usable && usable.model === model ? usable : undefined;
  const at = new Map<string, number>();
  pack?.ids.forEach((id, i) => at.set(id, i));
  // Each item in the table's order: its row read whole, or (a number) its head's place in the pack.
  const order = whole ?? (await rowsSince(db, pack, keys, at, since));
  const rows = order.filter((x): x is MemoryItem => typeof x !== 'number');
  // Items from schema v1 have no token count (the upgrade step leaves it to the worker, see migrateItemV1).
  for (const item of rows) if (typeof item.tokens !== 'number') item.tokens = countTokens(item.text);
  const terms = pack ? packedTerms(pack.lexical) : [];
  const packIds: string[] = [];
  const packSlots: number[] = [];
  const entries: number[] = [];
  const rest: string[] = [];
  // The print of each pack entry whose item still matches it.
  const printAt = new Map<number, number>();
  const usePackEntry = (i: number, held: boolean) => {
    printAt.set(i, pack!.prints[i]);
    if (held) return;
    entries.push(i);
    if (pack!.slots[i] < 0) return;
    packIds.push(pack!.ids[i]);
    packSlots.push(pack!.slots[i]);
  };
  // Each whole row's words are hashed once: the pack's check and the index (which keeps the print, not the text) share it.
  const contents = new Map(rows.map((row) => [row.id, contentPrint(row)]));
  const matched = new Set<string>();
  for (const x of order) {
    if (typeof x === 'number') {
      usePackEntry(x, !!pack!.heads[x].needsReview);
      continue;
    }
    const i = at.get(x.id);
    if (!!pack && i !== undefined && pack.prints[i] === indexPrint(x, contents.get(x.id)!)) {
      matched.add(x.id);
      usePackEntry(i, !!x.needsReview);
    } else if (!x.needsReview) rest.push(x.id);
  }
  // BM25 entries of unchanged items first, taken from the pack as they are, then the rest.
  if (pack) mem.lexicalIndex.loadPacked(pack.lexical, terms, entries, pack.ids);
  // Whether a text reads as a decision, from the pack; else each text is read for it.
  const decides = new Set(pack?.decisions);
  for (const x of order) {
    if (typeof x === 'number') {
      const head = pack!.heads[x];
      mem.putHead(head, { lexicalLoaded: !head.needsReview, content: pack!.contents[x], textDecides: decides.has(x) });
      continue;
    }
    const i = matched.has(x.id) ? at.get(x.id) : undefined;
    mem.put(x, undefined, { lexicalLoaded: matched.has(x.id) && !x.needsReview, content: contents.get(x.id), textDecides: i === undefined ? undefined : decides.has(i) });
  }
  // The rows at hand are the whole items until this load ends (the index keeps their heads).
  const rowOf = new Map(rows.map((it) => [it.id, it]));
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
  if (rest.length) for (const v of rest.length > order.length / 2 ? await db.vectors.toArray() : await db.vectors.bulkGet(rest)) useRow(v);
  const fullRead = mem.vectorCount !== vectorRows;
  if (fullRead) {
    // The pack and the table disagree about which items have vectors (written by other code, or a vector
    // added or dropped since the pack): the table is the truth, and every item is read whole to check its passages.
    const heads = order.filter((x): x is number => typeof x === 'number').map((i) => pack!.ids[i]);
    for (const row of await readInSlices(heads, (part) => db.items.bulkGet(part))) if (row) rowOf.set(row.id, row);
    const byId = new Map((await db.vectors.toArray()).map((v) => [v.id, v]));
    for (const item of rowOf.values()) if (!item.needsReview) {
      mem.setVectors(item.id, undefined);
      useRow(byId.get(item.id));
    }
  }
  // The pack's context vectors are used when the table holds vectors for the same items (what they were made from is
  // checked below); else the table's are read.
  const contextsRead = !pack || !sameMembers(pack.contexts.ids, contextKeys);
  if (!contextsRead) {
    const c = pack.contexts;
    mem.addPackedContextVectors(c.ids, c.ids.map((_, i) => i), c.dim, c.codes, c.scales);
    c.ids.forEach((id, i) => contexts.prints.set(id, c.prints[i]));
  }
  // Rows of the table the pack does not hold as they are: made since it, or left behind when their item stopped
  // needing one (a row is replaced only when one is made again). Each is checked below.
  const unlike = new Set<string>();
  if (contextsRead && contextKeys.length) {
    const packed = new Map(pack?.contexts.ids.map((id, i) => [id, pack.contexts.prints[i]]));
    for (const row of await db.contexts.toArray()) {
      if (row.model !== model || !mem.head(row.id)) continue;
      mem.setContextVector(row.id, row.vector);
      contexts.prints.set(row.id, row.print);
      if (packed.get(row.id) !== row.print) unlike.add(row.id);
    }
  }
  // A context vector reads its item and the one before it: those of threads a row read whole was in, or an item
  // deleted since the pack was in, and the table's rows unlike the pack's, may be stale (the others were made from
  // what the pack holds).
  const touched = touchedThreads(pack, rows, keys, at, whole !== undefined);
  const check = [...contexts.prints.keys()].filter((id) => !touched || unlike.has(id) || touched.has(mem.head(id)?.thread?.id ?? ''));
  const read = async (ids: string[]) => {
    const out = new Map(ids.flatMap((id) => (rowOf.has(id) ? [[id, rowOf.get(id)!] as const] : [])));
    const missing = ids.filter((id) => !out.has(id));
    if (missing.length) for (const [id, item] of await mem.hydrate(missing, false)) out.set(id, item);
    return out;
  };
  const stale = (await contexts.jobs(check, read)).filter((job) => job.print !== undefined); // drops the stale ones
  if (!contextsRead && stale.length) {
    // One made again since the pack (the item before it changed) is in the table, not the pack: it is taken when it
    // reads the texts as they are now.
    const rows = await db.contexts.bulkGet(stale.map((job) => job.id));
    stale.forEach((job, k) => {
      const row = rows[k];
      if (!row || row.model !== model || row.print !== job.print) return;
      mem.setContextVector(job.id, row.vector);
      contexts.prints.set(job.id, row.print);
    });
  }
  return {
    stale: whole ? rest.length : rows.length,
    rewrite: !pack || fullRead || (contextsRead && contextKeys.length > 0),
    unstamped: whole ? whole.filter((row) => row.rev === undefined).map((row) => row.id) : [],
  };
}

/**
 * With every row stamped and a pack: the rows written since the pack (`read`: being read already, above the revision
 * the pack's info row gave), and those the pack has no head for, read whole; every other item as its place in the pack.
 * In the table's order.
 */
async function rowsSince(
  db: BackstoryDB,
  pack: PackRow | undefined,
  keys: string[],
  at: Map<string, number>,
  read: { rev: number; rows: Promise<MemoryItem[]> } | undefined,
): Promise<(MemoryItem | number)[]> {
  if (!pack) return db.items.toArray();
  // The info row is written with the pack: another revision means another pack, and the rows are read again.
  const rows = read && read.rev === pack.rev ? await read.rows : await db.items.where('rev').above(pack.rev).toArray();
  const since = new Map(rows.map((row) => [row.id, row]));
  const fromPack = (id: string) => {
    const i = at.get(id);
    return i !== undefined && !since.has(id) && pack.heads[i].rev !== undefined ? i : undefined;
  };
  const others = keys.filter((id) => fromPack(id) === undefined && !since.has(id));
  for (const row of await readInSlices(others, (part) => db.items.bulkGet(part))) if (row) since.set(row.id, row);
  return keys.flatMap<MemoryItem | number>((id) => {
    const i = fromPack(id);
    if (i !== undefined) return [i];
    const row = since.get(id);
    return row ? [row] : [];
  });
}

/**
 * The threads whose context vectors may be stale: those of the rows read whole, as they are now and as the pack had
 * them, and of the pack's items deleted since. Undefined when every row was read whole (every one is checked).
 */
function touchedThreads(pack: PackRow | undefined, rows: MemoryItem[], keys: string[], at: Map<string, number>, allWhole: boolean): Set<string> | undefined {
  if (allWhole || !pack) return undefined;
  const out = new Set<string>();
  const add = (thread: string | undefined) => thread !== undefined && out.add(thread);
  for (const row of rows) {
    add(row.thread?.id);
    const i = at.get(row.id);
    if (i !== undefined) add(pack.heads[i].thread?.id);
  }
  const present = new Set(keys);
  pack.ids.forEach((id, i) => present.has(id) || add(pack.heads[i].thread?.id));
  return out;
}

/** Whether two lists of distinct ids hold the same ids. */
function sameMembers(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  const had = new Set(a);
  return b.every((id) => had.has(id));
}

/** A read that may go unawaited (its rows not wanted after all): its failure then reaches no one, and is not reported. */
function quiet<T>(p: Promise<T>): Promise<T> {
  p.catch(() => undefined);
  return p;
}
