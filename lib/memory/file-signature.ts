import Dexie, { type EntityTable } from 'dexie';
import { exportItem, MEMORY_FORMAT, MEMORY_VERSION, memoryFileEnd, memoryFileHead } from './memory-file';
import type { MemoryItem } from './types';

/**
 * A memory file carries a signature made with a key that lives only in this profile: a file this profile exported
 * is its user's own and round-trips exactly; any other file (unsigned, edited, another profile's) is foreign, and
 * what it asks for beyond evidence is shown to the user first (lib/memory/import-trust.ts).
 *
 * The key is a non-extractable HMAC-SHA-256 CryptoKey kept in IndexedDB as it is (it never leaves the browser's
 * crypto, and is never in the file), made on the first export. It sits in a small database of its own, so clearing
 * memory does not make the profile's earlier exports foreign.
 */
interface KeyRow {
  name: string;
  key: CryptoKey;
}

type ProfileDB = Dexie & { keys: EntityTable<KeyRow, 'name'> };

export const PROFILE_DB_NAME = 'backstory-profile';
const KEY_NAME = 'memory-file';
const PREFIX = 'hmac-sha256:';

export function openProfileDB(name = PROFILE_DB_NAME, deps?: { indexedDB: IDBFactory; IDBKeyRange: typeof IDBKeyRange }): ProfileDB {
  const db = (deps ? new Dexie(name, deps) : new Dexie(name)) as ProfileDB;
  db.version(1).stores({ keys: 'name' });
  return db;
}

/** This profile's signing key; with `create`, made now if there is none yet (two pages racing keep the first). */
export async function profileKey(create: boolean, given?: ProfileDB): Promise<CryptoKey | undefined> {
  const db = given ?? openProfileDB();
  try {
    const row = await db.keys.get(KEY_NAME);
    if (row || !create) return row?.key;
    const key = await crypto.subtle.generateKey({ name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
    try {
      await db.keys.add({ name: KEY_NAME, key });
      return key;
    } catch {
      return (await db.keys.get(KEY_NAME))?.key;
    }
  } finally {
    if (!given) db.close();
  }
}

/** Items hashed per step: one digest call per group keeps signing and checking cheap for 100,000 items. */
const GROUP = 256;
const utf8 = new TextEncoder();

/**
 * What the signature covers, built as the file is written or read: the format and version, the feedback block, and
 * every item's exact JSON text in order (a chain of SHA-256 over groups of items), and how many items there are.
 * Item JSON never holds a raw newline, so joining a group's items with one is unambiguous.
 */
export class FileDigest {
  private chain = new Uint8Array(32);
  private group: string[] = [];
  private count = 0;
  private feedback = '';

  setFeedback(value: unknown): void {
    this.feedback = JSON.stringify(value) ?? '';
  }

  async item(json: string): Promise<void> {
    this.group.push(json);
    this.count++;
    if (this.group.length >= GROUP) await this.step();
  }

  private async step(): Promise<void> {
    if (!this.group.length) return;
    const bytes = utf8.encode(this.group.join('\n'));
    const buf = new Uint8Array(32 + bytes.length);
    buf.set(this.chain);
    buf.set(bytes, 32);
    this.chain = new Uint8Array(await crypto.subtle.digest('SHA-256', buf));
    this.group = [];
  }

  private async message(): Promise<Uint8Array<ArrayBuffer>> {
    await this.step();
    const chain = Array.from(this.chain, (b) => b.toString(16).padStart(2, '0')).join('');
    return utf8.encode(`${MEMORY_FORMAT}/${MEMORY_VERSION}\n${this.count}\n${chain}\n${this.feedback}`);
  }

  async sign(key: CryptoKey): Promise<string> {
    const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, await this.message()));
    return PREFIX + btoa(String.fromCharCode(...mac));
  }

  /** Whether `signature` was made by `key` over exactly what was read. */
  async verify(key: CryptoKey | undefined, signature: unknown): Promise<boolean> {
    if (!key || typeof signature !== 'string' || !signature.startsWith(PREFIX)) return false;
    let mac: Uint8Array<ArrayBuffer>;
    try {
      mac = Uint8Array.from(atob(signature.slice(PREFIX.length)), (c) => c.charCodeAt(0));
    } catch {
      return false;
    }
    return crypto.subtle.verify('HMAC', key, mac, await this.message());
  }
}

/**
 * The memory file as chunks of text (memoryFileChunks), signed with `key`: each item's JSON is hashed as it is
 * written, and the signature follows the items.
 */
export async function signedMemoryFileChunks(items: Iterable<MemoryItem>, more: Record<string, unknown>, key: CryptoKey): Promise<string[]> {
  const digest = new FileDigest();
  if ('feedback' in more) digest.setFeedback(more.feedback);
  const out = [memoryFileHead(more)];
  let first = true;
  for (const item of items) {
    const json = JSON.stringify(exportItem(item));
    out.push((first ? '\n' : ',\n') + json);
    first = false;
    await digest.item(json);
  }
  out.push(memoryFileEnd(await digest.sign(key)));
  return out;
}
