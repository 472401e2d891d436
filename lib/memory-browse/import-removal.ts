import type { Provenance } from '../memory/intake';
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
 * Deleting every item of an import, with Undo for a while after: the removed items are kept in the worker's memory
 * and written back as they were (held-back items stay held). Their vectors are made again in the background; words
 * find them at once.
 */
export class ImportRemoval {
  private removed = new Map<string, { items: MemoryItem[]; at: number }>();

  constructor(
    private readonly store: ImportStore,
    /** Memory changed (panels re-rank; after a restore, the restored items wait to be embedded). */
    private readonly changed: (restored: boolean) => void,
    private readonly now: () => number = Date.now,
  ) {}

  async remove(importId: string): Promise<{ removed: number }> {
    const items = await this.store.removeImport(importId);
    if (!items.length) throw new Error('That import has no memories left.');
    for (const [id, r] of this.removed) if (this.now() - r.at > UNDO_IMPORT_MS) this.removed.delete(id);
    this.removed.set(importId, { items, at: this.now() });
    this.changed(false);
    return { removed: items.length };
  }

  async restore(importId: string): Promise<{ restored: number }> {
    const r = this.removed.get(importId);
    if (!r || this.now() - r.at > UNDO_IMPORT_MS) {
      this.removed.delete(importId);
      throw new Error('Too late to undo: import the file again to bring those memories back.');
    }
    this.removed.delete(importId);
    // The stored items themselves are the input: every field the user or the import set comes back.
    await this.store.add(r.items, { from: 'restore' }, { deferEmbedding: true });
    this.changed(true);
    return { restored: r.items.length };
  }
}
