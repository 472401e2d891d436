// A local folder as a sync place, through the File System Access API (a FileSystemDirectoryHandle the user picked;
// Drive, Dropbox, OneDrive, iCloud or Syncthing carries the folder). A file is written under a temporary name and
// moved into place where the browser can move, so a sync engine never carries half a file; where it cannot, the
// final name is written directly (Chromium's createWritable already writes aside and swaps on close).
import { SyncPlaceError, type SyncFileEntry, type SyncStorage } from './types';

/** What this needs of a FileSystemDirectoryHandle; the browser's satisfies it. */
export interface DirHandle {
  readonly kind: 'directory';
  readonly name: string;
  getDirectoryHandle(name: string, options?: { create?: boolean }): Promise<DirHandle>;
  getFileHandle(name: string, options?: { create?: boolean }): Promise<FileHandle>;
  removeEntry(name: string, options?: { recursive?: boolean }): Promise<void>;
  values(): AsyncIterable<DirHandle | FileHandle>;
  queryPermission?(descriptor: { mode: 'readwrite' }): Promise<PermissionState>;
}

export interface FileHandle {
  readonly kind: 'file';
  readonly name: string;
  /** The browser's is a File, whose `lastModified` is the listing's stamp. */
  getFile(): Promise<Blob & { readonly lastModified?: number }>;
  createWritable(): Promise<{ write(data: Uint8Array<ArrayBuffer>): Promise<void>; close(): Promise<void>; abort?(): Promise<void> }>;
  /** Where the browser has it (FileSystemHandle.move). */
  move?(dir: DirHandle, name: string): Promise<void>;
}

const MAX_DEPTH = 8;

/** Whether this browser's file handles can move (FileSystemFileHandle.move; Chromium has it). */
function browserMoves(): boolean {
  const handle = (globalThis as { FileSystemFileHandle?: { prototype: object } }).FileSystemFileHandle;
  return handle !== undefined && 'move' in handle.prototype;
}

export class FolderStorage implements SyncStorage {
  private readonly moves: boolean;

  /** `moves`: whether to write aside and move into place; by default, whether the browser can. */
  constructor(
    private readonly root: DirHandle,
    options: { moves?: boolean } = {},
  ) {
    this.moves = options.moves ?? browserMoves();
  }

  /** A browser error in the user's words; `what` names the file, or undefined for the folder itself. */
  private problem(e: unknown, what?: string): SyncPlaceError {
    if (e instanceof SyncPlaceError) return e;
    const name = (e as { name?: string } | null)?.name;
    const folder = `the folder '${this.root.name}'`;
    switch (name) {
      case 'NotFoundError':
      case 'InvalidStateError':
        return new SyncPlaceError('gone', what ? `${what} is not in ${folder}.` : `${folder[0].toUpperCase()}${folder.slice(1)} is no longer there; choose it again in settings.`);
      case 'NotAllowedError':
      case 'SecurityError':
        return new SyncPlaceError('permission', `Backstory may no longer use ${folder}; allow it again in settings (browsers ask again after a restart).`);
      case 'QuotaExceededError':
        return new SyncPlaceError('full', `The disk holding ${folder} is full.`);
      default:
        return new SyncPlaceError('refused', `The browser refused ${what ?? folder}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  private async checkPermission(): Promise<void> {
    const state = await this.root.queryPermission?.({ mode: 'readwrite' });
    if (state !== undefined && state !== 'granted') {
      throw new SyncPlaceError('permission', `Backstory may no longer use the folder '${this.root.name}'; allow it again in settings (browsers ask again after a restart).`);
    }
  }

  private static parts(path: string): string[] {
    const parts = path.split('/');
    if (parts.some((p) => p === '' || p === '.' || p === '..')) throw new SyncPlaceError('refused', `Not a path in the folder: ${path}`);
    return parts;
  }

  /** The folder holding `path`'s file, made on the way with `create`. */
  private async dirOf(parts: string[], create: boolean): Promise<DirHandle> {
    let dir = this.root;
    for (const p of parts.slice(0, -1)) dir = await dir.getDirectoryHandle(p, { create });
    return dir;
  }

  async list(): Promise<SyncFileEntry[]> {
    await this.checkPermission();
    const out: SyncFileEntry[] = [];
    const walk = async (dir: DirHandle, prefix: string, depth: number): Promise<void> => {
      for await (const entry of dir.values()) {
        if (entry.kind === 'directory') {
          if (depth < MAX_DEPTH) await walk(entry, `${prefix}${entry.name}/`, depth + 1);
        } else {
          try {
            const file = await entry.getFile();
            const stamp = typeof file.lastModified === 'number' ? { stamp: String(file.lastModified) } : {};
            out.push({ path: `${prefix}${entry.name}`, size: file.size, ...stamp });
          } catch {
            // Removed or locked while listed (an engine mid-write): the next listing has it.
          }
        }
      }
    };
    try {
      await walk(this.root, '', 0);
    } catch (e) {
      throw this.problem(e);
    }
    return out;
  }

  async read(path: string): Promise<Uint8Array> {
    const parts = FolderStorage.parts(path);
    try {
      const file = await (await this.dirOf(parts, false)).getFileHandle(parts[parts.length - 1]);
      return new Uint8Array(await (await file.getFile()).arrayBuffer());
    } catch (e) {
      throw this.problem(e, path);
    }
  }

  async create(path: string, bytes: Uint8Array): Promise<void> {
    const parts = FolderStorage.parts(path);
    const name = parts[parts.length - 1];
    await this.checkPermission();
    try {
      // The folder itself must still be there: making it anew would hide that it went.
      await this.root.values()[Symbol.asyncIterator]().next();
    } catch (e) {
      throw this.problem(e);
    }
    try {
      const dir = await this.dirOf(parts, true);
      if (await dir.getFileHandle(name).then(() => true, () => false)) {
        throw new SyncPlaceError('exists', `${path} is already in the folder.`);
      }
      if (this.moves) {
        const temp = await dir.getFileHandle(`${name}.${Math.random().toString(36).slice(2, 10)}.tmp`, { create: true });
        await write(temp, bytes);
        if (!temp.move) throw new SyncPlaceError('refused', 'This browser cannot move files in the folder.');
        await temp.move(dir, name);
      } else {
        await write(await dir.getFileHandle(name, { create: true }), bytes);
      }
    } catch (e) {
      throw this.problem(e, path);
    }
  }

  async remove(path: string): Promise<void> {
    const parts = FolderStorage.parts(path);
    try {
      await (await this.dirOf(parts, false)).removeEntry(parts[parts.length - 1]);
    } catch (e) {
      if ((e as { name?: string } | null)?.name === 'NotFoundError') return;
      throw this.problem(e, path);
    }
  }
}

async function write(file: FileHandle, bytes: Uint8Array): Promise<void> {
  const stream = await file.createWritable();
  try {
    await stream.write(bytes as Uint8Array<ArrayBuffer>);
    await stream.close();
  } catch (e) {
    await stream.abort?.().catch(() => undefined);
    throw e;
  }
}
