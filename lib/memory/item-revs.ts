import type { DBCore, DBCoreMutateRequest, Middleware } from 'dexie';
import type { MemoryItem } from './types';

/**
 * The revision numbers of the items table. Every row written through a connection gets a new `rev`, higher than any
 * the table or the index pack has seen, once the worker has read memory and said where to count from (`startAbove`);
 * until then, and in every other page, a written row loses its `rev`. So a row with a `rev` at most the pack's has
 * not been written since the pack was made, and a start takes its head from the pack instead of reading it whole
 * (lib/memory/store-load.ts). A row without one (written by a page, or before a start counted) is read whole, and
 * the worker stamps it afterwards (`MemoryStore.stampRows`). No clock is involved: a clock set back changes nothing.
 *
 * Stamped on the row the caller handed over, so the item the store then keeps in memory carries the same `rev`.
 */
export class ItemRevisions {
  private next?: number;

  /** Stamps from above `floor` on: the highest `rev` in the table or in the pack (a deleted row's is in the pack). */
  startAbove(floor: number): void {
    const from = Number.isSafeInteger(floor) && floor > 0 ? floor + 1 : 1;
    this.next = Math.max(this.next ?? 1, from);
  }

  /** The rows of a write to `items`, each with its new `rev` (or without one, before `startAbove`). */
  private stamped(values: readonly unknown[]): unknown[] {
    return values.map((v) => {
      if (!v || typeof v !== 'object') return v;
      const row = (Object.isExtensible(v) ? v : { ...v }) as MemoryItem;
      if (this.next === undefined) delete row.rev;
      else row.rev = this.next++;
      return row;
    });
  }

  /** The Dexie middleware that stamps every put and add on `items`, whichever code path makes it. */
  middleware(): Middleware<DBCore> {
    return {
      stack: 'dbcore',
      name: 'itemRevisions',
      create: (down) => ({
        ...down,
        table: (name) => {
          const table = down.table(name);
          if (name !== 'items') return table;
          return {
            ...table,
            mutate: (req: DBCoreMutateRequest) =>
              table.mutate(req.type === 'put' || req.type === 'add' ? { ...req, values: this.stamped(req.values) } : req),
          };
        },
      }),
    };
  }
}
