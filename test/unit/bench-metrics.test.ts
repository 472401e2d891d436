import { describe, expect, it } from 'vitest';
import { AllAnyTally, firstOfEach, recallAllAt, recallAnyAt } from '../../bench/lib/metrics';
import { loadLmeQuestions } from '../../bench/lib/longmemeval-data';

describe('LongMemEval metrics', () => {
  const relevant = new Set(['a', 'b']);

  it('recall_all counts a question only when every evidence turn is in the top k', () => {
    expect(recallAllAt(['a', 'x', 'b'], relevant, 3)).toBe(1);
    expect(recallAllAt(['a', 'x', 'b'], relevant, 2)).toBe(0);
    expect(recallAllAt(['x', 'y'], new Set(), 2)).toBe(0);
  });

  it('recall_any counts a question when one evidence turn is in the top k', () => {
    expect(recallAnyAt(['x', 'b'], relevant, 2)).toBe(1);
    expect(recallAnyAt(['x', 'b'], relevant, 1)).toBe(0);
  });

  it('turns become sessions at the place of their first turn, each session once', () => {
    const session: Record<string, string> = { t1: 's2', t2: 's1', t3: 's2', t4: 's3' };
    expect(firstOfEach(['t1', 't2', 't3', 't4'], (id) => session[id])).toEqual(['s2', 's1', 's3']);
    // Two evidence turns of one session fill one session place: recall_all@1 holds at session level only.
    const turns = ['t1', 't3'];
    expect(recallAllAt(turns, new Set(['t1', 't3']), 1)).toBe(0);
    expect(recallAllAt(firstOfEach(turns, (id) => session[id]), new Set(['s2']), 1)).toBe(1);
  });

  it('the tally averages over questions', () => {
    const t = new AllAnyTally();
    t.add(['a', 'b'], relevant);
    t.add(['a', 'x', 'y', 'z', 'w', 'b'], relevant);
    expect(t.stats()).toMatchObject({ recall_all5: 0.5, recall_all10: 1, recall_any5: 1 });
  });
});

describe('LongMemEval haystacks as memory', () => {
  const turn = (content: string, has_answer = false) => ({ role: 'user', content, has_answer });
  const raw = {
    question_id: 'q1',
    question_type: 'single-session-user',
    question: 'Where did I go?',
    question_date: '2023/05/30 (Tue) 14:40',
    haystack_dates: ['2023/05/20 (Sat) 02:28', '2023/05/21 (Sun) 10:00'],
    // The same session twice, as some haystacks have it, and an empty turn.
    haystack_sessions: [
      [turn('I went to Paris', true), turn('')],
      [turn('I went to Paris', true), turn('Nice')],
    ],
  };

  it('a repeated session gets its own ids, empty turns are left out, dates come from the haystack', () => {
    const [q] = loadLmeQuestions([raw]);
    expect(q.items.map((i) => i.text)).toEqual(['I went to Paris', 'I went to Paris', 'Nice']);
    expect(new Set(q.items.map((i) => i.id)).size).toBe(3);
    expect(q.relevant.size).toBe(2);
    expect(new Set([...q.relevant].map((id) => q.sessionOf.get(id))).size).toBe(2);
    expect(new Date(q.items[2].createdAt).toISOString()).toBe('2023-05-21T10:01:00.000Z');
    expect(new Date(q.now).toISOString()).toBe('2023-05-30T14:40:00.000Z');
  });
});
