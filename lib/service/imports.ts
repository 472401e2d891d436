import { browser } from 'wxt/browser';
import type { BackstoryDB } from '../memory/db';
import { ImportJobs } from '../import/import-jobs';
import type { MemoryStore } from '../memory/store';
import type { Res } from '../channel/rpc';
import type { BackgroundProtocol, IndexingProgress, PanelPush } from '../messaging/protocol';
import { readImport } from '../import/index';
import { ImportRunner } from './import-runner';


/** The worker's side of imports: the job runner wired to the store, the open pages and the message protocol. */
export class Imports {
  readonly jobs: ImportJobs;
  readonly runner: ImportRunner;

  constructor(
    db: BackstoryDB,
    private readonly parts: {
      store: MemoryStore;
      /** Background indexing with progress pushes (BackstoryService.indexInBackground). */
      index: () => Promise<number>;
      broadcast: (push: PanelPush) => void;
      /** Memory changed: open panels re-rank. */
      refresh: () => void;
      /** The indexing progress as last reported. */
      indexing: () => IndexingProgress | undefined;
      /** Stores a memory file's feedback events once its items have landed. */
      feedback: (feedback: unknown) => Promise<unknown>;
    },
  ) {
    this.jobs = new ImportJobs(db);
    this.runner = new ImportRunner({
      jobs: this.jobs,
      read: readImport,
      commit: (inputs, importId) => parts.store.commitImport(inputs, { importId }),
      index: async () => {
        // A run already going when this import landed does not include its items: go again until a run finds
        // nothing (or cannot embed: no model).
        while ((await parts.index()) && parts.store.unembedded().length);
      },
      push: (job, progress) => parts.broadcast({ type: 'import', job, ...(progress ? { progress } : {}) }),
      committed: () => parts.refresh(),
      feedback: parts.feedback,
      keepAlive: () => browser.runtime.getPlatformInfo(),
    });
  }

  /** At every worker start. */
  resume(): Promise<void> {
    return this.runner.resume();
  }

  async start(jobId: string): Promise<{ ok: true }> {
    await this.runner.start(jobId);
    return { ok: true };
  }

  async status(): Promise<Res<BackgroundProtocol, 'import:status'>> {
    return { jobs: await this.jobs.list(), indexing: this.parts.indexing() };
  }

  cancel(jobId: string): Promise<Res<BackgroundProtocol, 'import:cancel'>> {
    return this.runner.cancel(jobId);
  }

  async dismiss(jobId: string): Promise<{ ok: true }> {
    await this.runner.dismiss(jobId);
    return { ok: true };
  }

  /** An offer found in an export (ChatGPT custom instructions): saved as an instruction only when the user says so. */
  async offer(jobId: string, index: number, save: boolean): Promise<{ ok: true }> {
    const offer = await this.runner.takeOffer(jobId, index);
    if (offer && save) {
      await this.parts.store.add([{ text: offer.text, title: offer.title, kind: 'instruction', tags: ['imported'], source: { title: offer.from, importId: jobId } }]);
      this.parts.refresh();
    }
    return { ok: true };
  }
}
