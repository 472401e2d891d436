import { describe, expect, it } from 'vitest';
import { browserRows, wordsOf, type BrowserSyncFigures, type FigureRow } from '../../bench/lib/sync/browser-figures';
import { itemTexts } from '../../bench/lib/sync/measure';
import { rng } from '../../bench/lib/perf/synthetic';
import { MemoryCatalog } from '../../lib/memory-browse/memory-query';
import { arrayMemoryView } from '../../lib/memory/index/memory-index';
import { createItem } from '../../lib/memory/normalize';

describe('the sync bench in Chromium looks items up by their words', () => {
  it('finds each item through the memory browser’s query, though items share pieces of text', async () => {
    const pool = [
      'We moved the launch to March. The vendor wants the signed contract first. Dana will send it on Friday.',
      'Remember that Priya is allergic to peanuts, so the team dinner should be at the Thai place on Elm Street.',
      'The staging database runs out of disk every Sunday night because the backup job keeps old snapshots around.',
      'Our quarterly review is on the 14th. Bring the churn numbers and the draft of the pricing page.',
    ];
    const texts = itemTexts(pool, 60, 400, rng(3));
    const mem = arrayMemoryView(texts.map((text, i) => createItem({ id: `s${i}`, text }, 1_700_000_000_000 + i)), new Map());
    const catalog = new MemoryCatalog();
    for (const [i, text] of texts.entries()) {
      const words = wordsOf(text);
      expect(words.trim().split(' ').length).toBe(12);
      const page = await catalog.query(mem, { filter: { text: words }, offset: 0, limit: 200 });
      expect(page.items.map((it) => it.id)).toContain(`s${i}`);
    }
  });
});

describe('the sync bench’s browser figures', () => {
  const figures = (over: Partial<BrowserSyncFigures> = {}): BrowserSyncFigures => ({
    beforeBytes: 18_100_000, peakBytes: 250_000_000, afterBytes: 26_500_000, afterRawBytes: 72_200_000, peakCommittedBytes: 300_000_000,
    samples: 108, peakGcBytes: 240_000_000, collections: 40, traceLost: false, peakAtS: 6.1, timeline: [[0, 18.2], [6100, 250]], maxGapMs: 543, passS: 12.4, searchableS: 13.2, checkS: 0.8, found: 50, memorySize: 100_000,
    modelBefore: 'ready', model: { state: 'ready', unembedded: 100_000 }, statusText: 'Synced', browserVersion: '156',
    embedding: { watchS: 60, peakBytes: 90_000_000, afterBytes: 40_000_000, embedded: 512 },
    ...over,
  });
  const byName = (rows: FigureRow[]) => Object.fromEntries(rows.map((r) => [r.name, r]));

  it('holds the peak to 200 MB at 100k only, in MB of the whole worker heap, and says what it is', () => {
    const big = byName(browserRows('100k', 100_000, figures()).rows);
    expect(big.sync_peak_heap_mb_100k).toMatchObject({ value: 250, target: '<= 200 MB', ok: false });
    expect(big.sync_peak_heap_mb_100k.what).toContain('Chromium service worker heap (CDP');
    expect(big.sync_peak_heap_mb_100k.what).toContain('IndexedDB in the browser process');
    expect(big.sync_browser_heap_after_mb_100k.value).toBe(26.5);
    expect(big.sync_browser_searchable_s_100k).toMatchObject({ value: 13.2, target: 'reported' });
    expect(big.sync_browser_heap_embedding_mb_100k).toMatchObject({ value: 90, target: 'reported' });
    expect(big.sync_browser_heap_embedding_mb_100k.note).toContain('512 items embedded');
    const small = byName(browserRows('2k', 2000, figures({ peakBytes: 67_000_000, peakGcBytes: 87_800_000 })).rows);
    expect(small.sync_peak_heap_mb_2k).toMatchObject({ value: 87.8, target: 'reported', ok: undefined });
    expect(small.sync_browser_searchable_s_2k).toMatchObject({ target: '<= 30 s', ok: true });
  });

  it('takes the higher of the reads and the heap at a collection’s start, and says when the trace saw none', () => {
    const read = browserRows('2k', 2000, figures({ peakBytes: 90_000_000, peakGcBytes: 0, collections: 0 })).rows[0];
    expect(read.value).toBe(90);
    expect(read.note).toContain('showed no collection');
  });

  it('says whether embedding could overlap the heap reads', () => {
    const overlapped = browserRows('2k', 2000, figures()).rows[0].note;
    expect(overlapped).toMatch(/background embedding starts as the pass ends.*100000 items unembedded/);
    const quiet = browserRows('2k', 2000, figures({ modelBefore: 'idle', model: { state: 'idle', unembedded: 2000 } })).rows[0].note;
    expect(quiet).toContain('no embedding overlapped the samples');
  });
});
