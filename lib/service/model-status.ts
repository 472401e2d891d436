import type { MemoryStore } from '../memory/store';
import type { ServiceStatus } from '../messaging/protocol';
import type { BackgroundEmbedding } from './background-embedding';
import type { ModelHolder } from './model';

/** What the options page shows of the model (`'model:status'`): its state, and how far memory is indexed with it. */
export class ModelStatusReport {
  constructor(
    private readonly store: MemoryStore,
    private readonly model: ModelHolder,
    private readonly indexing: BackgroundEmbedding,
  ) {}

  /** Asked for when a `model` or `indexing` push says something changed (not polled): it reads every item. */
  async get(): Promise<ServiceStatus> {
    await this.store.load();
    const unembedded = this.indexing.progress ? this.indexing.progress.total - this.indexing.progress.done : this.store.unembedded().length;
    return {
      ...this.model.status, memorySize: this.store.size, unembedded, indexBackend: this.store.indexBackend,
      ...(this.model.indexerReason ? { indexReason: this.model.indexerReason } : {}),
      ...((this.indexing.problem ?? this.model.indexerFailure) ? { indexProblem: this.indexing.problem ?? `The fast indexing engine failed (${this.model.indexerFailure}); indexing went on with the slower built-in one.` } : {}),
    };
  }
}
