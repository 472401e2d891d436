import { describe, expect, it } from 'vitest';
import type { PanelPush } from '../../lib/messaging/protocol';
import { BackgroundEmbedding } from '../../lib/service/background-embedding';

function panels() {
  const pushes: PanelPush[] = [];
  let refreshes = 0;
  return { pushes, refreshes: () => refreshes, broadcast: (p: PanelPush) => void pushes.push(p), refreshAll: () => void refreshes++ };
}

describe('background indexing', () => {
  it('a run that fails ends its progress at once and says why', async () => {
    const p = panels();
    const store = {
      add: async () => [],
      unembedded: () => [],
      embedPending: async (onProgress?: (done: number, total: number) => void) => {
        onProgress?.(0, 40);
        onProgress?.(16, 40);
        throw new Error('the model could not be loaded');
      },
    };
    const indexing = new BackgroundEmbedding(store, p);
    expect(await indexing.run()).toBe(0);
    expect(indexing.progress).toBeUndefined(); // panel states no longer carry "Indexing 16 of 40"
    const last = p.pushes.filter((x) => x.type === 'indexing').at(-1);
    expect(last?.type === 'indexing' && last.progress.done >= last.progress.total).toBe(true); // pages clear their bar
    expect(p.pushes).toContainEqual({ type: 'problem', message: expect.stringContaining('Indexing stopped after 16 of 40 memories: the model could not be loaded') });
    expect(indexing.problem).toMatch(/stopped after 16 of 40/);
    expect(p.refreshes()).toBeGreaterThan(0); // open panels drop the progress line
  });

  it('shows a run at once, while the engine is still starting, and clears it when the run ends without a batch', async () => {
    const p = panels();
    let start!: () => void;
    const engineReady = new Promise<void>((ok) => (start = ok));
    const store = {
      add: async () => [],
      unembedded: () => Array.from({ length: 240 }, (_, i) => `pallet${i}`),
      // The engine takes its time to open (the offscreen document, the model), then turns out to be missing.
      embedPending: async () => {
        await engineReady;
        return 0;
      },
    };
    const indexing = new BackgroundEmbedding(store, p);
    const run = indexing.run();
    // A panel asked now (an import just landed) says indexing is under way, not that nothing is.
    expect(indexing.progress).toEqual({ done: 0, total: 240 });
    start();
    await run;
    expect(indexing.progress).toBeUndefined();
    expect(p.refreshes()).toBe(1); // open panels drop the line they were shown
  });

  it('a run that completes clears an earlier problem', async () => {
    const p = panels();
    let fail = true;
    const store = {
      add: async () => [],
      unembedded: () => [],
      embedPending: async (onProgress?: (done: number, total: number) => void) => {
        onProgress?.(0, 2);
        if (fail) throw new Error('engine gone');
        onProgress?.(2, 2);
        return 2;
      },
    };
    const indexing = new BackgroundEmbedding(store, p);
    await indexing.run();
    expect(indexing.problem).toBeDefined();
    fail = false;
    expect(await indexing.run()).toBe(2);
    expect(indexing.problem).toBeUndefined();
    expect(indexing.progress).toBeUndefined();
  });
});
