import type { IndexingProgress, PanelPush } from '../messaging/protocol';
import type { MemoryStore } from '../memory/store';
import type { MemoryInput, MemoryItem } from '../memory/types';
import { IndexingEstimate } from './indexing-estimate';

interface Panels {
  broadcast(push: PanelPush): void;
  refreshAll(): void;
}

/**
 * Embedding in the background (imports, items added while the model was missing, held items confirmed), with its
 * progress for the panels. A run that fails ends its progress at once and says why: the items it did not reach are
 * ranked by their words until the next run (the worker's next start, or the next import) embeds them.
 */
export class BackgroundEmbedding {
  /** The run in progress, for panel states; undefined when none is. */
  progress?: IndexingProgress;
  /** Why the last run stopped early, until a run completes. */
  problem?: string;
  private estimate = new IndexingEstimate();

  constructor(
    private readonly store: Pick<MemoryStore, 'embedPending' | 'add' | 'indexBackend' | 'unembedded'>,
    private readonly panels: Panels,
  ) {}

  /** Embeds whatever is waiting, telling open pages how far it got. Resolves to the count embedded, never rejects. */
  async run(): Promise<number> {
    let last: IndexingProgress = { done: 0, total: 0 };
    // The run shows at once: opening the engine (the offscreen document, the model) takes seconds before a first batch
    // is stored, and a panel asked meanwhile (an import just landed) would say nothing is being indexed.
    const waiting = this.progress ? 0 : this.store.unembedded().length;
    if (waiting) this.progress = this.estimate.update(0, waiting);
    try {
      let reported = false;
      const n = await this.store.embedPending((done, total) => {
        reported = true;
        last = { done, total };
        const estimate = this.estimate.update(done, total);
        const progress = this.store.indexBackend ? { ...estimate, backend: this.store.indexBackend } : estimate;
        this.progress = done < total ? progress : undefined;
        this.panels.broadcast({ type: 'indexing', progress });
        if (done === total || done % 256 === 0) this.panels.refreshAll();
      });
      this.problem = undefined;
      // Also when it ended before a first batch (nothing to embed after all, or no model: items stay found by words);
      // panels that were shown the run then read their state again.
      this.progress = undefined;
      if (waiting && !reported) this.panels.refreshAll();
      return n;
    } catch (e) {
      this.progress = undefined;
      this.problem = `Indexing stopped after ${last.done} of ${last.total} memories: ${e instanceof Error ? e.message : String(e)}. The rest are found by their words until indexing runs again.`;
      // done === total tells pages the run is over.
      this.panels.broadcast({ type: 'indexing', progress: { done: last.done, total: last.done } });
      this.panels.broadcast({ type: 'problem', message: this.problem });
      this.panels.refreshAll();
      return 0;
    }
  }

  /**
   * A memory file Backstory itself hands over (`memory:import`: the welcome's demo memory, a seeded profile), so it is
   * trusted as the user's own: every item is written in one transaction (all or nothing), then embedded in the
   * background; if MV3 stops the worker, its next start finds the unembedded items and carries on.
   */
  async importInputs(inputs: MemoryInput[]): Promise<MemoryItem[]> {
    const added = await this.store.add(inputs, { from: 'import', trusted: true }, { deferEmbedding: inputs.length > 8 });
    void this.run();
    return added;
  }
}
