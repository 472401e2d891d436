import type { MemoryItem, MemoryScope, MemorySource } from '../types';

/**
 * The copy of an item the in-memory index keeps: the same fields and values, with the parts most items repeat
 * shared instead of held once per item. An item made by `createItem` or read from IndexedDB carries its own empty
 * arrays, source object, scope object and copies of strings like its kind or import id: about 300 bytes an item
 * (30 MB at 100k) that say nothing new. Shared parts are frozen, so code that changed one in place would throw
 * rather than change every item holding it.
 *
 * The tables only grow, by the distinct values this worker has seen (a few per import, scope or person list); a
 * stopped worker starts them afresh.
 */
export class ResidentItems {
  private readonly lists = new Map<string, readonly string[]>();
  private readonly sources = new Map<string, MemorySource>();
  private readonly scopes = new Map<string, MemoryScope>();
  /** Thread ids and the titles of threaded items. */
  private readonly strings = new Map<string, string>();

  /** The resident copy of `item` (a new object: the caller's is left as it was). */
  of(item: MemoryItem): MemoryItem {
    const out: MemoryItem = {
      ...item,
      // The literal's one string, not the copy each IndexedDB row brings.
      kind: item.kind === 'instruction' ? 'instruction' : item.kind === 'evidence' ? 'evidence' : item.kind,
      tags: this.list(item.tags),
      people: this.list(item.people),
      sites: this.list(item.sites),
      // A page's capture has a source of its own (its URL): a table entry would cost more than it saves.
      source: item.thread || !item.source.url ? this.source(item.source) : item.source,
    };
    if (item.scope) out.scope = this.scope(item.scope);
    if (item.thread) {
      // A thread's id, and mostly its title ("<conversation> · You"), are repeated by every item of it: each row read
      // from IndexedDB brings its own copy. Items outside threads have titles of their own, not worth a table entry.
      out.thread = { id: this.shared(item.thread.id), seq: item.thread.seq };
      out.title = this.shared(item.title);
    }
    return out;
  }

  private shared(s: string): string {
    const had = this.strings.get(s);
    if (had !== undefined) return had;
    this.strings.set(s, s);
    return s;
  }

  private list(xs: readonly string[]): string[] {
    const key = xs.join('\u0001');
    let had = this.lists.get(key);
    // Two lists join alike only when they hold the same strings ('a\u0001b' is not a tag: joined keys are checked).
    if (!had || had.length !== xs.length || had.some((x, i) => x !== xs[i])) {
      had = Object.freeze([...xs]);
      this.lists.set(key, had);
    }
    // Frozen: typed as the item's plain array, which no code changes in place.
    return had as string[];
  }

  private source(s: MemorySource): MemorySource {
    const key = JSON.stringify([s.url, s.title, s.importId, s.format, Object.keys(s).length]);
    let had = this.sources.get(key);
    if (!had || !sameFields(had, s)) {
      had = Object.freeze({ ...s });
      this.sources.set(key, had);
    }
    return had;
  }

  private scope(s: MemoryScope): MemoryScope {
    const key = JSON.stringify([s.kind, s.set, s.values]);
    let had = this.scopes.get(key);
    if (!had || !sameFields(had, s)) {
      had = Object.freeze({ ...s, values: this.list(s.values) });
      this.scopes.set(key, had);
    }
    return had;
  }
}

/** Same keys and values, arrays compared by their items: what makes a shared copy equal to the item's own. */
function sameFields(a: object, b: object): boolean {
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => {
    const x = (a as Record<string, unknown>)[k];
    const y = (b as Record<string, unknown>)[k];
    return Array.isArray(x) && Array.isArray(y) ? x.length === y.length && x.every((v, i) => v === y[i]) : x === y;
  });
}
