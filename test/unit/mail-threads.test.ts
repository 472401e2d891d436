import { describe, expect, it } from 'vitest';
import { MailThreads } from '../../lib/import/mail-threads';
import type { MemoryInput } from '../../lib/memory/types';

/** A list archive's chain: mail k answers mail k-1 by In-Reply-To alone, added newest first. */
function chain(n: number): { threads: MailThreads; items: MemoryInput[] } {
  const threads = new MailThreads();
  const items: MemoryInput[] = [];
  for (let k = n - 1; k >= 0; k--) {
    const item: MemoryInput = { id: `mail:m${k}`, text: `reply ${k}` };
    items.push(item);
    threads.add({ key: `m${k}`, inReplyTo: k ? [`m${k - 1}`] : [], references: [] }, [item]);
  }
  return { threads, items };
}

function settleMs(n: number): number {
  const { threads } = chain(n);
  const t = performance.now();
  threads.settle();
  return performance.now() - t;
}

describe('mail threads', () => {
  it('settles a chain of 50 000 replies, newest first, into one thread in reply order (no deep stack)', () => {
    const { threads, items } = chain(50_000);
    threads.settle();
    expect(new Set(items.map((i) => i.thread!.id))).toEqual(new Set(['mail-thread:m0']));
    const bySeq = [...items].sort((a, b) => a.thread!.seq - b.thread!.seq);
    expect(bySeq[0].id).toBe('mail:m0');
    expect(bySeq[49_999].id).toBe('mail:m49999');
    expect(bySeq.every((item, k) => item.thread!.seq === k && item.id === `mail:m${k}`)).toBe(true);
  });

  it('costs in proportion to the mail: four times the chain, not sixteen times the time', () => {
    settleMs(10_000); // warm-up
    const small = Math.min(settleMs(10_000), settleMs(10_000));
    const large = Math.min(settleMs(40_000), settleMs(40_000));
    console.log(`settle: 10k replies ${small.toFixed(1)} ms, 40k ${large.toFixed(1)} ms`);
    expect(large / small).toBeLessThan(10);
  });

  it('a References cycle does not loop: both mails land in one thread', () => {
    const threads = new MailThreads();
    const a: MemoryInput = { id: 'mail:a', text: 'a' };
    const b: MemoryInput = { id: 'mail:b', text: 'b' };
    threads.add({ key: 'a', inReplyTo: ['b'], references: ['b'] }, [a]);
    threads.add({ key: 'b', inReplyTo: ['a'], references: ['a'] }, [b]);
    threads.settle();
    expect(a.thread!.id).toBe(b.thread!.id);
    expect(a.thread!.seq).not.toBe(b.thread!.seq);
  });

  it("keeps Gmail's own threads as Gmail shows them, and names them by its thread id", () => {
    const threads = new MailThreads();
    const one: MemoryInput = { id: 'mail:1', text: '1' };
    const two: MemoryInput = { id: 'mail:2', text: '2' };
    threads.add({ key: '1', inReplyTo: [], references: [], gmail: '1790000000000000001' }, [one]);
    // Gmail split this reply into a thread of its own (the subject changed): it stays there.
    threads.add({ key: '2', inReplyTo: ['1'], references: ['1'], gmail: '1790000000000000002' }, [two]);
    threads.settle();
    expect([one.thread!.id, two.thread!.id]).toEqual(['mail-thread:1790000000000000001', 'mail-thread:1790000000000000002']);
  });
});
