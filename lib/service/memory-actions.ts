import { parseMemoryFile } from '../memory/memory-file';
import type { Learning } from '../learn/learning';
import { ImportRemoval, RemovedImports } from '../memory-browse/import-removal';
import { MemoryCatalog, type MemoryPage, type MemoryQuery } from '../memory-browse/memory-query';
import type { MemoryStore } from '../memory/store';
import type { MemoryInput, MemoryItem, MemoryPatch } from '../memory/types';
import type { BackgroundEmbedding } from './background-embedding';

interface Panels {
  refreshAll(): void;
}

/** Changes to memory the pages ask for; every change re-ranks the open panels. */
export class MemoryActions {
  /** The memory browser's paged, filtered reads. */
  private readonly catalog = new MemoryCatalog();
  /** Deleting a whole import, with Undo for a while after. */
  private readonly imports: ImportRemoval;

  constructor(
    private readonly store: MemoryStore,
    private readonly panels: Panels,
    private readonly indexing: BackgroundEmbedding,
    private readonly learning: Learning,
    removedImports: RemovedImports,
  ) {
    this.imports = new ImportRemoval(store, removedImports, (restored) => {
      if (restored) void indexing.run();
      panels.refreshAll();
    });
  }

  async query(q: MemoryQuery): Promise<MemoryPage> {
    await this.store.load();
    return this.catalog.query(this.store.view, q);
  }

  removeImport(importId: string): Promise<{ removed: number }> {
    return this.imports.remove(importId);
  }

  restoreImport(importId: string): Promise<{ restored: number }> {
    return this.imports.restore(importId);
  }

  /** At every worker start: a deleted import Undo no longer offers is not kept. */
  expireUndo(): Promise<unknown> {
    return this.imports.expire();
  }

  /**
   * What the user typed or chose in Backstory's own pages, or (`restore`) the Undo of their own delete, which brings
   * the items back exactly as they were. Only extension pages may send this (lib/messaging/rpc.ts).
   */
  async add(items: MemoryInput[], restore = false): Promise<{ items: MemoryItem[] }> {
    const added = await this.store.add(items, restore ? { from: 'restore' } : { from: 'user' });
    this.panels.refreshAll();
    return { items: added };
  }

  async update(id: string, patch: MemoryPatch): Promise<{ item: MemoryItem }> {
    const item = await this.store.update(id, patch);
    // A confirmed held-back item has no vector yet: embed it (and anything else waiting) in the background.
    if (!item.needsReview && !this.store.view.hasVector(id)) void this.indexing.run();
    this.panels.refreshAll();
    return { item };
  }

  async remove(ids: string[]): Promise<{ removed: MemoryItem[] }> {
    const removed = await this.store.remove(ids);
    this.panels.refreshAll();
    return { removed };
  }

  async list(): Promise<{ items: MemoryItem[] }> {
    await this.store.load();
    return { items: (await this.store.all()).sort((a, b) => b.updatedAt - a.updatedAt) };
  }

  /**
   * A small memory file handed over as text (the demo memory, seeded profiles): all or nothing. Files the user picks
   * go through the import jobs (lib/service/imports.ts), which read every format.
   */
  async importMemoryFile(content: string): Promise<{ added: number }> {
    const added = await this.indexing.importInputs(parseMemoryFile(content));
    this.panels.refreshAll();
    return { added: added.length };
  }

  /** What the export writes beside the items: the feedback the learner keeps (the page reads the items itself). */
  async exportFeedback(): Promise<{ feedback: unknown }> {
    return { feedback: await this.learning.exportAll() };
  }

  async clear(): Promise<{ ok: true }> {
    await this.store.clear();
    await this.imports.forgetAll();
    await this.learning.clear();
    this.panels.refreshAll();
    return { ok: true };
  }
}
