import type { MemoryInput } from '../memory/types';
import { TooLargeError, readAll, type Bytes } from './byte-stream';
import { sizeInWords } from './limits';
import type { MailThreads } from './mail-threads';
import type { ImportFormat, ImportOffer } from './types';

/** What reading one entry gives: items of one format. */
export interface Part {
  items: MemoryInput[];
  format: ImportFormat;
  /** Mail: held until every file is read, when its thread is known (MailThreads). */
  held?: boolean;
}

/** One file to read: a picked file, a file of a picked folder, or an entry of a zip. */
export interface Entry {
  /** Where the bytes are, for messages: "" for the picked file itself, else the path inside its zip(s). */
  inside: string;
  /** Folder-relative path (or zip-relative path) the ids of notes are made from. */
  path: string;
  bytes: Bytes;
  lastModified?: number;
  /** Its size, when known (a picked file's, or what its zip says it unpacks to). */
  size?: number;
}

/** What every entry of one import shares. */
export interface Context {
  offer: (o: ImportOffer) => void;
  feedback?: (f: unknown) => void;
  signal?: AbortSignal;
  threads: MailThreads;
  /** Whether the file came as one of many (a folder): files Backstory does not read are then passed over quietly. */
  inFolder: boolean;
  /** Notion HTML pages passed over inside zips, so a zip of nothing else is named for what it is. */
  pages: { notion: number };
  /** Whether the files are a picked folder (their paths name it), not files picked one by one. */
  folderPick: boolean;
  /** A memory file was read whole: whether this profile signed it (lib/memory/file-signature.ts). */
  memoryFile?: (verdict: { signed: boolean }) => void;
  signingKey?: () => Promise<CryptoKey | undefined>;
  /** How many zips the entry is inside. */
  zipDepth: number;
}

/** A problem inside one file (not yet naming the picked file); `itemIndex` for a memory file's item. */
export class EntryProblem extends Error {
  constructor(
    message: string,
    readonly itemIndex?: number,
  ) {
    super(message);
  }
}

/** "notes/a.md is empty", or "the file is empty" for the picked file itself. */
export function within(inside: string, what: string): string {
  return inside ? `${inside} ${what}` : `the file ${what}`;
}

/** "notes/huge.md is 700 MB unpacked; Backstory reads notes up to 16 MB". */
function tooLarge(entry: Entry, what: string, e: TooLargeError): EntryProblem {
  const size = entry.size ?? e.size;
  const unpacked = entry.inside ? ' unpacked' : '';
  const is = size !== undefined && size > e.limit ? `is ${sizeInWords(size)}${unpacked}` : `is larger than ${sizeInWords(e.limit)}${unpacked}`;
  return new EntryProblem(`${entry.inside || 'the file'} ${is}; Backstory reads ${what} up to ${sizeInWords(e.limit)}`);
}

/** The whole of an entry read at most `limit` bytes; past it, a problem naming the entry and the limit. */
export async function readWhole(entry: Entry, bytes: Bytes, limit: number, what: string): Promise<Uint8Array> {
  try {
    return await readAll(bytes, limit);
  } catch (e) {
    if (e instanceof TooLargeError) throw tooLarge(entry, what, e);
    throw e;
  }
}

/** The first byte that is not white space or a byte order mark. */
export function firstByte(head: Uint8Array): number | undefined {
  for (let i = 0; i < head.length; i++) {
    const b = head[i];
    if (b !== 0x20 && b !== 0x0a && b !== 0x0d && b !== 0x09 && b !== 0xef && b !== 0xbb && b !== 0xbf) return b;
  }
  return undefined;
}
