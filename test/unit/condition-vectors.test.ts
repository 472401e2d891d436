import { describe, expect, it } from 'vitest';
import type { Embedder } from '../../lib/embed/embedder';
import { createItem } from '../../lib/memory/normalize';
import { ConditionVectorCache } from '../../lib/service/query-vectors';

function counting(modelId = 'm1'): Embedder & { made: string[] } {
  const made: string[] = [];
  return {
    modelId, dim: 2, backend: 'test', made,
    embed: async (texts) => {
      made.push(...texts);
      return texts.map((t) => new Float32Array([t.length, 1]));
    },
  };
}

describe("the vectors of rules' subjects", () => {
  const rules = [
    createItem({ text: 'For anything about pricing, say prices exclude VAT.', kind: 'instruction' }),
    createItem({ text: 'When writing about invoices or late payment, state the due date.', kind: 'instruction' }),
    createItem({ text: 'Use British spelling.', kind: 'instruction' }),
    createItem({ text: 'Pricing for 2026 is on the wiki.' }),
  ];

  it('embeds each subject a rule is conditioned on once, and again for another model', async () => {
    const cache = new ConditionVectorCache();
    const e = counting();
    const got = await cache.for(e, rules);
    expect([...got.keys()].sort()).toEqual(['invoices', 'late payment', 'pricing']);
    await cache.for(e, rules);
    expect(e.made.sort()).toEqual(['invoices', 'late payment', 'pricing']);
    const other = counting('m2');
    await cache.for(other, rules);
    expect(other.made).toHaveLength(3);
  });
});
