/** Shared by the import tests: fixture files as the ImportFile a picked file or folder gives, and reading them whole. */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { readImport } from '../../lib/import/index';
import type { ImportBatch, ImportFile, ImportOffer, ReadOptions } from '../../lib/import/types';
import type { MemoryInput } from '../../lib/memory/types';

export const FIXTURES = join(__dirname, '../fixtures/import');

export function fixtureBytes(path: string): Uint8Array {
  return new Uint8Array(readFileSync(join(FIXTURES, path)));
}

/** A picked file. */
export function fixtureFile(path: string, name = path.split('/').pop()!): ImportFile {
  return { name, blob: new Blob([fixtureBytes(path) as BlobPart]) };
}

export function bytesFile(name: string, bytes: Uint8Array | string): ImportFile {
  return { name, blob: new Blob([bytes as BlobPart]) };
}

function walk(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((n) => {
      const p = join(dir, n);
      return statSync(p).isDirectory() ? walk(p) : [p];
    });
}

/** A picked folder: every file, with its path below the folder's parent ("vault/People/Dana Ortiz.md"). */
export function fixtureFolder(dir: string): ImportFile[] {
  return walk(join(FIXTURES, dir)).map((p) => ({ name: p.split('/').pop()!, path: relative(FIXTURES, p), blob: new Blob([readFileSync(p)]) }));
}

/** Every file of a fixture folder as zip entries, keyed by their path inside the folder. */
export function folderEntries(dir: string): Record<string, Uint8Array> {
  const root = join(FIXTURES, dir);
  return Object.fromEntries(walk(root).map((p) => [relative(root, p), new Uint8Array(readFileSync(p))]));
}

export interface ReadResult {
  items: MemoryInput[];
  batches: ImportBatch[];
  offers: ImportOffer[];
}

export async function readAll(files: ImportFile[], opts: ReadOptions = {}): Promise<ReadResult> {
  const batches: ImportBatch[] = [];
  const offers: ImportOffer[] = [];
  for await (const b of readImport(files, { ...opts, onOffer: (o) => offers.push(o) })) batches.push(b);
  return { items: batches.flatMap((b) => b.items), batches, offers };
}

export const byId = (items: MemoryInput[]) => new Map(items.map((i) => [i.id!, i]));
