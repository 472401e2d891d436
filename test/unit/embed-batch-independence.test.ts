import { describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { EnginePool } from '../../lib/embed/engine-pool';
import { NODE_MODEL_ROOT, nodeEmbedder } from '../../lib/embed/node-embedder';
import { createOrtWebEmbedder } from '../../lib/embed/ort-web-embedder';
import type { Embedder } from '../../lib/embed/embedder';

const INT8_FILE = join(NODE_MODEL_ROOT, 'all-MiniLM-L6-v2', 'onnx', 'model_quantized.onnx');

/** The text whose vector must not move, and neighbours of very different lengths (the batch is padded to the longest). */
const TEXT = 'My daughter is allergic to peanuts, so the birthday party menu must be nut-free.';
const NEIGHBOURS = [
  'ok',
  'Kubernetes restarts the pod whenever it exceeds its 512Mi memory limit; the logs show OOMKilled twice a day. '.repeat(6),
  'Invoice #4471 for 2,350.00 EUR is due on 2024-03-31.',
  'Always write commit messages in the imperative mood and keep the first line under 72 characters. '.repeat(3),
];

/** The text's vector alone, then within two different batches: a user's two imports, or two synced devices. */
async function threeWays(e: Embedder): Promise<Float32Array[]> {
  const [alone] = await e.embed([TEXT]);
  const inBatch = (await e.embed([NEIGHBOURS[0], NEIGHBOURS[1], TEXT, NEIGHBOURS[2]]))[2];
  const inOther = (await e.embed([TEXT, NEIGHBOURS[3], NEIGHBOURS[0]]))[0];
  return [alone, inBatch, inOther];
}

describe.skipIf(!existsSync(INT8_FILE))('an int8 vector does not depend on the texts embedded beside it', () => {
  it('the WASM engines\' session (the offscreen engines\' code): bit-identical alone and in any batch', async () => {
    const e = await createOrtWebEmbedder({ modelRoot: NODE_MODEL_ROOT, dtype: 'q8' });
    try {
      const [alone, a, b] = await threeWays(e);
      expect(Array.from(a)).toEqual(Array.from(alone));
      expect(Array.from(b)).toEqual(Array.from(alone));
    } finally {
      await e.close();
    }
  });

  it('the engine pool, which splits a batch between engines: the same vector as one engine gives the text alone', async () => {
    const engines = await Promise.all([0, 1].map(() => createOrtWebEmbedder({ modelRoot: NODE_MODEL_ROOT, dtype: 'q8' })));
    try {
      const pool = new EnginePool(engines);
      const [alone] = await engines[0].embed([TEXT]);
      for (const batch of [[...NEIGHBOURS, TEXT], [NEIGHBOURS[1], TEXT, NEIGHBOURS[0]]]) {
        const got = (await pool.embed(batch))[batch.indexOf(TEXT)];
        expect(Array.from(got)).toEqual(Array.from(alone));
      }
    } finally {
      await Promise.all(engines.map((e) => e.close()));
    }
  });

  it('the Node embedder of tests and benches (transformers.js on onnxruntime-node): bit-identical too', async () => {
    const [alone, a, b] = await threeWays(await nodeEmbedder('q8'));
    expect(Array.from(a)).toEqual(Array.from(alone));
    expect(Array.from(b)).toEqual(Array.from(alone));
  });
});

describe('vectors stored before, made in batches', () => {
  it('are embedded again: the int8 tag (stored with every vector, and the bench cache\'s key) says each text ran alone', async () => {
    const { modelTag } = await import('../../lib/embed/model-tag');
    const { nodeModelKey } = await import('../../lib/embed/node-embedder');
    const files = (await import('../../lib/embed/model-files.json')).default;
    const batchedTag = `all-MiniLM-L6-v2/q8/${files.int8['onnx/model_quantized.onnx'].slice(0, 16)}`;
    expect(modelTag('q8')).not.toBe(batchedTag); // the store re-embeds vectors under another tag (context-vectors.test.ts)
    expect(modelTag('q8').startsWith(batchedTag)).toBe(true); // the same file
    expect(nodeModelKey('q8')).toMatch(/-alone$/);
    // The q4 graph's activations are float (batch-independent): its tag, and its users' vectors, stay.
    expect(modelTag('q4')).toMatch(/^all-MiniLM-L6-v2\/q4\/[0-9a-f]{16}$/);
  });
});
