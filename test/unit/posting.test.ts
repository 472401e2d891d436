/** A posting reads back exactly the slots and counts written into it, whatever the size of the gaps between them. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_TF, PostingReader, postingOf } from '../../lib/memory/index/posting';

describe('postings', () => {
  it('read back every slot and count, gaps of one to five bytes included', () => {
    // Gaps from 1 to 2^31 take every length a slot gap can (the largest a memory's slots allow).
    const gap = fc.oneof(fc.integer({ min: 1, max: 100 }), fc.integer({ min: 1, max: 2 ** 20 }), fc.integer({ min: 2 ** 27, max: 2 ** 31 }));
    fc.assert(
      fc.property(fc.array(fc.tuple(gap, fc.integer({ min: 1, max: MAX_TF })), { minLength: 1, maxLength: 40 }), (entries) => {
        const slots: number[] = [];
        let s = -1;
        for (const [g] of entries) slots.push((s += g));
        const tfs = entries.map(([, tf]) => tf);
        const r = new PostingReader().reset(postingOf(slots, tfs));
        const read: [number, number][] = [];
        while (r.next()) read.push([r.slot, r.tf]);
        expect(read).toEqual(slots.map((slot, i) => [slot, tfs[i]]));
      }),
      { numRuns: 300 },
    );
  });
});
