import { describe, expect, it } from 'vitest';
import { IndexingEstimate } from '../../lib/service/indexing-estimate';
import { aboutTime, indexingText, outcomeText } from '../../lib/ui/import/import-text';
import type { ImportJob } from '../../lib/import/import-jobs';

describe('import progress in words', () => {
  it('estimates the time left from the recent rate, and starts again for a new run', () => {
    const e = new IndexingEstimate();
    expect(e.update(0, 12_000, 0).etaMs).toBeUndefined();
    expect(e.update(32, 12_000, 500).etaMs).toBeUndefined(); // too early to tell
    // 50 items/s: 3,200 done after 64 s, 8,800 left = 176 s.
    const p = e.update(3_200, 12_000, 64_000);
    expect(p.etaMs! / 1000).toBeCloseTo(176, 0);
    expect(indexingText(p)).toBe('Indexing 3,200 of 12,000 — about 3 min');
    expect(indexingText({ ...p, backend: 'offscreen/webgpu/q8' })).toBe('Indexing 3,200 of 12,000 on WebGPU — about 3 min');
    expect(indexingText({ ...p, backend: 'offscreen/wasm/q8x2' })).toBe('Indexing 3,200 of 12,000 on WASM — about 3 min');
    // The pace drops to 10 items/s: the estimate follows within the window.
    e.update(3_500, 12_000, 94_000);
    expect(e.update(3_800, 12_000, 124_000).etaMs! / 1000).toBeCloseTo(820, -1);
    // Done: no estimate. A new run (other total) does not inherit the old rate.
    expect(e.update(12_000, 12_000, 200_000).etaMs).toBeUndefined();
    expect(e.update(10, 400, 201_000).etaMs).toBeUndefined();
  });

  it('says what an import did, naming the file', () => {
    const job: Omit<ImportJob, 'state'> = { id: 'j', createdAt: 0, fileNames: ['chatgpt.zip'], bytes: 1, read: 12_034 };
    expect(outcomeText({ ...job, state: 'done', counts: { added: 12_034, updated: 0, unchanged: 0 } })).toBe('Imported chatgpt.zip: 12,034 new, 0 updated, 0 unchanged.');
    expect(outcomeText({ ...job, state: 'failed', error: 'chatgpt.zip: conversations.json is cut off' })).toBe('Not imported: chatgpt.zip: conversations.json is cut off. Nothing was changed.');
    expect(aboutTime(40_000)).toBe('about 40 s');
    expect(aboutTime(2 * 3600_000)).toBe('about 2 h');
  });
});
