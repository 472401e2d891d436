import type { Provenance } from '../memory/intake';
import type { BackstoryDB, RemovedImportRow } from '../memory/db';
import type { MemoryInput, MemoryItem } from '../memory/types';

/** How long a deleted import can be brought back with Undo. */
export const UNDO_IMPORT_MS = 2 * 60_000;

/** The part of MemoryStore that deleting and restoring an import uses. */
export interface ImportStore {
  /** Deletes every item the import brought; resolves to them. */
  removeImport(importId: string): Promise<MemoryItem[]>;
  add(inputs: MemoryInput[], provenance: Provenance, opts?: { deferEmbedding?: boolean }): Promise<MemoryItem[]>;
}

/**
 * The items of deleted imports, kept in IndexedDB while Undo is offered: the browser stops an idle worker after 30 s,
 * and the Undo that follows is answered by a fresh one.
 */
export class RemovedImports {
  constructor(private readonly db: Pick<BackstoryDB, 'removedImports'>) {}
  put(row: RemovedImportRow): Promise<unknown> {
    return this.db.removedImports.put(row);
  }
  get(importId: string): Promise<RemovedImportRow | undefined> {
    return this.db.removedImports.get(importId);
  }
  delete(importId: string): Promise<unknown> {
    return this.db.removedImports.delete(importId);
  }
  /** Drops the copies made before `at`. */
  deleteBefore(at: number): Promise<unknown> {
    return this.db.removedImports.where('at').below(at).delete();
  }
  clear(): Promise<unknown> {
    return this.db.removedImports.clear();
  }
}

/**
 * Deleting every item of an import, with Undo for a while after: the removed items are kept (RemovedImports) and
 * written back as they were (held-back items stay held). Their vectors are made again in the background; words find
 * them at once. The copy is dropped once restored, once Undo is no longer offered, and by Clear all.
 */
export class ImportRemoval {
  private expiry?: ReturnType<typeof setTimeout>;

  constructor(
    private readonly store: ImportStore,
    private readonly kept: Pick<RemovedImports, 'put' | 'get' | 'delete' | 'deleteBefore' | 'clear'>,
    /** Memory changed (panels re-rank; after a restore, the restored items wait to be embedded). */
    private readonly changed: (restored: boolean) => void,
    private readonly now: () => number = Date.now,
  ) {}

  async remove(importId: string): Promise<{ removed: number }> {
    const items = await this.store.removeImport(importId);
    if (!items.length) throw new Error('That import has no memories left.');
    await this.kept.put({ importId, items, at: this.now() });
    this.scheduleExpiry();
    this.changed(false);
    return { removed: items.length };
  }

  async restore(importId: string): Promise<{ restored: number }> {
    const r = await this.kept.get(importId);
    if (!r || this.now() - r.at > UNDO_IMPORT_MS) {
      await this.kept.delete(importId);
      throw new Error('Too late to undo: import the file again to bring those memories back.');
    }
    // The stored items themselves are the input: every field the user or the import set comes back.
    await this.store.add(r.items, { from: 'restore' }, { deferEmbedding: true });
    await this.kept.delete(importId);
    this.changed(true);
    return { restored: r.items.length };
  }

  /** Drops the copies Undo no longer offers (at every worker start, and when the window closes). */
  expire(): Promise<unknown> {
    return this.kept.deleteBefore(this.now() - UNDO_IMPORT_MS);
  }

  /** Clear all: nothing deleted may come back. */
  forgetAll(): Promise<unknown> {
    return this.kept.clear();
  }

  /** A worker that lives on drops the copy when Undo closes; one that stops drops it at its next start. */
  private scheduleExpiry(): void {
    clearTimeout(this.expiry);
    this.expiry = setTimeout(() => void this.expire().catch(() => undefined), UNDO_IMPORT_MS + 1_000);
  }
}
