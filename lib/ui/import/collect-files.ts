import type { ImportFile } from '../../import/types';

/** The files of a file input: a picked folder's files keep their path inside it ("vault/projects/plan.md"). */
export function filesFromInput(list: FileList | null): ImportFile[] {
  return Array.from(list ?? [], (f) => ({ name: f.name, ...(f.webkitRelativePath ? { path: f.webkitRelativePath } : {}), blob: f }));
}

/**
 * The files of a drop: dropped folders are walked (entries API, the only way a drop exposes a folder's files), each
 * file with its path inside the dropped folder.
 */
export async function filesFromDrop(data: DataTransfer): Promise<ImportFile[]> {
  const entries = Array.from(data.items ?? [])
    .filter((it) => it.kind === 'file')
    .map((it) => it.webkitGetAsEntry?.())
    .filter((e): e is FileSystemEntry => !!e);
  if (!entries.length) return filesFromInput(data.files);
  const out: ImportFile[] = [];
  for (const entry of entries) await walk(entry, out);
  return out;
}

async function walk(entry: FileSystemEntry, out: ImportFile[]): Promise<void> {
  if (entry.isFile) {
    const file = await new Promise<File>((ok, no) => (entry as FileSystemFileEntry).file(ok, no));
    const path = entry.fullPath.replace(/^\//, '');
    out.push({ name: file.name, ...(path.includes('/') ? { path } : {}), blob: file });
    return;
  }
  const reader = (entry as FileSystemDirectoryEntry).createReader();
  // readEntries gives a directory's entries in chunks (100 in Chrome) until it returns none.
  for (;;) {
    const chunk = await new Promise<FileSystemEntry[]>((ok, no) => reader.readEntries(ok, no));
    if (!chunk.length) break;
    for (const child of chunk) await walk(child, out);
  }
}
