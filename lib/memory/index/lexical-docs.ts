import type { MemoryItem } from '../types';
import { searchText } from './item-text';
import { ownerOf, passageKey, splitPassages } from './passages';
import { grown, MAX_TF, PostingPool, PostingReader, readVarint, writeVarint, type Posting } from './posting';
import { SequencePool, SequenceReader } from './term-sequence';
import { terms as toTerms, hasTimeExpression, itemDateTerms, TIME_TERM, PERSON_PREFIX } from './tokenize';

/**
 * The documents of a BM25 index, held in typed arrays: what each item contributes (its terms and counts, its length,
 * its thread, its body's term sequence) and the postings of each term, kept up to date on every change. LexicalIndex
 * scores queries over them.
 *
 * Layout (what keeps 100k items in tens of MB rather than GB): each item gets a slot; its distinct term ids and
 * counts sit in one shared byte pool (the forward index) as variable-length numbers (a common term's id takes a byte
 * or two, not four), its body's term sequence in another as places in that list of distinct terms, a bit or a few
 * each (term-sequence.ts), and each term's postings are bytes of slot gaps and counts, every term's in one pool
 * (posting.ts). Phrases have no postings at all: a query's phrase is counted from the sequences of the items holding
 * both its words. A removed or re-indexed item leaves a dead slot behind, skipped
 * by queries and reclaimed when dead slots pile up. Writing them out for the store's pack and loading them back is
 * `PackableLexicalDocs` (lexical-docs-pack.ts).
 */
export class LexicalDocs {
  protected totalLen = 0;
  /** Σ ln(1 + len), for the geometric mean length. */
  protected totalLogLen = 0;
  protected readonly threads = new Map<string, Map<number, string>>();
  /**
   * Items longer than the model's window have a document per passage (keys from `passageKey`; the first under the
   * item's id holds its thread): how many each has.
   */
  protected partsOf = new Map<string, number>();

  // Slots.
  protected slotOf = new Map<string, number>();
  /** Id in each slot; undefined for a dead slot. */
  protected ids: (string | undefined)[] = [];
  protected threadOf: ({ id: string; seq: number } | undefined)[] = [];
  protected lens = new Uint32Array(0);
  protected asked = new Uint8Array(0);
  /** 1 for a slot holding a passage of an item of several (search reduces those to the item's best). */
  protected isPart = new Uint8Array(0);
  /** Byte offset of the slot's entries in `fPool`, and how many there are. */
  protected fStart = new Uint32Array(0);
  protected fCount = new Uint32Array(0);
  /** Byte offset of the slot's term sequence in `seqs`, and how many terms it holds. */
  protected sStart = new Uint32Array(0);
  protected sCount = new Uint32Array(0);
  protected dead = 0;
  // Pools.
  /** Each slot's distinct terms in first-seen order: varint(term × 2 + (count > 1)), then varint(count) when above 1. */
  protected fPool: Uint8Array = new Uint8Array(0);
  protected fTop = 0;
  /** Each slot's body (term-sequence.ts). */
  protected seqs = new SequencePool();
  /** Scratch cursor for reading the pools. */
  protected readonly cur = { at: 0 };
  /** Scratch reader for postings. */
  protected readonly reader = new PostingReader();
  /** Scratch reader for sequences. */
  protected readonly seqReader = new SequenceReader();
  /** Per term, its place + 1 in the list of the document being written (0 otherwise), for `seqs`. */
  protected placeOf = new Uint32Array(0);
  // Terms.
  protected termId = new Map<string, number>();
  protected termStr: string[] = [];
  protected df = new Int32Array(0);
  protected postings = new PostingPool();
  /** Phrase postings counted for recent queries; cleared by any change. */
  protected phraseCache = new Map<string, Posting | null>();
  /** Per-slot score accumulator for `search`, zero between queries. */
  protected acc = new Float64Array(0);
  /** The average length `LexicalIndex.lengthFactors` last used; NaN when lengths changed since. */
  protected normAvg = NaN;

  get size(): number {
    return this.slotOf.size;
  }

  has(id: string): boolean {
    return this.slotOf.has(id);
  }

  /**
   * Index (or re-index) a memory item: what the store calls on every save or edit. An item longer than the model's
   * window gets a document per passage, each with the item's title, tags, people and date (they describe every
   * part), so a query is matched against the part that holds its words and scored at that part's length.
   */
  addItem(item: Pick<MemoryItem, 'id' | 'text' | 'title' | 'tags' | 'people' | 'aux' | 'thread'> & { createdAt?: number }): void {
    const passages = splitPassages(item.text);
    if (passages.length === 1 && !this.partsOf.has(item.id)) return this.addPart(item.id, item, item.text, item.aux, item.thread);
    this.remove(item.id);
    if (passages.length > 1) this.partsOf.set(item.id, passages.length); // before its slots are made (isPart)
    passages.forEach((p, k) =>
      this.addPart(passageKey(item.id, k), item, item.text.slice(p.start, p.end), k === 0 ? item.aux : undefined, k === 0 ? item.thread : undefined),
    );
  }

  private addPart(
    key: string,
    item: Pick<MemoryItem, 'title' | 'tags' | 'people'> & { createdAt?: number },
    text: string,
    aux: string | undefined,
    thread: { id: string; seq: number } | undefined,
  ): void {
    // Only the body says when something happened; a title is often just a date.
    const extra = hasTimeExpression(text + ' ' + (aux ?? '')) ? [TIME_TERM] : [];
    // The day and month the item is dated, so an ask naming a date finds what was noted then.
    if (item.createdAt) extra.push(...itemDateTerms(item.createdAt));
    // People as a field of their own, so an ask naming someone can prefer items by or about them.
    for (const p of item.people) for (const t of toTerms(p.replace(/@.*$/, ''))) extra.push(PERSON_PREFIX + t);
    this.add(key, searchText({ ...item, text, aux }), thread, extra, toTerms(text + '\n' + (aux ?? '')));
  }

  /** The document slots of an item (one per passage). */
  protected slotsOf(id: string): number[] {
    const n = this.partsOf.get(id);
    if (n === undefined) {
      const s = this.slotOf.get(id);
      return s === undefined ? [] : [s];
    }
    const out: number[] = [];
    for (let k = 0; k < n; k++) {
      const s = this.slotOf.get(passageKey(id, k));
      if (s !== undefined) out.push(s);
    }
    return out;
  }

  /**
   * Index (or re-index) a text. `thread` lets the ranker use neighbouring items as context. `phraseSource` is the
   * term sequence whose adjacent pairs are the item's phrases (see `phrases` in tokenize.ts); phrases score like
   * terms but do not count toward the length.
   */
  add(id: string, text: string, thread?: { id: string; seq: number }, extraTerms: string[] = [], phraseSource: string[] = []): void {
    const ts = toTerms(text).concat(extraTerms);
    const tf = new Map<number, number>();
    for (const t of ts) {
      const k = this.intern(t);
      tf.set(k, (tf.get(k) ?? 0) + 1);
    }
    const seq = phraseSource.length > 1 ? phraseSource.map((t) => this.intern(t)) : [];
    this.insert(id, ts.length, text.includes('?'), thread, tf, seq);
  }

  protected intern(t: string): number {
    let k = this.termId.get(t);
    if (k === undefined) {
      k = this.termStr.length;
      this.termId.set(t, k);
      this.termStr.push(t);
      if (k >= this.df.length) {
        this.df = grown(this.df, k + 1);
        this.placeOf = grown(this.placeOf, k + 1);
      }
    }
    return k;
  }

  protected newSlot(id: string, len: number, asks: boolean, thread: { id: string; seq: number } | undefined): number {
    const slot = this.ids.length;
    if (slot >= this.lens.length) {
      const need = slot + 1;
      this.lens = grown(this.lens, need);
      this.asked = grown(this.asked, need);
      this.isPart = grown(this.isPart, need);
      this.fStart = grown(this.fStart, need);
      this.fCount = grown(this.fCount, need);
      this.sStart = grown(this.sStart, need);
      this.sCount = grown(this.sCount, need);
      this.acc = grown(this.acc, this.lens.length);
    }
    this.ids.push(id);
    this.threadOf.push(thread);
    this.slotOf.set(id, slot);
    this.lens[slot] = len;
    this.normAvg = NaN;
    this.asked[slot] = asks ? 1 : 0;
    this.isPart[slot] = this.partsOf.size && this.partsOf.has(ownerOf(id)) ? 1 : 0;
    this.totalLen += len;
    this.totalLogLen += Math.log1p(len);
    if (thread) {
      let th = this.threads.get(thread.id);
      if (!th) this.threads.set(thread.id, (th = new Map()));
      th.set(thread.seq, id);
    }
    return slot;
  }

  protected post(t: number, slot: number, n: number): void {
    this.postings.append(t, slot, n);
    this.df[t]++;
  }

  protected insert(id: string, len: number, asks: boolean, thread: { id: string; seq: number } | undefined, tf: Map<number, number>, seq: ArrayLike<number>): void {
    if (this.slotOf.has(id)) this.removeDoc(id);
    this.phraseCache.clear();
    const slot = this.newSlot(id, len, asks, thread);
    // A varint of a number below 2^35 takes at most 5 bytes; an entry is two of them.
    this.fPool = grown(this.fPool, this.fTop + 10 * tf.size);
    this.fStart[slot] = this.fTop;
    this.fCount[slot] = tf.size;
    const placeOf = this.placeOf;
    let place = 0;
    for (const [t, n] of tf) {
      const c = Math.min(n, MAX_TF);
      this.fTop = writeVarint(this.fPool, this.fTop, t * 2 + (c > 1 ? 1 : 0));
      if (c > 1) this.fTop = writeVarint(this.fPool, this.fTop, c);
      this.post(t, slot, c);
      placeOf[t] = ++place;
    }
    this.sStart[slot] = this.seqs.append(seq, placeOf, tf.size);
    this.sCount[slot] = seq.length;
    for (const t of tf.keys()) placeOf[t] = 0;
  }

  /** The slot's distinct terms and counts, in the order they were first seen (the forward index decoded). */
  protected docTerms(slot: number): { terms: number[]; tfs: number[] } {
    const terms: number[] = [];
    const tfs: number[] = [];
    const pool = this.fPool;
    const cur = this.cur;
    cur.at = this.fStart[slot];
    for (let k = this.fCount[slot]; k > 0; k--) {
      const x = readVarint(pool, cur);
      terms.push(Math.floor(x / 2));
      tfs.push(x % 2 ? readVarint(pool, cur) : 1);
    }
    return { terms, tfs };
  }

  /** The slot's body as term ids, in order. */
  protected docSeq(slot: number): number[] {
    const out: number[] = new Array(this.sCount[slot]);
    if (!out.length) return out;
    const { terms } = this.docTerms(slot);
    const r = this.seqReader.reset(this.seqs.bytes, this.sStart[slot], out.length, terms.length);
    for (let k = 0; k < out.length; k++) {
      const place = r.next();
      out[k] = place < 0 ? r.outside : terms[place];
    }
    return out;
  }

  /** Removes an item: every document of it. */
  remove(id: string): void {
    const n = this.partsOf.get(id);
    if (n === undefined) return this.removeDoc(id);
    this.partsOf.delete(id);
    for (let k = 0; k < n; k++) this.removeDoc(passageKey(id, k));
  }

  protected removeDoc(id: string): void {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return;
    this.phraseCache.clear();
    this.slotOf.delete(id);
    this.ids[slot] = undefined;
    this.totalLen -= this.lens[slot];
    this.totalLogLen -= Math.log1p(this.lens[slot]);
    for (const t of this.docTerms(slot).terms) this.df[t]--;
    const thread = this.threadOf[slot];
    this.threadOf[slot] = undefined;
    if (thread) {
      const th = this.threads.get(thread.id);
      if (th?.get(thread.seq) === id) th.delete(thread.seq);
      if (th && th.size === 0) this.threads.delete(thread.id);
    }
    this.dead++;
    if (this.dead > 1024 && this.dead > this.slotOf.size) this.compact();
  }

  /** Drops dead slots: live items are renumbered in order, pools and postings rebuilt without the holes. */
  protected compact(): void {
    const live: number[] = [];
    for (let s = 0; s < this.ids.length; s++) if (this.ids[s] !== undefined) live.push(s);
    const docs = live.map((s) => {
      const { terms, tfs } = this.docTerms(s);
      return { id: this.ids[s]!, len: this.lens[s], asks: this.asked[s] === 1, thread: this.threadOf[s], tf: new Map(terms.map((t, i) => [t, tfs[i]])), seq: this.docSeq(s) };
    });
    this.reset();
    for (const d of docs) this.insert(d.id, d.len, d.asks, d.thread, d.tf, d.seq);
  }

  /** Empties the slots, pools and postings; the term dictionary is kept (df back to 0). */
  protected reset(): void {
    this.slotOf = new Map(); // partsOf stays: compact re-inserts the same documents
    this.ids = [];
    this.threadOf = [];
    this.threads.clear();
    this.lens = new Uint32Array(0);
    this.asked = new Uint8Array(0);
    this.isPart = new Uint8Array(0);
    this.fStart = new Uint32Array(0);
    this.fCount = new Uint32Array(0);
    this.sStart = new Uint32Array(0);
    this.sCount = new Uint32Array(0);
    this.fPool = new Uint8Array(0);
    this.seqs = new SequencePool();
    this.fTop = this.dead = 0;
    this.totalLen = this.totalLogLen = 0;
    this.df.fill(0);
    this.postings = new PostingPool();
    this.acc = new Float64Array(0);
    this.normAvg = NaN;
    this.phraseCache.clear();
  }

  /**
   * Gives back the unused tails of the pools, the per-slot arrays and the postings (they grow by half as items come
   * in): called once a load or an import is done. The next addition grows them again.
   */
  trim(): void {
    const n = this.ids.length;
    this.fPool = this.fPool.slice(0, this.fTop);
    this.seqs.trim();
    for (const k of ['lens', 'asked', 'isPart', 'fStart', 'fCount', 'sStart', 'sCount', 'acc'] as const) this[k] = this[k].slice(0, n) as never;
    this.postings.trim();
  }

  /** Ids of the items holding `term` (an item of several passages once per passage holding it). Walks its postings only. */
  *holders(term: string): Iterable<string> {
    const k = this.termId.get(term);
    if (k === undefined || this.df[k] <= 0) return;
    const r = new PostingReader().reset(this.postings.view(k));
    while (r.next()) {
      const id = this.ids[r.slot];
      if (id !== undefined) yield ownerOf(id);
    }
  }

  /** The terms some item holds that start with `prefix`. */
  termsStartingWith(prefix: string): string[] {
    const out: string[] = [];
    for (let k = 0; k < this.termStr.length; k++) if (this.df[k] > 0 && this.termStr[k].startsWith(prefix)) out.push(this.termStr[k]);
    return out;
  }

  asks(id: string): boolean {
    return this.slotsOf(id).some((s) => this.asked[s] === 1);
  }

  /** Term counts of an indexed item (words, people, dates; phrases are not terms). */
  termsOf(id: string): Map<string, number> | undefined {
    const slots = this.slotsOf(id);
    if (!slots.length) return undefined;
    const out = new Map<string, number>();
    for (const s of slots) {
      const { terms, tfs } = this.docTerms(s);
      terms.forEach((k, i) => {
        const t = this.termStr[k];
        out.set(t, (out.get(t) ?? 0) + tfs[i]);
      });
    }
    return out;
  }

  /** Whether an indexed item has this (single) term: `termsOf(id).has(term)` without building the map. */
  docHas(id: string, term: string): boolean {
    const t = this.termId.get(term);
    if (t === undefined) return false;
    const pool = this.fPool;
    const cur = this.cur;
    for (const s of this.slotsOf(id)) {
      cur.at = this.fStart[s];
      for (let k = this.fCount[s]; k > 0; k--) {
        const x = readVarint(pool, cur);
        if (Math.floor(x / 2) === t) return true;
        if (x % 2) readVarint(pool, cur);
      }
    }
    return false;
  }

  /** Whether the item is indexed with a thread (only then can `neighbour` find anything for it). */
  inThread(id: string): boolean {
    return this.threadedAt(this.docSlot(id));
  }

  /** The slot of an item's document (its first passage's), -1 when it is not indexed; valid until the index changes. */
  docSlot(id: string): number {
    return this.slotOf.get(id) ?? -1;
  }

  /** `inThread` of the item in this slot (-1: none). */
  threadedAt(slot: number): boolean {
    return slot >= 0 && !!this.threadOf[slot];
  }

  threadSize(id: string): number {
    const s = this.slotOf.get(id);
    const th = s === undefined ? undefined : this.threadOf[s];
    return (th && this.threads.get(th.id)?.size) || 1;
  }

  neighbour(id: string, offset: number): string | undefined {
    return this.neighbourAt(this.docSlot(id), offset);
  }

  /** `neighbour` of the item in this slot (-1: none). */
  neighbourAt(slot: number, offset: number): string | undefined {
    const th = slot < 0 ? undefined : this.threadOf[slot];
    if (!th) return undefined;
    return this.threads.get(th.id)?.get(th.seq + offset);
  }

  /** The place after the last indexed item of a thread (0 for a thread with none): where its next turn goes. */
  nextSeq(threadId: string): number {
    let last = -1;
    for (const seq of this.threads.get(threadId)?.keys() ?? []) if (seq > last) last = seq;
    return last + 1;
  }
}
