import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import type { Embedder } from '../../lib/embed/embedder';
import { modelTag } from '../../lib/embed/model-tag';
import { packVectors } from '../../lib/embed/offscreen-wire';
import { openMemoryDB } from '../../lib/memory/db';
import { MemoryStore } from '../../lib/memory/store';

/** Chrome's offscreen and runtime APIs as the service worker sees them, with a document that can be closed. */
const fake = {
  open: false,
  created: 0,
  closed: 0,
  refuse: false,
  /** The document is open but never answers (an engine Worker died without an error event). */
  hang: false,
  requests: 0,
  reset() {
    Object.assign(this, { open: false, created: 0, closed: 0, refuse: false, hang: false, requests: 0 });
  },
};
const chromeFake = {
  runtime: {
    id: 'test-extension',
    getURL: (p: string) => `chrome-extension://test-extension/${p.replace(/^\//, '')}`,
    getContexts: async () => (fake.open ? [{ contextType: 'OFFSCREEN_DOCUMENT' }] : []),
    sendMessage: async (msg: { type: string; payload: { texts: string[] } }) => {
      fake.requests++;
      if (!fake.open) throw new Error('Could not establish connection. Receiving end does not exist.');
      if (fake.refuse) return { ok: false, error: 'embedding engine failed: out of memory' };
      if (fake.hang) return new Promise(() => {});
      const vs = msg.payload.texts.map((t) => Float32Array.from({ length: 384 }, (_, d) => (d === 0 ? t.length : 0)));
      return { ok: true, value: { vectors: packVectors(vs, 384), count: vs.length, dim: 384, backend: 'offscreen/wasm/q8x2' } };
    },
  },
  offscreen: {
    createDocument: async () => {
      fake.created++;
      fake.open = true;
    },
    closeDocument: async () => {
      fake.closed++;
      fake.open = false;
    },
  },
};

let OffscreenEmbedder: typeof import('../../lib/embed/offscreen-client').OffscreenEmbedder;
let replyBudgetMs: typeof import('../../lib/embed/offscreen-client').replyBudgetMs;
let offscreenAvailable: typeof import('../../lib/embed/offscreen-client').offscreenAvailable;
beforeAll(async () => {
  (globalThis as { chrome?: unknown }).chrome = chromeFake; // before wxt/browser is first imported
  ({ OffscreenEmbedder, offscreenAvailable, replyBudgetMs } = await import('../../lib/embed/offscreen-client'));
});
afterEach(() => {
  vi.useRealTimers();
  fake.reset();
});

describe('the service worker side of the offscreen engine', () => {
  it('opens the document on the first request and reuses it', async () => {
    expect(offscreenAvailable()).toBe(true);
    const e = new OffscreenEmbedder();
    expect(fake.created).toBe(0);
    const [a] = await e.embed(['hello']);
    expect(a[0]).toBe(5);
    await e.embed(['again', 'and again']);
    expect(fake.created).toBe(1);
    expect(e.backend).toBe('offscreen/wasm/q8x2');
    await e.close();
  });

  it('opens it again when Chrome closed it between two requests', async () => {
    const e = new OffscreenEmbedder();
    await e.embed(['one']);
    fake.open = false; // Chrome closed it
    const vs = await e.embed(['two', 'three']);
    expect(vs.map((v) => v[0])).toEqual([3, 5]);
    expect(fake.created).toBe(2);
    await e.close();
  });

  it('closes the document once it has been idle, and not while requests keep coming', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const e = new OffscreenEmbedder(30_000);
    await e.embed(['one']);
    await vi.advanceTimersByTimeAsync(20_000);
    await e.embed(['two']);
    await vi.advanceTimersByTimeAsync(20_000);
    expect(fake.closed).toBe(0);
    await vi.advanceTimersByTimeAsync(11_000);
    expect(fake.closed).toBe(1);
    expect(fake.open).toBe(false);
  });

  it('passes a failure of the engine itself on (the store then indexes with the worker model)', async () => {
    const e = new OffscreenEmbedder();
    fake.open = true;
    fake.refuse = true;
    await expect(e.embed(['x'])).rejects.toThrow('embedding engine failed: out of memory');
    expect(fake.requests).toBe(1); // not retried: only a closed document is
    await e.close();
  });

  it('waits for a batch of window-long passages in proportion to their word pieces, not only to how many they are', () => {
    // Under load two engines made about 430 word pieces a second (bench: index_ceiling_tokens_per_s); a batch of 16
    // window-long passages queued behind two like it then takes about 30 s, past the old 28 s budget, and the whole
    // import fell back to the worker's single thread.
    const passage = 'word '.repeat(300);
    const note = 'a short chat turn about the trip';
    const slowest = (texts: string[]) => 1000 * (3 * texts.length * Math.min(256, passage.length / 4)) / 430;
    expect(replyBudgetMs(Array(16).fill(passage))).toBeGreaterThan(slowest(Array(16).fill(passage)));
    expect(replyBudgetMs(Array(16).fill(passage))).toBeGreaterThan(2 * replyBudgetMs(Array(16).fill(note)));
  });

  it('gives up on a document that never answers, closes it, and opens a fresh one for the next request', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const e = new OffscreenEmbedder(30_000, (texts) => 1_000 + 100 * texts.length);
    fake.hang = true;
    const waiting = e.embed(['a', 'b']);
    const failed = expect(waiting).rejects.toThrow('the indexing engine did not answer within 1 s');
    await vi.advanceTimersByTimeAsync(1_200);
    await failed;
    expect(fake.closed).toBe(1);
    expect(e.lastFailure).toMatch(/did not answer/);
    fake.hang = false;
    const [v] = await e.embed(['again']);
    expect(v[0]).toBe(5);
    expect(fake.created).toBe(2);
    await e.close();
  });

  it('an indexing run whose engine never answers finishes with the worker model, and the pack is written after', async () => {
    // The worker's own model is the same int8 model the engines run: its vectors may stand in for theirs.
    const own: Embedder & { texts: number } = {
      modelId: modelTag('q8'), dim: 384, backend: 'worker', texts: 0,
      async embed(texts) {
        own.texts += texts.length;
        return texts.map((t) => Float32Array.from({ length: 384 }, (_, d) => (d === 0 ? 1 : d === 1 ? t.length / 100 : 0)));
      },
    };
    const db = openMemoryDB('hang', { indexedDB: new IDBFactory(), IDBKeyRange });
    const store = new MemoryStore(db, async () => own, async () => new OffscreenEmbedder(30_000, () => 50));
    await store.add(Array.from({ length: 10 }, (_, i) => ({ id: `n${i}`, text: `note number ${i}` })), { from: 'user' }, { deferEmbedding: true });
    fake.open = true;
    fake.hang = true;
    expect(await store.embedPending(undefined, 4)).toBe(10);
    expect(own.texts).toBe(10);
    expect(store.unembedded()).toEqual([]);
    expect(store.indexBackend).toBe('worker');
    await store.savePack({ whenIdle: true });
    expect(await db.packs.count()).toBe(1);
  });
});
