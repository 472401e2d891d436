import type { ItemHead, MemoryItem, MemoryScope, MemorySource } from '../types';

/**
 * The copy of an item the in-memory index keeps: the same fields and values, with the parts most items repeat
 * shared instead of held once per item. An item made by `createItem` or read from IndexedDB carries its own empty
 * arrays, source object, scope object and copies of strings like its kind or thread id: 300-400 bytes an item
 * (30-40 MB at 100k) that say nothing new. Shared parts are frozen, so code that changed one in place would throw
 * rather than change every item holding it.
 *
 * The tables only grow, by the distinct values this worker has seen (a few per import, scope or person list); a
 * stopped worker starts them afresh.
 */
export class ResidentItems {
  private readonly lists = new Map<string, readonly string[]>();
  private readonly sources = new Map<string, MemorySource>();
  private readonly scopes = new Map<string, MemoryScope>();
  private lastSource?: MemorySource;
  private lastScope?: MemoryScope;
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

  /**
   * `of` for a head the caller gives up (a pack's, just read): its repeated parts are shared in place, and it is
   * returned as it is. A copy of each of a start's 10k heads took about half of the start's own time in Node.
   */
  adopt(head: ItemHead): ItemHead {
    const h = head as { -readonly [K in keyof ItemHead]: ItemHead[K] };
    if (h.kind === 'instruction') h.kind = 'instruction';
    else if (h.kind === 'evidence') h.kind = 'evidence';
    h.tags = this.list(h.tags);
    h.people = this.list(h.people);
    h.sites = this.list(h.sites);
    if (h.thread || !h.source.url) h.source = this.source(h.source);
    if (h.scope) h.scope = this.scope(h.scope);
    if (h.thread) h.thread = { id: this.shared(h.thread.id), seq: h.thread.seq };
    return h;
  }

  private shared(s: string): string {
    const had = this.strings.get(s);
    if (had !== undefined) return had;
    this.strings.set(s, s);
    return s;
  }

  private list(xs: readonly string[]): string[] {
    if (!xs.length) return NONE as string[];
    const key = xs.length === 1 ? xs[0] : xs.join('\u0001');
    let had = this.lists.get(key);
    // Two lists join alike only when they hold the same strings ('a\u0001b' is not a tag: joined keys are checked).
    if (!had || !sameList(had, xs)) {
      had = Object.freeze([...xs]);
      this.lists.set(key, had);
    }
    // Frozen: typed as the item's plain array, which no code changes in place.
    return had as string[];
  }

  private source(s: MemorySource): MemorySource {
    // Rows come in import order: a thread's items follow each other and share a source.
    if (this.lastSource && sameSource(this.lastSource, s)) return this.lastSource;
    const key = `${s.url ?? ''}\u0001${s.title ?? ''}\u0001${s.importId ?? ''}\u0001${s.format ?? ''}`;
    let had = this.sources.get(key);
    if (!had || !sameSource(had, s)) {
      had = Object.freeze({ ...s });
      this.sources.set(key, had);
    }
    return (this.lastSource = had);
  }

  private scope(s: MemoryScope): MemoryScope {
    if (this.lastScope && sameScope(this.lastScope, s)) return this.lastScope;
    const key = `${s.kind}\u0001${s.set}\u0001${s.values.join('\u0001')}`;
    let had = this.scopes.get(key);
    if (!had || !sameScope(had, s)) {
      had = Object.freeze({ ...s, values: this.list(s.values) });
      this.scopes.set(key, had);
    }
    return (this.lastScope = had);
  }
}

/** The one empty list items share (most have no tags, people or sites). */
const NONE: readonly string[] = Object.freeze([]);

function sameSource(a: MemorySource, b: MemorySource): boolean {
  return a.url === b.url && a.title === b.title && a.importId === b.importId && a.format === b.format && fields(a) === fields(b);
}

function sameScope(a: MemoryScope, b: MemoryScope): boolean {
  return a.kind === b.kind && a.set === b.set && sameList(a.values, b.values) && fields(a) === fields(b);
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** How many fields an object has (a row may carry one this code does not know: then it is not shared). */
function fields(o: object): number {
  let n = 0;
  for (const _ in o) n++;
  return n;
}
