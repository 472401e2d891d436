import * as v from 'valibot';
import { browser, type Browser } from 'wxt/browser';
import type { BackstoryDB } from '../memory/db';
import { ImportJobs, type HandoverRow } from '../import/import-jobs';
import type { MemoryStore } from '../memory/store';
import type { Res } from '../channel/rpc';
import { HANDOVER_PORT, type BackgroundProtocol, type IndexingProgress, type PanelPush } from '../messaging/protocol';
import { readImport } from '../import/index';
import { profileKey } from '../memory/file-signature';
import { ImportRunner } from './import-runner';
import type { FeedbackBlock } from '../learn/feedback-file';


const Handover = v.object({
  job: v.pipe(v.string(), v.startsWith('import-'), v.maxLength(200)),
  createdAt: v.number(),
  fileNames: v.pipe(v.array(v.pipe(v.string(), v.maxLength(4096))), v.maxLength(100_000)),
  bytes: v.number(),
});

/** The hand-over a page's port announces in its name, or undefined. */
export function handoverOf(portName: string): HandoverRow | undefined {
  if (!portName.startsWith(HANDOVER_PORT)) return undefined;
  try {
    const parsed = v.safeParse(Handover, JSON.parse(portName.slice(HANDOVER_PORT.length)));
    return parsed.success ? parsed.output : undefined;
  } catch {
    return undefined;
  }
}

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
      /** Stores a memory file's feedback (checked before the commit) once its items have landed. */
      feedback: (block: FeedbackBlock, trusted: boolean) => Promise<unknown>;
    },
  ) {
    this.jobs = new ImportJobs(db);
    this.runner = new ImportRunner({
      jobs: this.jobs,
      // This profile's key tells its own memory files (they round-trip exactly) from everyone else's.
      read: (files, opts) => readImport(files, { ...opts, signingKey: () => profileKey(false) }),
      commit: (inputs, importId, trusted) => parts.store.commitImport(inputs, { importId, provenance: { from: 'import', trusted } }),
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

  /**
   * A page opened a hand-over port: it stores picked files next. The job waits for them, and runs (or is reported as
   * not handed over) once the port closes, whether the page closed it when done or was closed midway.
   */
  handover(port: Browser.runtime.Port): void {
    const meta = handoverOf(port.name);
    if (!meta) return port.disconnect();
    let stopKeepAlive = () => {};
    const expected = this.runner.expect(meta).then((stop) => void (stopKeepAlive = stop), () => undefined);
    port.onDisconnect.addListener(() => {
      void expected
        .then(() => {
          stopKeepAlive();
          return this.runner.handedOver(meta.job);
        })
        .catch(() => undefined); // storage gone: the next worker start looks again
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

  /** The user's answer to what a memory file from elsewhere asks for (the job waits in state `confirm`). */
  async trust(jobId: string, keep: boolean): Promise<{ ok: true }> {
    await this.runner.answer(jobId, keep);
    return { ok: true };
  }

  /** An offer found in an export (ChatGPT custom instructions): saved as an instruction only when the user says so. */
  async offer(jobId: string, index: number, save: boolean): Promise<{ ok: true }> {
    const offer = await this.runner.takeOffer(jobId, index);
    if (offer && save) {
      // The user chose to keep it: their own instruction from here on.
      await this.parts.store.add([{ text: offer.text, title: offer.title, kind: 'instruction', tags: ['imported'], source: { title: offer.from, importId: jobId } }], { from: 'user' });
      this.parts.refresh();
    }
    return { ok: true };
  }
}
