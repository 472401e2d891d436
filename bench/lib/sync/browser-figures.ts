// The figures of the sync bench's second device in Chromium (browser-device.ts), as rows for bench/sync.ts, and the
// words it looks an item up by.
import type { ServiceStatus } from '../../../lib/messaging/protocol';

export interface BrowserSyncFigures {
  /** JS heap (usedSize) of the service worker, bytes: after the extension idled (after GC), highest while the pass ran, after it (after GC). */
  beforeBytes: number;
  peakBytes: number;
  afterBytes: number;
  /** The last sample, when the status said synced (before GC). */
  afterRawBytes: number;
  /** The heap V8 had committed (totalSize), highest seen: it grows for a peak between two reads and shrinks slowly. */
  peakCommittedBytes: number;
  samples: number;
  /** The highest heap at the start of a garbage collection of the worker's thread during the pass (a trace), and their count. */
  peakGcBytes: number;
  collections: number;
  /** The browser's trace buffer filled: collections after that were not seen. */
  traceLost: boolean;
  /** When the highest read came, seconds after Connect was clicked (the pass ends at passS). */
  peakAtS: number;
  /** The heap through the pass: [ms after Connect, MB], the highest read of each stretch. */
  timeline: [number, number][];
  /** Longest time between two heap reads while the pass ran (a read waits when the worker's thread is busy). */
  maxGapMs: number;
  /** Connect clicked -> the status says synced. */
  passS: number;
  /**
   * Connect clicked -> every sampled item found by its words through the memory browser's query, and all n held: the
   * pass, then the queries' own time (sent once the pass is done).
   */
  searchableS: number;
  /** The part of searchableS the queries took (sent once the pass was done). */
  checkS: number;
  found: number;
  memorySize: number;
  /** The model's state when the heap before was read. */
  modelBefore: ServiceStatus['state'];
  /**
   * The first `watchS` seconds of embedding what arrived, after the searchable check: the highest heap read (every
   * 500 ms), the heap after GC at their end, and the items embedded meanwhile.
   */
  embedding: { watchS: number; peakBytes: number; afterBytes: number; embedded: number };
  /** The model and background indexing when the after-figure was read (embedding starts as the pass ends). */
  model: Pick<ServiceStatus, 'state' | 'unembedded' | 'indexBackend'>;
  statusText: string;
  browserVersion: string;
}

/** Twelve words spread over the item's text, a space after the last (a whole word, not one being typed). */
export function wordsOf(text: string): string {
  const ws = text.split(/\s+/).filter((w) => /[\p{L}\p{N}]{3,}/u.test(w));
  const k = Math.min(12, ws.length);
  return `${Array.from({ length: k }, (_, i) => ws[Math.floor((i * ws.length) / k)]).join(' ')} `;
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
  const peak = Math.max(f.peakBytes, f.peakGcBytes);
  const where = 'Chromium service worker heap (CDP Runtime.getHeapUsage usedSize), IndexedDB in the browser process';
  const embedding = `model ${f.modelBefore} before connecting; ` + (f.model.state === 'idle'
    ? 'the model had not started loading when the pass ended: no embedding overlapped the samples'
    : `background embedding starts as the pass ends: when the after-figure was read the model was ${f.model.state}${f.model.indexBackend ? ` (${f.model.indexBackend})` : ''} with ${f.model.unembedded} items unembedded; reads and the trace stopped when the status said synced, so at most the last read or two (and the collection the bench forces for the after-figure) could see embedding's first allocations`);
  return {
    rows: [
      {
        name: `sync_peak_heap_mb_${L}`, what: `second device = the built extension in headless Chromium, its first pass of ${L} items: the highest ${where}, read every ~${everyMs} ms and at the start of each garbage collection (a trace)`,
        value: mb(peak), target: n >= 100_000 ? '<= 200 MB' : 'reported', ok: n >= 100_000 ? mb(peak) <= 200 : undefined,
        note: `whole heap, not above the level before: ${mb(f.beforeBytes)} MB after the extension idled (after GC), so ${mb(peak - f.beforeBytes)} MB above it; highest at a collection's start ${f.collections ? `${mb(f.peakGcBytes)} MB (${f.collections} collections${f.traceLost ? ', THE TRACE LOST EVENTS: later collections unseen' : ''})` : 'not seen (the trace showed no collection on the worker\'s thread)'}, highest of ${f.samples} reads ${mb(f.peakBytes)} MB at ${r1(f.peakAtS)} s of the ${r1(f.passS)} s pass (longest gap between reads ${Math.round(f.maxGapMs)} ms); highest committed heap ${mb(f.peakCommittedBytes)} MB; ${embedding}`,
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
      {
        name: `sync_browser_heap_embedding_mb_${L}`, what: `the same worker's heap while it embeds what arrived (it runs for hours at 100k), its first ${f.embedding.watchS} s after the searchable check: the highest read (every 500 ms)`,
        value: mb(f.embedding.peakBytes), target: 'reported', note: `${mb(f.embedding.afterBytes)} MB after GC at the end of those ${f.embedding.watchS} s; ${f.embedding.embedded} items embedded in them`,
      },
    ],
    extra: {
      [`sync_browser_heap_before_mb_${L}`]: mb(f.beforeBytes),
      [`sync_browser_peak_committed_heap_mb_${L}`]: mb(f.peakCommittedBytes),
      [`sync_browser_pass_s_${L}`]: r1(f.passS),
      [`sync_browser_heap_reads_${L}`]: f.samples,
      [`sync_browser_peak_heap_read_mb_${L}`]: mb(f.peakBytes),
      [`sync_browser_peak_heap_at_gc_mb_${L}`]: mb(f.peakGcBytes),
      [`sync_browser_collections_${L}`]: f.collections,
      [`sync_browser_trace_lost_events_${L}`]: f.traceLost,
      [`sync_browser_longest_read_gap_ms_${L}`]: Math.round(f.maxGapMs),
      [`sync_browser_model_after_${L}`]: f.model,
      [`sync_browser_heap_timeline_${L}`]: f.timeline,
      sync_browser_runtime: `Chromium ${f.browserVersion}, headless, a fresh profile, the built extension (.output/chrome-mv3)`,
    },
  };
}
