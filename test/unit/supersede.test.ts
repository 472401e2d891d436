import { describe, expect, it } from 'vitest';
import { createItem } from '../../lib/memory/normalize';
import { arrayMemoryView } from '../../lib/rank/indexed-memory';
import { rankMemory } from '../../lib/rank/rank';
import type { TaskReading } from '../../lib/rank/types';
import { DEFAULT_SETTINGS } from '../../lib/settings/defaults';

const NOW = Date.UTC(2026, 10, 1);
const DAY = 86_400_000;
const task: TaskReading = { url: 'https://mail.google.com/', title: '', site: 'mail.google.com', adapter: 'gmail', field: { text: 'What is the Q3 budget review cadence and the contractor line?', kind: 'contenteditable' }, at: NOW };

describe('a decision superseded by a newer one on the same subject', () => {
  const older = createItem({ id: 'older', text: 'Decided: the Q3 budget review is monthly; the contractor line stays; budget review cadence monthly.', createdAt: NOW - 60 * DAY }, NOW);
  const newer = createItem({ id: 'newer', text: 'Decided: the Q3 budget review is quarterly; the contractor line is cut by 15%.', createdAt: NOW - 5 * DAY }, NOW);
  const other = createItem({ id: 'other', text: 'Decided: the offsite is in Lisbon in November.', createdAt: NOW - 90 * DAY }, NOW);

  it('ranks below the newer one and says what superseded it', () => {
    const r = rankMemory({ task, memory: arrayMemoryView([older, newer, other], new Map()), settings: DEFAULT_SETTINGS, now: NOW });
    const ids = r.cards.map((c) => c.item.id);
    expect(ids.indexOf('newer')).toBeLessThan(ids.indexOf('older'));
    expect(r.trace.find((e) => e.id === 'older')?.reason).toMatch(/superseded by “Decided: the Q3 budget review is quarterly/);
    expect(r.trace.find((e) => e.id === 'newer')?.reason).not.toMatch(/superseded/);
  });

  it('is ranked on its own merits when nothing newer covers it', () => {
    const r = rankMemory({ task, memory: arrayMemoryView([older, other], new Map()), settings: DEFAULT_SETTINGS, now: NOW });
    expect(r.cards[0].item.id).toBe('older');
    expect(r.trace.some((e) => /superseded/.test(e.reason))).toBe(false);
  });
});
