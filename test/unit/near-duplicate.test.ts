import { describe, expect, it } from 'vitest';
import { mergePatch, nearDuplicate } from '../../lib/learn/near-duplicate';
import { createItem } from '../../lib/memory/normalize';
import { arrayMemoryView } from '../../lib/memory/index/memory-index';

describe('a capture that nearly repeats a saved item', () => {
  const saved = createItem({ id: 'saved', text: 'The sync worker retries with exponential backoff, base 500 ms, cap 30 s, max 6 attempts.', tags: ['sync'], people: ['Sam'] });
  const other = createItem({ id: 'other', text: 'The sync worker runs every five minutes on the staging cluster.' });

  it('is found, and an unrelated capture is not', async () => {
    const again = createItem({ id: 'new', text: 'Sync worker retries: exponential backoff, base 500 ms, cap 30 s, max 6 attempts.', tags: ['incident'] });
    const memory = arrayMemoryView([saved, other, again], new Map());
    expect((await nearDuplicate(again, memory))?.item.id).toBe('saved');
    const unrelated = createItem({ id: 'u', text: 'Dinner on the 18th at 8 pm near Cais do Sodré.' });
    expect(await nearDuplicate(unrelated, arrayMemoryView([saved, other, unrelated], new Map()))).toBeUndefined();
  });

  it('merges into the saved item: its fields joined with the capture\'s, the fuller text kept', () => {
    const again = createItem({ id: 'new', text: 'The sync worker retries with exponential backoff, base 500 ms, cap 30 s, max 6 attempts, honouring Retry-After.', tags: ['incident'] });
    expect(mergePatch(saved, again)).toEqual({ text: again.text, people: ['Sam'], tags: ['sync', 'incident'], sites: [] });
  });
});
