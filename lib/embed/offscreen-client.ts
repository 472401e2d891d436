import { NoReceiverError, sendRuntime, type Req, type Res } from '../channel/rpc';
import { MAX_WORD_PIECES, MODEL_DIM, type Embedder } from './embedder';
import { modelTag } from './model-tag';
import { unpackVectors, type OffscreenProtocol } from './offscreen-wire';
import { GPU_FIRST_MS, type EmbedBackendChoice } from './gpu-adapter';

/** The offscreen document is closed after this long without an embedding request (it holds a second model copy). */
export const OFFSCREEN_IDLE_MS = 30_000;
const DOCUMENT = 'offscreen.html';

/** Service worker -> its offscreen document. Every extension page receives it too; only the document answers. */
function callOffscreen<K extends keyof OffscreenProtocol>(type: K, payload: Req<OffscreenProtocol, K>): Promise<Res<OffscreenProtocol, K>> {
  return sendRuntime<OffscreenProtocol, K>(type, payload);
}

/**
 * How long a request may go unanswered: set-up (document, model) plus a generous time per text and per word piece it
 * may hold (a window-long passage is several times the work of a chat turn, and a batch may wait behind two others
 * at its engine). An engine Worker that dies without an error event never answers; past this the document is closed
 * (its engines with it) and the caller falls back to the service worker's own model.
 */
export function replyBudgetMs(texts: string[], backend: EmbedBackendChoice = 'auto'): number {
  // About four characters a word piece in English; a text is read up to the model's window.
  const pieces = texts.reduce((n, t) => n + Math.min(MAX_WORD_PIECES, Math.ceil(t.length / 4)), 0);
  // WebGPU chosen in the options is waited for as it starts (gpu-engine-start.ts: minutes on a software adapter).
  return 20_000 + 500 * texts.length + 20 * pieces + (backend === 'webgpu' ? GPU_FIRST_MS.software : 0);
}

/** The offscreen engine did not answer in time. */
export class EngineTimeoutError extends Error {
  constructor(ms: number) {
    super(`the indexing engine did not answer within ${Math.round(ms / 1000)} s`);
    this.name = 'EngineTimeoutError';
  }
}

/** The parts of chrome.offscreen / chrome.runtime this needs (absent in Firefox, and in Chrome before 116). */
interface OffscreenApi {
  createDocument(p: { url: string; reasons: string[]; justification: string }): Promise<void>;
  closeDocument(): Promise<void>;
}
type ChromeLike = {
  offscreen?: OffscreenApi;
  runtime?: { getURL(p: string): string; getContexts?(f: { contextTypes: string[]; documentUrls?: string[] }): Promise<unknown[]> };
};

function chromeApi(): ChromeLike | undefined {
  return (globalThis as { chrome?: ChromeLike }).chrome;
}

/** True where the browser can give the service worker an offscreen document (Chrome); Firefox cannot. */
export function offscreenAvailable(): boolean {
  const c = chromeApi();
  return !!c?.offscreen?.createDocument && !!c.runtime?.getContexts;
}

/**
 * The service worker's handle on the offscreen embedding engine: creates the document on demand, closes it when idle,
 * and creates it again when Chrome closed it (or it crashed) between two requests. Embeds for indexing only; a
 * ranking query is embedded in the worker itself (no round trip, and never queued behind an import's batches).
 */
export class OffscreenEmbedder implements Embedder {
  /** The document's engines run the int8 file (offscreen-worker.ts). */
  readonly modelId = modelTag('q8');
  readonly dim = MODEL_DIM;
  backend = 'offscreen';
  /** The document's engines queue work: a second batch sent while the first is stored keeps them busy. */
  readonly parallel = 2;
  private creating?: Promise<void>;
  private idleTimer?: ReturnType<typeof setTimeout>;
  private busy = 0;
  /** Why the last request failed, if it did (shown with the index status). */
  lastFailure?: string;
  /** Why the document indexed on the backend it did (WebGPU, or why not). */
  reason?: string;
  private run = 0;

  constructor(
    private readonly idleMs = OFFSCREEN_IDLE_MS,
    private readonly budgetMs: (texts: string[], backend: EmbedBackendChoice) => number = replyBudgetMs,
    /** The user's backend choice (settings `embed.backend`), read for every request so a change applies at once. */
    private readonly backendChoice: () => Promise<EmbedBackendChoice> = async () => 'auto',
  ) {}

  private async open(): Promise<void> {
    const c = chromeApi()!;
    const url = c.runtime!.getURL(DOCUMENT);
    const live = await c.runtime!.getContexts!({ contextTypes: ['OFFSCREEN_DOCUMENT'], documentUrls: [url] });
    if (live.length) return;
    this.creating ??= c
      .offscreen!.createDocument({ url: DOCUMENT, reasons: ['WORKERS'], justification: 'Runs the embedding model in Workers, one per core, to index imported notes.' })
      .catch((e: unknown) => {
        // Another caller created it between the check and here: that is fine.
        if (!/single offscreen document/i.test(String(e))) throw e;
      })
      .finally(() => (this.creating = undefined));
    await this.creating;
  }

  runSize(texts: number): void {
    this.run = texts;
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    if (!texts.length) return [];
    this.busy++;
    clearTimeout(this.idleTimer);
    try {
      for (let attempt = 0; ; attempt++) {
        try {
          const r = await this.answer(texts);
          this.backend = r.backend;
          this.reason = r.reason;
          this.lastFailure = undefined;
          return unpackVectors(r.vectors, r.count, r.dim);
        } catch (e) {
          // The document was closed under us (Chrome, or our idle timer racing a new request): open it again once.
          if (attempt > 0 || !(e instanceof NoReceiverError)) {
            this.lastFailure = e instanceof Error ? e.message : String(e);
            throw e;
          }
        }
      }
    } finally {
      if (--this.busy === 0) this.idleTimer = setTimeout(() => void this.close(), this.idleMs);
    }
  }

  private async answer(texts: string[]) {
    const backend = await this.backendChoice();
    const ms = this.budgetMs(texts, backend);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, fail) => (timer = setTimeout(() => fail(new EngineTimeoutError(ms)), ms)));
    try {
      return await Promise.race([this.open().then(() => callOffscreen('offscreen:embed', { texts, backend, run: Math.max(this.run, texts.length) })), timeout]);
    } catch (e) {
      // A document that stopped answering is of no further use: the next request starts a fresh one.
      if (e instanceof EngineTimeoutError) await chromeApi()?.offscreen?.closeDocument().catch(() => undefined);
      throw e;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Closes the document (and frees its model); the next request opens it again. */
  async close(): Promise<void> {
    clearTimeout(this.idleTimer);
    if (this.busy) return;
    await chromeApi()?.offscreen?.closeDocument().catch(() => undefined);
  }
}
