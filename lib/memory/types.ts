/** What a memory item is about: facts to draw on, or how to behave. */
export type MemoryKind = 'evidence' | 'instruction';

export interface MemorySource {
  url?: string;
  title?: string;
  /** The import that brought the item in (`ImportJob.id`); the memory browser filters and deletes by it. */
  importId?: string;
  /** What kind of file it came from (`ImportFormat`, e.g. "chatgpt", "mbox"), for filtering by source. */
  format?: string;
}

/** Place in a thread: items of one conversation, mail thread or document share `id`, ordered by `seq`. */
export interface ThreadRef {
  id: string;
  seq: number;
}

/** What an instruction's scope is tied to; see `MemoryScope`. */
export type ScopeKind = 'everywhere' | 'destination' | 'sites' | 'people' | 'subject';

/**
 * Where an instruction applies: everywhere, in a kind of destination (`values`: `Destination` names, lib/core), on
 * sites (hostnames), when writing to people (names or emails), or when the task mentions a subject (words).
 */
export interface MemoryScope {
  kind: ScopeKind;
  values: string[];
  /** Who set it: guessed from the text, chosen by the user, or limited to the source of captured or imported text. */
  set: 'guess' | 'user' | 'source';
}

/** A memory item as stored. Times are epoch milliseconds. */
export interface MemoryItem {
  id: string;
  text: string;
  title: string;
  kind: MemoryKind;
  tags: string[];
  people: string[];
  /** Sites (hostnames) the item is tied to; empty means any site. */
  sites: string[];
  pinned: boolean;
  /** Never offered, whatever the score ("never include"). */
  excluded?: boolean;
  archived?: boolean;
  /** Held back from indexing and ranking until the user confirms (e.g. it looks like it holds a secret). */
  needsReview?: string;
  createdAt: number;
  updatedAt: number;
  /**
   * The source gave no date that can be trusted (none, unparseable, or absurd): `createdAt` is then only when the
   * item was stored, so recency does not count it as new.
   */
  undated?: boolean;
  lastUsedAt?: number;
  source: MemorySource;
  /** gpt-tokenizer count of `text`. */
  tokens: number;
  /** Fields of an imported item that Backstory does not know, kept for round trips. */
  extra?: Record<string, unknown>;
  /**
   * Place in a thread (an email thread, a chat session, a saved page split in parts). Items of one thread are each
   * other's context for ranking; the item whose id equals `thread.id` is the parent, and its children follow it.
   */
  thread?: ThreadRef;
  /** Where the item applies when it is an instruction; guessed when saved (`guessScope`), changed by the user. */
  scope?: MemoryScope;
  /** Text the item is found by but that is not part of its body, e.g. an image caption. Indexed, not inserted. */
  aux?: string;
  /**
   * The row's revision in this profile's IndexedDB, new at each write (lib/memory/item-revs.ts). Local: never
   * exported, synced or carried as input.
   */
  rev?: number;
}

/**
 * What the in-memory index keeps of an item in the extension: every field but the text and the title, which stay in
 * IndexedDB and are read for the few items a ranking or a page needs (`MemoryView.hydrate`).
 */
export type ItemHead = Omit<MemoryItem, 'text' | 'title'>;

/** What a caller supplies to create an item; everything but text has a default. */
export interface MemoryInput {
  id?: string;
  text: string;
  title?: string;
  kind?: MemoryKind;
  tags?: string[];
  people?: string[];
  sites?: string[];
  pinned?: boolean;
  excluded?: boolean;
  archived?: boolean;
  needsReview?: string;
  createdAt?: number;
  updatedAt?: number;
  /** The source gave no trustworthy date (see MemoryItem.undated). */
  undated?: boolean;
  source?: MemorySource;
  thread?: ThreadRef;
  lastUsedAt?: number;
  /** Text the item is found by but that is not part of its body (an image caption). */
  aux?: string;
  scope?: MemoryScope;
  extra?: Record<string, unknown>;
  /**
   * The source a memory file gave the item. Its reader sets `source.format` to 'memory-file' whatever the file says;
   * this is used instead only when the file is trusted (lib/memory/intake.ts). Never stored.
   */
  fileSource?: MemorySource;
}

export type MemoryPatch = Partial<Omit<MemoryInput, 'id' | 'text'>> & { text?: string };
