import Dexie, { type EntityTable } from 'dexie';

/**
 * The local folder sync writes to, as the File System Access API gives it: a handle kept in IndexedDB on this device
 * (never synced), which the options page picks and the worker reads. Chrome and Edge only: Firefox has no picker.
 */
interface KeptFolder {
  key: 'folder';
  handle: FileSystemDirectoryHandle;
}

class FolderDB extends Dexie {
  folders!: EntityTable<KeptFolder, 'key'>;
  constructor() {
    super('backstory-sync-folder');
    this.version(1).stores({ folders: 'key' });
  }
}

let db: FolderDB | undefined;
const folderDB = () => (db ??= new FolderDB());

type PickerWindow = { showDirectoryPicker?: (o: { id?: string; mode: 'readwrite' }) => Promise<FileSystemDirectoryHandle> };
type Permissioned = FileSystemDirectoryHandle & {
  queryPermission?: (o: { mode: 'readwrite' }) => Promise<PermissionState>;
  requestPermission?: (o: { mode: 'readwrite' }) => Promise<PermissionState>;
};

/**
 * Asks the user for a folder and for leave to write in it, right after the pick (inside the same click). Undefined
 * when the user cancelled the picker.
 */
export async function pickSyncFolder(): Promise<FileSystemDirectoryHandle | undefined> {
  const picker = (globalThis as PickerWindow).showDirectoryPicker;
  if (!picker) throw new Error('This browser cannot give Backstory a folder: sync through WebDAV instead.');
  let handle: FileSystemDirectoryHandle;
  try {
    handle = await picker({ id: 'backstory-sync', mode: 'readwrite' });
  } catch (e) {
    if (e instanceof DOMException && e.name === 'AbortError') return undefined;
    throw e;
  }
  if ((await folderPermission(handle, true)) !== 'granted') throw new Error(`Backstory needs leave to write in “${handle.name}” to sync there.`);
  return handle;
}

/** Whether the handle may be written now; with `ask`, asks the user (only from a page, in answer to a click). */
export async function folderPermission(handle: FileSystemDirectoryHandle, ask = false): Promise<PermissionState> {
  const h = handle as Permissioned;
  if (!h.queryPermission) return 'granted'; // a handle without permissions (the origin's private file system)
  const now = await h.queryPermission({ mode: 'readwrite' });
  if (now === 'granted' || !ask || !h.requestPermission) return now;
  return h.requestPermission({ mode: 'readwrite' });
}

export async function keepPickedFolder(handle: FileSystemDirectoryHandle): Promise<void> {
  await folderDB().folders.put({ key: 'folder', handle });
}

export async function keptFolder(): Promise<FileSystemDirectoryHandle | undefined> {
  return (await folderDB().folders.get('folder'))?.handle;
}

export async function forgetFolder(): Promise<void> {
  await folderDB().folders.delete('folder');
}

/** "Reconnect folder": asks for the kept folder's permission again (after a browser restart), in answer to a click. */
export async function reconnectFolder(): Promise<boolean> {
  const handle = await keptFolder();
  return !!handle && (await folderPermission(handle, true)) === 'granted';
}
