// The whole items of a memory that holds only their heads (IndexedMemory.hydrate): read when asked from where they are
// kept, and the newest kept a while (HYDRATED_CHARS) so the next ranking does not read them again.
import type { ItemHead, MemoryItem } from '../types';

/** Reads whole items (text and title with them) from where they are kept: IndexedDB in the extension. */
export type ItemReader = (ids: string[]) => Promise<(MemoryItem | undefined)[]>;

/**
 * Characters of text and title kept from hydrations, at most (about 2-4 MB): the newest items; a hydration larger than
 * this keeps all of its own until the next one. A ranking hydrates a few hundred items, and typing re-ranks mostly the
 * same ones, so they are read from IndexedDB once.
 */
export const HYDRATED_CHARS = 2_000_000;

/** An item's text was read before `hydrate` brought it: a bug in the caller, said plainly rather than read as empty. */
export class NotHydratedError extends Error {
  constructor(id: string) {
    super(`Memory ${id} was read before its text was loaded.`);
  }
}

/**
 * An IndexedMemory's whole items. With an `ItemReader` the memory holds each item's head (`heads`) and its text and
 * title are read when asked; without one the heads are the whole items and nothing is read.
 */
export class HydratedItems {
  /**
   * Whole items read by `hydrate`, in the order kept; an entry counts only while its head is the one held. `used` is
   * the hydration that last returned it, `since` the one it was kept or moved back at: an entry used since is moved to
   * the back when forgetting reaches it (a second chance), so a ranking's hits cost no reordering of the map.
   */
  private hydrated = new Map<string, Hydrated>();
  /** Hydrations so far (the clock of `Hydrated.used`). */
  private hydrations = 0;
  /** Characters of text and title `hydrated` holds. */
  private hydratedChars = 0;

  constructor(
    private readonly reader: ItemReader | undefined,
    /** The heads the memory holds, by id (its own map: whole items without a reader). */
    private readonly heads: ReadonlyMap<string, ItemHead>,
  ) {}

  /** Whether `get(id)` answers now, without a `hydrate` (an item held whole, or read since its last change). */
  hasText(id: string): boolean {
    const head = this.heads.get(id);
    return !!head && (!this.reader || this.hydrated.get(id)?.head === head);
  }
  /** The whole item: held, or brought by a `hydrate` since its last change. Throws `NotHydratedError` otherwise. */
  get(id: string): MemoryItem | undefined {
    const head = this.heads.get(id);
    if (!head || !this.reader) return head as MemoryItem | undefined;
    const h = this.hydrated.get(id);
    if (h?.head !== head) throw new NotHydratedError(id);
    return h.item;
  }
  /**
   * Reads the whole items of these ids (those held; unknown ids are left out) and keeps them for `get` until later
   * hydrations push them out (`HYDRATED_CHARS`); with `keep` false (the store's bulk work: an import's items, an
   * indexing run) they are only returned. An item changed while it was read is read again.
   */
  async hydrate(ids: Iterable<string>, keep = true): Promise<Map<string, MemoryItem>> {
    const out = new Map<string, MemoryItem>();
    const asked = Array.isArray(ids) ? (ids as string[]) : [...ids];
    const now = ++this.hydrations;
    let missing: string[] = [];
    // An id asked twice (an item that is also the one before the next) is read once.
    const seen = new Set<string>();
    for (const id of asked) {
      const head = this.heads.get(id);
      if (!head || seen.has(id)) continue;
      seen.add(id);
      if (!this.reader) out.set(id, head as MemoryItem);
      else {
        const h = this.hydrated.get(id);
        if (h?.head === head) {
          h.used = now; // a ranking's items outlive older ones
          out.set(id, h.item);
        } else missing.push(id);
      }
    }
    const read = missing.length > 0;
    if (read && keep) this.forgetHydrated(out);
    for (let round = 0; missing.length && round < 3; round++) {
      const heads = missing.map((id) => this.heads.get(id));
      const rows = await this.reader!(missing);
      const again: string[] = [];
      missing.forEach((id, i) => {
        const head = this.heads.get(id);
        if (!head) return; // deleted meanwhile
        if (head !== heads[i]) return void again.push(id);
        const row = rows[i];
        if (row?.id !== id || typeof row.text !== 'string') return; // not stored: left out, as an unknown id is
        // The row as stored: the head has the same fields (written to IndexedDB first, then put here), but for the
        // token count a load adds to rows of the first schema. Not a copy of the head: copies of varying shapes made
        // the ranker's reads of item fields measurably slower.
        const item = row.tokens === head.tokens ? row : { ...row, tokens: head.tokens };
        if (keep) this.keepHydrated(id, { head, item, used: now, since: now });
        out.set(id, item);
      });
      missing = again;
    }
    if (missing.length) throw new Error(`Memory ${missing[0]} kept changing while it was read.`);
    if (!read) return out;
    // In the order asked (what was read comes back after what was kept): the ranker's ties keep that order.
    const ordered = new Map<string, MemoryItem>();
    for (const id of asked) if (out.has(id)) ordered.set(id, out.get(id)!);
    return ordered;
  }
  private keepHydrated(id: string, h: Hydrated): void {
    this.dropHydrated(id);
    this.hydrated.set(id, h);
    this.hydratedChars += h.item.text.length + h.item.title.length;
  }
  /** Forgets the item's text (it changed or is gone). */
  dropHydrated(id: string): void {
    const h = this.hydrated.get(id);
    if (!h) return;
    this.hydrated.delete(id);
    this.hydratedChars -= h.item.text.length + h.item.title.length;
  }
  /**
   * Drops the least recently used hydrated items until they hold at most `HYDRATED_CHARS`, never those this hydration
   * returns (`mine`): a ranking that weighs more than the bound (a mail to someone with thousands of notes) keeps them
   * all until the next one, and typing on reads none of them again.
   */
  private forgetHydrated(mine: Map<string, MemoryItem>): void {
    for (const [id, h] of this.hydrated) {
      if (this.hydratedChars <= HYDRATED_CHARS) break;
      if (mine.has(id)) continue;
      if (h.used > h.since) {
        // Used since it was kept: to the back (met again at most once more in this pass, then dropped if need be).
        h.since = h.used;
        this.hydrated.delete(id);
        this.hydrated.set(id, h);
      } else this.dropHydrated(id);
    }
  }
}

/** A hydrated item as `HydratedItems` keeps it (see `HydratedItems.hydrated`). */
interface Hydrated {
  head: ItemHead;
  item: MemoryItem;
  used: number;
  since: number;
}
