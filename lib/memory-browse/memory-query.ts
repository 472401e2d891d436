import { hostOf, siteKey } from '../core/hosts';
import type { ItemHead, MemoryItem, MemoryKind } from '../memory/types';
import type { LexicalIndex } from '../memory/index/lexical-index';
import { itemsWithWords, textHasWords } from './word-filter';

/** What the memory browser narrows memory to; every field set must match. */
export interface MemoryFilter {
  text?: string;
  kind?: MemoryKind;
  site?: string;
  person?: string;
  tag?: string;
  /** The import that brought the items (`source.importId`). */
  importId?: string;
  /** The kind of file they came from (`source.format`). */
  format?: string;
  /** One conversation, mail thread or note (`thread.id`); its items come in thread order. */
  threadId?: string;
  /** Only items that are (true) or are not (false) always included, or never included. */
  pinned?: boolean;
  excluded?: boolean;
}

export interface MemoryQuery {
  filter: MemoryFilter;
  offset: number;
  limit: number;
  /** Also return the values the filters offer (computed over all memory, not the filtered part). */
  facets?: boolean;
}

export interface ImportFacet {
  id: string;
  format?: string;
  count: number;
  /** Latest `createdAt` among its items. */
  newest: number;
}

export interface MemoryFacets {
  sites: string[];
  people: string[];
  tags: string[];
  formats: string[];
  imports: ImportFacet[];
}

export interface MemoryPage {
  /** The items from `offset`, at most `limit`: newest change first, or thread order for a thread. */
  items: MemoryItem[];
  /** How many items match the filter in all. */
  total: number;
  /** How many items memory holds. */
  size: number;
  facets?: MemoryFacets;
  /** With a thread filter: what to call the thread (its first item's title). */
  thread?: { id: string; title: string };
}

/**
 * The memory a query reads: the store's in-memory heads and the ranker's lexical index; the page's items are read
 * whole (`hydrate`) once they are known.
 */
export interface BrowsableMemory {
  readonly size: number;
  head(id: string): ItemHead | undefined;
  items(): Iterable<ItemHead>;
  /** The items held back for review (in no index: searched by their own text). */
  held(): Iterable<ItemHead>;
  hydrate(ids: Iterable<string>, keep?: boolean): Promise<Map<string, MemoryItem>>;
  readonly lexicalIndex: LexicalIndex;
}

/** Most values a facet lists (the most frequent, then alphabetical): a select of 10,000 names helps nobody. */
const MAX_FACET_VALUES = 1000;

/**
 * Paged, filtered reads of memory for the memory browser, fast at 100k items. It keeps the items' order (newest
 * change first) between queries and checks it against memory in the same pass that filters: a query walks the
 * ids once, reading fields without allocating per item, and sorts again only when memory changed. Words are matched
 * through the lexical index's postings, not by reading texts.
 */
export class MemoryCatalog {
  private ids: string[] = [];
  private stamps = new Float64Array(0);
  private hosts = new Map<string, string>();

  async query(mem: BrowsableMemory, q: MemoryQuery): Promise<MemoryPage> {
    let page = await this.run(mem, q);
    for (let tries = 0; !page && tries < 3; tries++) {
      this.reorder(mem);
      page = await this.run(mem, q);
    }
    if (!page) throw new Error('Memory kept changing while it was listed; try again.');
    // Not kept between queries: an import may change an item's tags without changing its time. Asked for when the
    // browser opens or memory changes, not per keystroke.
    if (q.facets) page.facets = this.facetsOf(mem);
    return page;
  }

  private reorder(mem: BrowsableMemory): void {
    const all = [...mem.items()];
    all.sort((a, b) => (b.updatedAt || 0) - (a.updatedAt || 0) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    this.ids = all.map((it) => it.id);
    this.stamps = Float64Array.from(all, (it) => it.updatedAt || 0);
  }

  /** One pass over the kept order; undefined when the order no longer describes memory (then it is rebuilt). */
  private async run(mem: BrowsableMemory, q: MemoryQuery): Promise<MemoryPage | undefined> {
    if (this.ids.length !== mem.size) return undefined;
    const f = q.filter;
    const text = f.text?.trim() ? f.text : '';
    const withWords = text ? itemsWithWords(mem.lexicalIndex, text) : undefined;
    const offset = Math.max(0, q.offset | 0);
    const limit = Math.max(0, q.limit | 0);
    // Held items are in no index: their own words are searched, read for those the other filters leave.
    const held = text ? await mem.hydrate([...mem.held()].filter((h) => this.matches(h, f)).map((h) => h.id), false) : undefined;
    const inThread: ItemHead[] = [];
    const shown: string[] = [];
    let total = 0;
    for (let i = 0; i < this.ids.length; i++) {
      const it = mem.head(this.ids[i]);
      if (!it || (it.updatedAt || 0) !== this.stamps[i]) return undefined;
      if (!this.matches(it, f)) continue;
      if (text && !(it.needsReview ? hasWords(held?.get(it.id), text) : withWords === undefined || withWords.has(it.id))) continue;
      if (f.threadId) inThread.push(it);
      else if (total >= offset && shown.length < limit) shown.push(it.id);
      total++;
    }
    if (!f.threadId) return this.whole(mem, shown, (items) => ({ items, total, size: mem.size }));
    inThread.sort((a, b) => (a.thread?.seq ?? 0) - (b.thread?.seq ?? 0));
    const ids = inThread.slice(offset, offset + limit).map((it) => it.id);
    const first = inThread[0]?.id;
    return this.whole(mem, first && !ids.includes(first) ? [first, ...ids] : ids, (items, read) => {
      const head = first ? read.get(first) : undefined;
      return { items: items.filter((it) => ids.includes(it.id)), total, size: mem.size, thread: { id: f.threadId!, title: head ? head.source?.title || head.title : '' } };
    });
  }

  /** The page made from its items read whole; undefined when one was deleted meanwhile (the query runs again). */
  private async whole(
    mem: BrowsableMemory,
    ids: string[],
    page: (items: MemoryItem[], read: Map<string, MemoryItem>) => MemoryPage,
  ): Promise<MemoryPage | undefined> {
    const read = await mem.hydrate(ids, false);
    return read.size === ids.length ? page([...read.values()], read) : undefined;
  }

  private matches(it: ItemHead, f: MemoryFilter): boolean {
    if (f.kind && it.kind !== f.kind) return false;
    if (f.pinned !== undefined && it.pinned !== f.pinned) return false;
    if (f.excluded !== undefined && !!it.excluded !== f.excluded) return false;
    if (f.importId && it.source?.importId !== f.importId) return false;
    if (f.format && it.source?.format !== f.format) return false;
    if (f.threadId && it.thread?.id !== f.threadId) return false;
    if (f.person && !it.people.includes(f.person)) return false;
    if (f.tag && !it.tags.includes(f.tag)) return false;
    if (f.site && !it.sites.includes(f.site) && this.hostOf(it.source?.url) !== f.site) return false;
    return true;
  }

  /** The page's host, without "www.", remembered per URL (parsing a URL per item per keystroke would add up). */
  private hostOf(url: string | undefined): string {
    if (!url) return '';
    let h = this.hosts.get(url);
    if (h === undefined) {
      h = siteKey(hostOf(url));
      if (this.hosts.size > 50_000) this.hosts.clear();
      this.hosts.set(url, h);
    }
    return h;
  }

  private facetsOf(mem: BrowsableMemory): MemoryFacets {
    const sites = new Map<string, number>();
    const people = new Map<string, number>();
    const tags = new Map<string, number>();
    const formats = new Map<string, number>();
    const imports = new Map<string, ImportFacet>();
    const bump = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
    for (const it of mem.items()) {
      for (const s of it.sites) bump(sites, s);
      const h = this.hostOf(it.source?.url);
      if (h && !it.sites.includes(h)) bump(sites, h);
      for (const p of it.people) bump(people, p);
      for (const t of it.tags) bump(tags, t);
      const src = it.source ?? {};
      if (src.format) bump(formats, src.format);
      if (src.importId) {
        const imp = imports.get(src.importId) ?? { id: src.importId, format: src.format, count: 0, newest: 0 };
        imp.count++;
        imp.newest = Math.max(imp.newest, it.createdAt);
        imports.set(src.importId, imp);
      }
    }
    return {
      sites: topValues(sites),
      people: topValues(people),
      tags: topValues(tags),
      formats: topValues(formats),
      imports: [...imports.values()].sort((a, b) => b.newest - a.newest),
    };
  }
}

function topValues(counts: Map<string, number>): string[] {
  let keys = [...counts.keys()];
  if (keys.length > MAX_FACET_VALUES) keys = keys.sort((a, b) => counts.get(b)! - counts.get(a)!).slice(0, MAX_FACET_VALUES);
  return keys.sort((a, b) => a.localeCompare(b));
}

function hasWords(item: MemoryItem | undefined, words: string): boolean {
  return !!item && textHasWords(`${item.title}\n${item.text}`, words);
}
