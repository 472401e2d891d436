import { describe, expect, it } from 'vitest';
import type { InsertOutcome } from '../../lib/insert/index';
import { createItem } from '../../lib/memory/normalize';
import { Insertion } from '../../lib/service/insertion';

/**
 * The insert-top-card shortcut has no panel to answer in: when it cannot insert, the page says so next to the field,
 * never nothing at all. The clipboard fallback draws its own "press Ctrl+V" note, so it gets no second one.
 */
const NOTE = createItem({ id: 'n1', text: 'Q3 budget: hardware line is 12k' }, Date.UTC(2026, 10, 1));

function shortcut(opts: { cards: boolean; page?: InsertOutcome | Error }) {
  const sent: [string, unknown][] = [];
  const insertion = new Insertion(
    { load: async () => {}, read: async (id: string) => (id === NOTE.id ? NOTE : undefined), touch: async () => {} } as never,
    {
      readNow: async () => {},
      callTaskFrame: async (_tab: number, type: string, payload: unknown) => {
        sent.push([type, payload]);
        if (type === 'page:hint') return { ok: true };
        if (opts.page instanceof Error) throw opts.page;
        return opts.page;
      },
    } as never,
    { markUsed: () => {}, get: async () => undefined } as never,
    { rank: async () => ({ cards: opts.cards ? [{ item: NOTE }] : [] }) } as never,
    {} as never,
    { record: async () => ({ ok: true }), recordTogether: async () => {} } as never,
  );
  return { run: () => insertion.topCard({ id: 7 } as never), sent };
}

describe('the insert-top-card shortcut', () => {
  it('with nothing relevant in memory, says so on the page', async () => {
    const s = shortcut({ cards: false });
    expect(await s.run()).toMatchObject({ ok: false, hint: 'Nothing relevant to insert.' });
    expect(s.sent).toEqual([['page:hint', { text: 'Nothing relevant to insert.' }]]);
  });

  it('when the page refuses the card, says why on the page', async () => {
    const s = shortcut({ cards: true, page: { ok: false, technique: 'none', hint: 'Click into a text field first.' } });
    await s.run();
    expect(s.sent).toEqual([
      ['page:insert', { text: NOTE.text }],
      ['page:hint', { text: 'Click into a text field first.' }],
    ]);
  });

  it('when the page could not be reached for the insert, tries to say so and does not throw', async () => {
    const s = shortcut({ cards: true, page: new Error('This page cannot be reached.') });
    expect(await s.run()).toMatchObject({ ok: false, hint: 'This page cannot be reached.' });
    expect(s.sent.map(([t]) => t)).toEqual(['page:insert', 'page:hint']);
  });

  it('adds nothing to an insert that took, or to the clipboard fallback, which shows its own note', async () => {
    for (const page of [
      { ok: true, technique: 'execCommand' },
      { ok: false, technique: 'clipboard', hint: 'The card is on the clipboard, press Ctrl+V.' },
    ]) {
      const s = shortcut({ cards: true, page });
      await s.run();
      expect(s.sent.map(([t]) => t)).toEqual(['page:insert']);
    }
  });
});
