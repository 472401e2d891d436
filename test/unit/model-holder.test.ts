import { describe, expect, it, vi } from 'vitest';
import type { ModelStatus } from '../../lib/messaging/protocol';

// The model files load in parallel (model and tokenizer): a late progress event after the model failed.
vi.mock('../../lib/embed/transformers-embedder', () => ({
  createTransformersEmbedder: async (opts: { onProgress?: (f: number) => void }) => {
    setTimeout(() => opts.onProgress?.(1), 0);
    throw new Error('Failed to load model because protobuf parsing failed.');
  },
}));
vi.mock('wxt/browser', () => ({ browser: { runtime: { getURL: (p: string) => `chrome-extension://x${p}` } } }));

const { ModelHolder } = await import('../../lib/service/model');

describe('the model holder', () => {
  it('stays "failed" when progress of the files fetched beside the model arrives after it failed', async () => {
    const seen: ModelStatus[] = [];
    const holder = new ModelHolder((s) => seen.push(s));
    expect(await holder.get()).toBeNull();
    await new Promise((r) => setTimeout(r, 20));
    expect(holder.status.state).toBe('failed');
    expect(holder.status.error).toMatch(/protobuf parsing failed/);
    expect(seen.at(-1)?.state).toBe('failed');
  });
});
