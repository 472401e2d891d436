// The sync bench's second device in a real browser: the built extension (.output/chrome-mv3) in a fresh headless
// Chromium profile joins the WebDAV folder through its options page, as a user does, while the service worker's JS
// heap is read through CDP. There IndexedDB lives in the browser process, so the heap is the worker's own working set
// (its memory index, the pass's buffers), not a copy of the database as fake-indexeddb makes it in Node.
import type { CDPSession } from 'playwright-core';
import type { MemoryPage } from '../../../lib/memory-browse/memory-query';
import type { ServiceStatus, SyncStatus } from '../../../lib/messaging/protocol';
import { launchExtension, type Harness } from '../../../test/e2e/harness';
import { wordsOf, type BrowserSyncFigures } from './browser-figures';

export interface BrowserSyncRun {
  n: number;
  place: { url: string; user: string; password: string };
  passphrase: string;
  /** Items to look up by their words once the pass is done (ids as the first device wrote them). */
  sample: { id: string; text: string }[];
  log: (s: string) => void;
  buildDir?: string;
  everyMs?: number;
  timeoutMs?: number;
}

type HeapUsage = { usedSize: number; totalSize: number };

/**
 * A CDP session to the extension's service worker, reached through the browser's session (Playwright gives CDP
 * sessions to pages only): attached non-flat, so commands and answers travel inside Target messages.
 */
class WorkerCdp {
  private next = 0;
  private readonly waiting = new Map<number, { ok: (v: unknown) => void; no: (e: Error) => void }>();
  gone?: string;
  private constructor(
    readonly cdp: CDPSession,
    private readonly sessionId: string,
  ) {
    cdp.on('Target.receivedMessageFromTarget', (e) => {
      if (e.sessionId !== sessionId) return;
      const m = JSON.parse(e.message) as { id?: number; result?: unknown; error?: { message: string } };
      const w = m.id === undefined ? undefined : this.waiting.get(m.id);
      if (!w || m.id === undefined) return;
      this.waiting.delete(m.id);
      if (m.error) w.no(new Error(m.error.message));
      else w.ok(m.result);
    });
    cdp.on('Target.detachedFromTarget', (e) => {
      if (e.sessionId !== sessionId) return;
      this.gone = 'the service worker went away (stopped or crashed) while it was measured';
      for (const w of this.waiting.values()) w.no(new Error(this.gone));
      this.waiting.clear();
    });
  }

  static async attach(h: Harness): Promise<WorkerCdp> {
    const browser = h.context.browser();
    if (!browser) throw new Error('no browser-level CDP session in this context');
    const cdp = await browser.newBrowserCDPSession();
    const { targetInfos } = await cdp.send('Target.getTargets');
    const sw = targetInfos.find((t) => t.type === 'service_worker' && t.url.startsWith(`chrome-extension://${h.extensionId}/`));
    if (!sw) throw new Error(`no service worker of the extension among ${targetInfos.length} targets`);
    const { sessionId } = await cdp.send('Target.attachToTarget', { targetId: sw.targetId, flatten: false });
    return new WorkerCdp(cdp, sessionId);
  }

  send<T>(method: string, params: object = {}): Promise<T> {
    if (this.gone) return Promise.reject(new Error(this.gone));
    const id = ++this.next;
    return new Promise<T>((ok, no) => {
      this.waiting.set(id, { ok: ok as (v: unknown) => void, no });
      this.cdp.send('Target.sendMessageToTarget', { sessionId: this.sessionId, message: JSON.stringify({ id, method, params }) }).catch((e: Error) => {
        this.waiting.delete(id);
        no(e);
      });
    });
  }

  heap(): Promise<HeapUsage> {
    return this.send<HeapUsage>('Runtime.getHeapUsage');
  }

  async heapAfterGc(): Promise<HeapUsage> {
    await this.send('HeapProfiler.collectGarbage');
    return this.heap();
  }

  detach(): Promise<void> {
    return this.cdp.detach().catch(() => undefined);
  }
}

/**
 * The heap at the start of every garbage collection of the service worker's thread, from a trace of the browser
 * (Blink's MinorGC/MajorGC events carry `usedHeapSizeBefore`). The heap is highest just before a collection, so this
 * sees the peaks that 100 ms reads fall between.
 */
class GcTrace {
  private readonly threads = new Map<string, string>();
  private readonly before = new Map<string, number>();
  private readonly count = new Map<string, number>();
  private readonly complete: Promise<{ dataLossOccurred: boolean }>;
  private readonly names = new Map<string, number>();
  events = 0;
  private constructor(private readonly cdp: CDPSession) {
    cdp.on('Tracing.dataCollected', (e) => {
      for (const ev of e.value as unknown as { name: string; ph: string; pid: number; tid: number; args?: { name?: string; usedHeapSizeBefore?: number } }[]) {
        const key = `${ev.pid}/${ev.tid}`;
        this.events++;
        this.names.set(ev.name, (this.names.get(ev.name) ?? 0) + 1);
        if (ev.ph === 'M' && ev.name === 'thread_name' && ev.args?.name) this.threads.set(key, ev.args.name);
        else if ((ev.name === 'MinorGC' || ev.name === 'MajorGC') && typeof ev.args?.usedHeapSizeBefore === 'number') {
          this.before.set(key, Math.max(this.before.get(key) ?? 0, ev.args.usedHeapSizeBefore));
          this.count.set(key, (this.count.get(key) ?? 0) + 1);
        }
      }
    });
    this.complete = new Promise((ok) => cdp.once('Tracing.tracingComplete', ok));
  }

  static async start(cdp: CDPSession): Promise<GcTrace> {
    const t = new GcTrace(cdp);
    await cdp.send('Tracing.start', { traceConfig: { includedCategories: ['devtools.timeline'], recordMode: 'recordAsMuchAsPossible', traceBufferSizeInKb: 512 * 1024 }, transferMode: 'ReportEvents' });
    return t;
  }

  /** The highest heap at a collection's start on the service worker's thread, and how many collections it had. */
  async stop(): Promise<{ peakBytes: number; collections: number; lost: boolean; events: number; commonest: string }> {
    await this.cdp.send('Tracing.end');
    const { dataLossOccurred } = await this.complete;
    let peakBytes = 0;
    let collections = 0;
    for (const [key, name] of this.threads) {
      if (name !== 'ServiceWorker thread') continue;
      peakBytes = Math.max(peakBytes, this.before.get(key) ?? 0);
      collections += this.count.get(key) ?? 0;
    }
    return { peakBytes, collections, lost: dataLossOccurred, events: this.events, commonest: [...this.names].sort((a, b) => b[1] - a[1]).slice(0, 5).map(([k, c]) => `${k} ${c}`).join(', ') };
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** How long the worker's heap is watched while it embeds what the pass brought (`sync_browser_heap_embedding_mb_*`). */
const EMBEDDING_WATCH_MS = 60_000;

/** At most 300 points of the heap over the pass, the highest read of each stretch kept (a peak is never smoothed away). */
function heapTimeline(reads: [number, number][]): [number, number][] {
  const per = Math.max(1, Math.ceil(reads.length / 300));
  const out: [number, number][] = [];
  for (let i = 0; i < reads.length; i += per) {
    const top = reads.slice(i, i + per).reduce((a, b) => (b[1] > a[1] ? b : a));
    out.push([Math.round(top[0]), Math.round(top[1] / 1e5) / 10]);
  }
  return out;
}

/**
 * Runs the second device in Chromium and measures it. Throws in words when a figure cannot be had (the pass failed,
 * the worker went away, items missing); the caller lists that as unmeasured.
 */
export async function browserSecondDevice(run: BrowserSyncRun): Promise<BrowserSyncFigures> {
  const { n, log } = run;
  const everyMs = run.everyMs ?? 100;
  const timeoutMs = run.timeoutMs ?? 600_000 + n * 20;
  const h = await launchExtension(run.buildDir ? { buildDir: run.buildDir } : {});
  let worker: WorkerCdp | undefined;
  try {
    const page = await h.extensionPage(); // options.html, where the user connects
    const sync = page.getByTestId('sync');
    await sync.getByTestId('sync-connect').waitFor();
    worker = await WorkerCdp.attach(h);

    // Before: the extension left alone until its worker's heap stops moving (at most 20 s), then collected.
    const idle: number[] = [];
    for (const end = Date.now() + 20_000; Date.now() < end; await sleep(500)) {
      idle.push((await worker.heap()).usedSize);
      const last = idle.slice(-4);
      if (last.length === 4 && Math.max(...last) - Math.min(...last) < 256 * 1024) break;
    }
    const modelBefore = (await h.call<ServiceStatus>('model:status', {})).state;
    const before = (await worker.heapAfterGc()).usedSize;
    log(`browser: the worker's heap after idling ${(before / 1e6).toFixed(1)} MB; connecting`);

    await sync.getByTestId('sync-webdav-url').fill(run.place.url);
    await sync.getByTestId('sync-webdav-user').fill(run.place.user);
    await sync.getByTestId('sync-webdav-password').fill(run.place.password);
    await sync.getByTestId('sync-passphrase').fill(run.passphrase);

    // Heap reads every `everyMs` until the pass is reported done; the status is read from the page's DOM (the
    // worker's pushes), so watching it costs the worker nothing.
    let peak = 0;
    let peakCommitted = 0;
    let last = 0;
    let samples = 0;
    let maxGapMs = 0;
    let done = false;
    const timeline: [number, number][] = []; // ms since Connect was clicked, usedSize
    let t0 = performance.now();
    const sampling = (async () => {
      let prev = performance.now();
      while (!done) {
        const t = performance.now();
        const u = await worker!.heap();
        const now = performance.now();
        maxGapMs = Math.max(maxGapMs, now - prev);
        prev = now;
        samples++;
        last = u.usedSize;
        timeline.push([now - t0, u.usedSize]);
        peak = Math.max(peak, u.usedSize);
        peakCommitted = Math.max(peakCommitted, u.totalSize);
        await sleep(Math.max(0, everyMs - (performance.now() - t)));
      }
    })();
    const status = sync.getByTestId('sync-status');
    const trace = await GcTrace.start(worker.cdp);
    t0 = performance.now();
    const clickedAt = Date.now();
    await sync.getByTestId('sync-connect').click();
    let state = 'off';
    let lastLog = t0;
    try {
      for (;;) {
        if (worker.gone) throw new Error(worker.gone);
        const error = await sync.getByTestId('sync-error').textContent({ timeout: 50 }).catch(() => null);
        if (error) throw new Error(`the options page said: ${error}`);
        state = (await status.getAttribute('data-state')) ?? 'off';
        const busy = (await sync.getByTestId('sync-connect').count()) > 0 && (await sync.getByTestId('sync-connect').isDisabled());
        if (state === 'error') throw new Error(`the pass failed: ${await status.textContent()}`);
        if (state === 'synced' && !busy) break;
        if (performance.now() - t0 > timeoutMs) throw new Error(`not synced after ${Math.round(timeoutMs / 1000)} s (state ${state})`);
        if (performance.now() - lastLog > 10_000) {
          lastLog = performance.now();
          log(`browser: ${Math.round((lastLog - t0) / 1000)} s, ${state}: ${await status.textContent()}; heap ${(last / 1e6).toFixed(1)} MB, peak ${(peak / 1e6).toFixed(1)} MB`);
        }
        await sleep(100);
      }
    } finally {
      done = true;
      await sampling.catch(() => undefined);
    }
    const passS = (performance.now() - t0) / 1000;
    const afterRaw = last;
    const after = (await worker.heapAfterGc()).usedSize;
    const gc = await trace.stop();
    log(`browser: the trace held ${gc.events} events (${gc.commonest}); ${gc.collections} collections on the worker's thread${gc.lost ? '; THE TRACE LOST EVENTS' : ''}`);
    // A later pass may have begun by now (memory changed during this one): the first must have ended without a problem.
    const st = await h.call<SyncStatus>('sync:status', {});
    if (!st.lastSyncedAt || st.lastSyncedAt < clickedAt) throw new Error(`the worker says ${st.state}, last synced ${st.lastSyncedAt ? new Date(st.lastSyncedAt).toISOString() : 'never'}, after the page said synced`);
    const model = await h.call<ServiceStatus>('model:status', {});
    log(`browser: synced after ${passS.toFixed(1)} s, ${samples} heap reads (longest gap ${Math.round(maxGapMs)} ms); peak ${(peak / 1e6).toFixed(1)} MB, after GC ${(after / 1e6).toFixed(1)} MB; model ${model.state}, ${model.unembedded} unembedded`);

    // Searchable: the memory browser's query finds each sampled item by its words, and the memory holds all n. The
    // queries go in one burst from the page (one round trip), answered by the worker while its embedding runs.
    const tq = performance.now();
    const queries = run.sample.map((s) => ({ id: s.id, text: wordsOf(s.text) }));
    const answers = await page.evaluate(
      (qs) => Promise.all(qs.map((q) => chrome.runtime.sendMessage({ type: 'memory:query', payload: { filter: { text: q.text }, offset: 0, limit: 200 } }))),
      queries,
    ) as ({ ok: true; value: MemoryPage } | { ok: false; error: string })[];
    const checkS = (performance.now() - tq) / 1000;
    // The bench's own reads between the two (GC, status, model) are left out.
    const searchableS = passS + checkS;
    let found = 0;
    let memorySize = 0;
    for (const [k, a] of answers.entries()) {
      if (!a.ok) throw new Error(`memory:query failed: ${a.error}`);
      memorySize = a.value.size;
      if (a.value.items.some((it) => it.id === queries[k].id)) found++;
    }
    if (memorySize !== n) throw new Error(`the extension holds ${memorySize} of ${n} items after its first pass`);
    if (found < run.sample.length) throw new Error(`only ${found} of ${run.sample.length} sampled items found by their words`);

    // Then the embedding of what arrived, which runs for hours at 100k: the worker's heap through its first
    // EMBEDDING_WATCH_MS (reads every 500 ms), and how many items it embedded meanwhile.
    let embeddingPeak = 0;
    for (const end = Date.now() + EMBEDDING_WATCH_MS; Date.now() < end; await sleep(500)) embeddingPeak = Math.max(embeddingPeak, (await worker.heap()).usedSize);
    const embeddingAfter = (await worker.heapAfterGc()).usedSize;
    const watched = await h.call<ServiceStatus>('model:status', {});
    log(`browser: embedding for ${EMBEDDING_WATCH_MS / 1000} s after the pass: heap peak ${(embeddingPeak / 1e6).toFixed(1)} MB, after GC ${(embeddingAfter / 1e6).toFixed(1)} MB; ${watched.unembedded} unembedded`);
    return {
      beforeBytes: before, peakBytes: peak, afterBytes: after, afterRawBytes: afterRaw, peakCommittedBytes: peakCommitted, samples, maxGapMs,
      peakGcBytes: gc.peakBytes, collections: gc.collections, traceLost: gc.lost,
      peakAtS: (timeline.find(([, u]) => u === peak)?.[0] ?? 0) / 1000, timeline: heapTimeline(timeline),
      passS, searchableS, checkS, found, memorySize, modelBefore,
      embedding: { watchS: EMBEDDING_WATCH_MS / 1000, peakBytes: embeddingPeak, afterBytes: embeddingAfter, embedded: model.unembedded - watched.unembedded },
      model: { state: model.state, unembedded: model.unembedded, indexBackend: model.indexBackend },
      statusText: (await status.textContent()) ?? '',
      browserVersion: h.context.browser()?.version() ?? '?',
    };
  } finally {
    await worker?.detach();
    await h.close();
  }
}
