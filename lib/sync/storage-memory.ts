// Sync places in memory, for tests: a plain one, and folders carried between devices the way a file-sync engine
// carries them (late, in any order, with junk and duplicates added, create-only ignored).
import { seededRandom } from '../core/seeded-random';
import { SyncPlaceError, type SyncFileEntry, type SyncStorage } from './types';

/** Each stored byte array's stamp: bytes put in place, by `create` or by a test's hand, are a new version. */
const stamps = new WeakMap<Uint8Array, string>();
let stamped = 0;
function stampOf(bytes: Uint8Array): string {
  let s = stamps.get(bytes);
  if (s === undefined) stamps.set(bytes, (s = String(++stamped)));
  return s;
}

/** A place in memory. With `createOnly`, a second create of a path is refused as a WebDAV server would. */
export class MemoryStorage implements SyncStorage {
  readonly files = new Map<string, Uint8Array>();
  constructor(private readonly options: { createOnly?: boolean } = {}) {}

  async list(): Promise<SyncFileEntry[]> {
    return [...this.files].map(([path, bytes]) => ({ path, size: bytes.length, stamp: stampOf(bytes) }));
  }

  async read(path: string): Promise<Uint8Array> {
    const bytes = this.files.get(path);
    if (!bytes) throw new SyncPlaceError('gone', `${path} is not in the folder.`);
    return bytes.slice();
  }

  async create(path: string, bytes: Uint8Array): Promise<void> {
    if (this.options.createOnly && this.files.has(path)) throw new SyncPlaceError('exists', `${path} is already in the folder.`);
    this.files.set(path, bytes.slice());
  }

  async remove(path: string): Promise<void> {
    this.files.delete(path);
  }
}

interface Change {
  from: string;
  path: string;
  bytes?: Uint8Array;
}

/**
 * One folder as several devices see it through a file-sync engine: each device has its own copy, a write lands
 * there at once and reaches the others only when `deliver` runs, in shuffled order. Along the way the engine adds
 * junk files and, now and then, a "conflicted copy" of a file it carries. Create-only is not honoured.
 */
export class SyncedFolders {
  private readonly copies = new Map<string, MemoryStorage>();
  private queue: Change[] = [];
  private readonly rand: () => number;
  private copiesMade = 0;

  constructor(private readonly options: { seed?: number; duplicateRate?: number; junk?: boolean } = {}) {
    this.rand = seededRandom(options.seed ?? 1);
  }

  /** The folder as `device` sees it. */
  place(device: string): SyncStorage {
    let copy = this.copies.get(device);
    if (!copy) {
      copy = new MemoryStorage();
      this.copies.set(device, copy);
    }
    const queue = (c: Change) => this.queue.push(c);
    const local = copy;
    return {
      list: () => local.list(),
      read: (p) => local.read(p),
      create: async (path, bytes) => {
        await local.create(path, bytes);
        queue({ from: device, path, bytes: bytes.slice() });
      },
      remove: async (path) => {
        await local.remove(path);
        queue({ from: device, path });
      },
    };
  }

  /** What `device`'s copy holds, for tests that look at every byte. */
  filesOf(device: string): Map<string, Uint8Array> {
    return this.copies.get(device)?.files ?? new Map();
  }

  /** Carries up to `count` waiting changes (all by default), in shuffled order. */
  deliver(count = Infinity): void {
    const order = this.queue.map((c, i) => ({ c, k: this.rand(), i })).sort((a, b) => a.k - b.k);
    const now = order.slice(0, count);
    const carried = new Set(now.map((x) => x.i));
    this.queue = this.queue.filter((_, i) => !carried.has(i));
    for (const { c } of now) {
      for (const [device, copy] of this.copies) {
        if (device === c.from) continue;
        if (!c.bytes) {
          copy.files.delete(c.path);
          continue;
        }
        copy.files.set(c.path, c.bytes);
        if (this.rand() < (this.options.duplicateRate ?? 0)) {
          const dup = this.copiesMade++ % 2 === 0
            ? c.path.replace(/\.(bin|json)$/, ` (${device}'s conflicted copy 2026-12-06).$1`)
            : c.path.replace(/\.(bin|json)$/, '.sync-conflict-20261206-123456-ABCDEFG.$1');
          copy.files.set(dup, c.bytes);
        }
        if (this.options.junk) {
          const dir = c.path.includes('/') ? c.path.slice(0, c.path.lastIndexOf('/') + 1) : '';
          copy.files.set(`${dir}desktop.ini`, new Uint8Array([1, 2, 3]));
          copy.files.set(`${dir}.DS_Store`, new Uint8Array(10));
          copy.files.set(`${c.path}.tmp`, c.bytes.subarray(0, 10));
          copy.files.set(`${dir}~$lock.bin`, new Uint8Array(4));
          copy.files.set(`${dir}.syncthing.${c.path.split('/').pop()}.tmp`, c.bytes.subarray(0, 20));
        }
      }
    }
  }

  /** Changes not yet carried. */
  get waiting(): number {
    return this.queue.length;
  }
}
