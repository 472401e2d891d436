import { describe, expect, it } from 'vitest';
import { spreadThreads } from '../../lib/rank/thread-spread';
import type { Scored } from '../../lib/rank/score';

const scored = (id: string, score: number, thread?: [string, number]) =>
  ({ item: { id, ...(thread ? { thread: { id: thread[0], seq: thread[1] } } : {}) }, score }) as unknown as Scored;

describe('thread neighbours do not crowd the top', () => {
  const ranked = () => [scored('match', 0.8, ['a', 3]), scored('reply', 0.75, ['a', 4]), scored('far', 0.74, ['a', 9]), scored('other', 0.7, ['b', 0])];

  it('a match’s neighbour follows another conversation’s own match, a far turn of the thread is not discounted', () => {
    const r = ranked();
    spreadThreads(r, 0.2, 1);
    expect(r.map((s) => s.item.id)).toEqual(['match', 'far', 'other', 'reply']);
    expect(r[3].threadAbove).toBe(1);
    expect(r[3].score).toBeCloseTo(0.6);
  });

  it('with no share the order and the scores stay as they were', () => {
    const r = ranked();
    spreadThreads(r, 0, 1);
    expect(r.map((s) => [s.item.id, s.score])).toEqual(ranked().map((s) => [s.item.id, s.score]));
  });
});
