// The sync bench's second device in a real browser: the built extension (.output/chrome-mv3) in a fresh headless
// Chromium profile joins the WebDAV folder through its options page, as a user does, while the service worker's JS
// heap is read through CDP. There IndexedDB lives in the browser process, so the heap is the worker's own working set
// (its memory index, the pass's buffers), not a copy of the database as fake-indexeddb makes it in Node.
import type { CDPSession } from 'playwright-core';
import type { MemoryPage } from '../../../lib/memory-browse/memory-query';
import type { ServiceStatus, SyncStatus } from '../../../lib/messaging/protocol';
import { launchExtension, type Harness } from '../../../test/e2e/harness';

export interface BrowserSyncFigures {
  /** JS heap (usedSize) of the service worker, bytes: after the extension idled (after GC), highest while the pass ran, after it (after GC). */
  beforeBytes: number;
  peakBytes: number;
  afterBytes: number;
  /** The last sample, when the status said synced (before GC). */
  afterRawBytes: number;
  /** The heap V8 had committed (totalSize), highest seen: it bounds what a sample can miss between two reads. */
  peakCommittedBytes: number;
  samples: number;
  /** Longest time between two heap reads while the pass ran (a read waits when the worker's thread is busy). */
  maxGapMs: number;
  /** Connect clicked -> the status says synced. */
  passS: number;
  /** Connect clicked -> every sampled item found by its words through the memory browser's query, and all n held. */
  searchableS: number;
  /** The part of searchableS the queries took (sent once the pass was done). */
  checkS: number;
  found: number;
  memorySize: number;
  /** The model's state when the heap before was read. */
  modelBefore: ServiceStatus['state'];
  /** The model and background indexing when the after-figure was read (embedding starts as the pass ends). */
  model: Pick<ServiceStatus, 'state' | 'unembedded' | 'indexBackend'>;
  statusText: string;
  browserVersion: string;
}

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
    private readonly cdp: CDPSession,
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

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Twelve words spread over the item's text, a space after the last (a whole word, not one being typed). */
export function wordsOf(text: string): string {
  const ws = text.split(/\s+/).filter((w) => /[\p{L}\p{N}]{3,}/u.test(w));
  const k = Math.min(12, ws.length);
  return `${Array.from({ length: k }, (_, i) => ws[Math.floor((i * ws.length) / k)]).join(' ')} `;
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
        peak = Math.max(peak, u.usedSize);
        peakCommitted = Math.max(peakCommitted, u.totalSize);
        await sleep(Math.max(0, everyMs - (performance.now() - t)));
      }
    })();
    const status = sync.getByTestId('sync-status');
    const t0 = performance.now();
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
    const st = await h.call<SyncStatus>('sync:status', {});
    if (st.state !== 'synced' || !st.lastSyncedAt) throw new Error(`the worker says ${st.state} after the page said synced`);
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
    const searchableS = (performance.now() - t0) / 1000;
    const checkS = (performance.now() - tq) / 1000;
    let found = 0;
    let memorySize = 0;
    for (const [k, a] of answers.entries()) {
      if (!a.ok) throw new Error(`memory:query failed: ${a.error}`);
      memorySize = a.value.size;
      if (a.value.items.some((it) => it.id === queries[k].id)) found++;
    }
    if (memorySize !== n) throw new Error(`the extension holds ${memorySize} of ${n} items after its first pass`);
    if (found < run.sample.length) throw new Error(`only ${found} of ${run.sample.length} sampled items found by their words`);
    return {
      beforeBytes: before, peakBytes: peak, afterBytes: after, afterRawBytes: afterRaw, peakCommittedBytes: peakCommitted, samples, maxGapMs,
      passS, searchableS, checkS, found, memorySize, modelBefore,
      model: { state: model.state, unembedded: model.unembedded, indexBackend: model.indexBackend },
      statusText: (await status.textContent()) ?? '',
      browserVersion: h.context.browser()?.version() ?? '?',
    };
  } finally {
    await worker?.detach();
    await h.close();
  }
}

/** A figure row as bench/sync.ts prints and saves it. */
export interface FigureRow {
  name: string;
  what: string;
  value: number;
  target: string;
  ok?: boolean;
  note?: string;
}

const mb = (bytes: number) => Math.round(bytes / 1e5) / 10;
const r1 = (x: number) => Math.round(x * 10) / 10;

/** The three figures of a browser run at size label `L`, and the rest of what it saw (for the JSON). */
export function browserRows(L: string, n: number, f: BrowserSyncFigures, everyMs = 100): { rows: FigureRow[]; extra: Record<string, unknown> } {
  const where = 'Chromium service worker heap (CDP Runtime.getHeapUsage usedSize), IndexedDB in the browser process';
  const embedding = `model ${f.modelBefore} before connecting; ` + (f.model.state === 'idle'
    ? 'the model had not started loading when the pass ended: no embedding overlapped the samples'
    : `background embedding starts as the pass ends: when the after-figure was read the model was ${f.model.state}${f.model.indexBackend ? ` (${f.model.indexBackend})` : ''} with ${f.model.unembedded} items unembedded; sampling stopped when the status said synced, so at most the last read or two could see embedding's first allocations`);
  return {
    rows: [
      {
        name: `sync_browser_peak_heap_mb_${L}`, what: `second device = the built extension in headless Chromium, its first pass of ${L} items: the highest read of the ${where}`,
        value: mb(f.peakBytes), target: n >= 100_000 ? '<= 200 MB' : 'reported', ok: n >= 100_000 ? mb(f.peakBytes) <= 200 : undefined,
        note: `whole heap, not above the level before: ${mb(f.beforeBytes)} MB after the extension idled (after GC), so ${mb(f.peakBytes - f.beforeBytes)} MB above it; ${f.samples} reads every ~${everyMs} ms (longest gap ${Math.round(f.maxGapMs)} ms), highest committed heap ${mb(f.peakCommittedBytes)} MB; ${embedding}`,
      },
      {
        name: `sync_browser_heap_after_mb_${L}`, what: `the same worker's heap once the status said synced, after GC (${where})`,
        value: mb(f.afterBytes), target: 'reported', note: `${mb(f.afterRawBytes)} MB at the last read before GC; ${mb(f.beforeBytes)} MB before connecting`,
      },
      {
        name: `sync_browser_searchable_s_${L}`, what: `second device in Chromium: Connect clicked on the options page -> all ${L} items held and sampled ones found by their words (memory:query, the memory browser's search)`,
        value: r1(f.searchableS), target: n <= 10_000 ? '<= 30 s' : 'reported', ok: n <= 10_000 ? f.searchableS <= 30 : undefined,
        note: `the pass (connect -> status synced) ${r1(f.passS)} s, then the sampled items' queries in one burst ${r1(f.checkS)} s (the worker embedding meanwhile): ${f.found} found, ${f.memorySize} items held; WebDAV on 127.0.0.1, the bench vault's cheap key derivation (8 MiB Argon2id, timed apart as sync_unlock_ms at the default)`,
      },
    ],
    extra: {
      [`sync_browser_heap_before_mb_${L}`]: mb(f.beforeBytes),
      [`sync_browser_peak_committed_heap_mb_${L}`]: mb(f.peakCommittedBytes),
      [`sync_browser_pass_s_${L}`]: r1(f.passS),
      [`sync_browser_heap_reads_${L}`]: f.samples,
      [`sync_browser_longest_read_gap_ms_${L}`]: Math.round(f.maxGapMs),
      [`sync_browser_model_after_${L}`]: f.model,
      sync_browser_runtime: `Chromium ${f.browserVersion}, headless, a fresh profile, the built extension (.output/chrome-mv3)`,
    },
  };
}
