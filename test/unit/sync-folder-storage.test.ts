import { describe, expect, it } from 'vitest';
import { FolderReader } from '../../lib/sync/folder-reader';
import { LogWriter } from '../../lib/sync/log-writer';
import { FolderStorage, type DirHandle, type FileHandle } from '../../lib/sync/storage-folder';
import { createVault } from '../../lib/sync/vault';
import { placeProblem } from './sync-fixtures';

const domError = (name: string) => Object.assign(new Error(name), { name });

/** A small in-memory FileSystemDirectoryHandle: folders can vanish, permission can lapse, move() can be missing. */
class MemDir implements DirHandle {
  readonly kind = 'directory' as const;
  readonly dirs = new Map<string, MemDir>();
  readonly files = new Map<string, MemFile>();
  gone = false;
  permission: PermissionState = 'granted';
  /** Every name a file was ever created under, for tests on temporary names. */
  readonly created: string[] = [];

  constructor(
    readonly name: string,
    readonly withMove = true,
  ) {}

  private alive(): void {
    if (this.gone) throw domError('NotFoundError');
  }

  async getDirectoryHandle(name: string, options?: { create?: boolean }): Promise<MemDir> {
    this.alive();
    let dir = this.dirs.get(name);
    if (!dir && options?.create) this.dirs.set(name, (dir = new MemDir(name, this.withMove)));
    if (!dir) throw domError('NotFoundError');
    return dir;
  }

  async getFileHandle(name: string, options?: { create?: boolean }): Promise<MemFile> {
    this.alive();
    let file = this.files.get(name);
    if (!file && options?.create) {
      this.files.set(name, (file = new MemFile(name, this)));
      this.created.push(name);
    }
    if (!file) throw domError('NotFoundError');
    return file;
  }

  async removeEntry(name: string): Promise<void> {
    this.alive();
    if (!this.files.delete(name) && !this.dirs.delete(name)) throw domError('NotFoundError');
  }

  async *values(): AsyncIterable<MemDir | MemFile> {
    this.alive();
    yield* this.dirs.values();
    yield* this.files.values();
  }

  async queryPermission(): Promise<PermissionState> {
    return this.permission;
  }
}

class MemFile implements FileHandle {
  readonly kind = 'file' as const;
  bytes = new Uint8Array(0);
  move?: (dir: DirHandle, name: string) => Promise<void>;

  constructor(
    public name: string,
    private parent: MemDir,
  ) {
    if (parent.withMove) {
      this.move = async (dir, to) => {
        const target = dir as MemDir;
        this.parent.files.delete(this.name);
        this.name = to;
        this.parent = target;
        target.files.set(to, this);
      };
    }
  }

  /** When it was last written, as a disk keeps it (each write a later millisecond). */
  written = 0;

  async getFile(): Promise<File> {
    return new File([this.bytes], this.name, { lastModified: this.written });
  }

  async createWritable() {
    let pending = new Uint8Array(0);
    return {
      write: async (data: Uint8Array<ArrayBuffer>) => void (pending = data.slice()),
      close: async () => void ((this.bytes = pending), (this.written = ++writes)),
    };
  }
}

let writes = 0;
const bytes = (s: string) => new TextEncoder().encode(s);

const problem = placeProblem;

describe('a local folder (File System Access API)', () => {
  for (const withMove of [true, false]) {
    it(`creates, lists, reads and removes files in nested folders (${withMove ? 'moved into place' : 'written directly'})`, async () => {
      const root = new MemDir('Backstory sync', withMove);
      const s = new FolderStorage(root, { moves: withMove });
      await s.create('backstory/v/log/dev/00000001.bin', bytes('first'));
      await s.create('backstory-vault-x.json', bytes('{}'));
      const listed = (await s.list()).sort((a, b) => (a.path < b.path ? -1 : 1));
      expect(listed).toEqual([
        { path: 'backstory-vault-x.json', size: 2, stamp: expect.any(String) },
        { path: 'backstory/v/log/dev/00000001.bin', size: 5, stamp: expect.any(String) },
      ]);
      expect(new TextDecoder().decode(await s.read('backstory/v/log/dev/00000001.bin'))).toBe('first');
      expect(await problem(s.create('backstory-vault-x.json', bytes('other')))).toBe('exists');
      expect(new TextDecoder().decode(await s.read('backstory-vault-x.json'))).toBe('{}');
      // No temporary file is left behind either way.
      expect(root.created.some((n) => n.endsWith('.tmp'))).toBe(withMove);
      expect((await s.list()).some((e) => e.path.endsWith('.tmp'))).toBe(false);
      await s.remove('backstory/v/log/dev/00000001.bin');
      await s.remove('backstory/v/log/dev/00000001.bin');
      expect(await problem(s.read('backstory/v/log/dev/00000001.bin'))).toBe('gone');
      // Written again at the same size: listed with another stamp (its writer reads it again by that).
      await s.create('backstory/v/log/dev/00000001.bin', bytes('other'));
      const again = (await s.list()).find((e) => e.path === 'backstory/v/log/dev/00000001.bin')!;
      expect(again.size).toBe(5);
      expect(again.stamp).not.toBe(listed[1].stamp);
      expect(await problem(s.read('../x'))).toBe('refused');
    });
  }

  it('says a folder that vanished or a permission that lapsed in words', async () => {
    const root = new MemDir('Dropbox/Backstory');
    const s = new FolderStorage(root);
    await s.create('a/b.bin', bytes('x'));
    root.permission = 'prompt';
    await expect(s.list()).rejects.toThrow("Backstory may no longer use the folder 'Dropbox/Backstory'");
    expect(await problem(s.create('a/c.bin', bytes('x')))).toBe('permission');
    root.permission = 'granted';
    root.gone = true;
    await expect(s.list()).rejects.toThrow('is no longer there; choose it again in settings');
    expect(await problem(s.create('c.bin', bytes('x')))).toBe('gone');
    expect(await problem(s.read('a/b.bin'))).toBe('gone');
  });

  it('carries a log between two devices through the folder', async () => {
    const { vault } = await createVault('a passphrase', { memoryKiB: 8192, iterations: 1, parallelism: 1 });
    const s = new FolderStorage(new MemDir('Sync'));
    const device = 'eeeeeeeeeeeeeeeeeeeeeeeeee';
    const writer = new LogWriter(s, vault, device);
    const one = await writer.prepare(undefined, {}, [{ id: 'i', field: 'text', value: 'hello', stamp: 's', base: [] }]);
    await writer.write(one);
    await writer.write(await writer.prepare({ seq: 1, hash: one.hash }, {}, []));
    const read = await new FolderReader(s, vault).read({});
    expect(read.segments.map((x) => x.body.seq)).toEqual([1, 2]);
  });
});
