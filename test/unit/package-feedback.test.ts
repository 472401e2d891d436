import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { FeedbackStore, openLearningDB } from '../../lib/learn/feedback-store';
import { preferencePairs } from '../../lib/learn/learner';
import { Learning } from '../../lib/learn/learning';
import type { FeedbackAction } from '../../lib/learn/types';
import { createItem } from '../../lib/memory/normalize';
import { arrayMemoryView } from '../../lib/memory/index/memory-index';
import { rankMemory } from '../../lib/rank/rank';
import type { TaskReading } from '../../lib/rank/types';
import { Insertion } from '../../lib/service/insertion';
import { DEFAULT_SETTINGS } from '../../lib/settings/defaults';
import { readFeedbackBlock } from '../../lib/learn/feedback-file';

const NOW = Date.UTC(2026, 10, 1);
const task: TaskReading = { url: 'https://mail.google.com/', title: '', site: 'mail.google.com', adapter: 'gmail', destination: 'email', field: { text: 'the hotel for the offsite', kind: 'textarea' }, at: NOW };
const items = ['The offsite hotel is booked in Porto.', 'Offsite hotel keys are at the front desk.', 'The offsite hotel has a late checkout.', 'Offsite dinner at the hotel on Friday.'].map(
  (text, i) => createItem({ id: `h${i}`, text }, NOW),
);
const cards = (await rankMemory({ task, memory: arrayMemoryView(items, new Map()), settings: DEFAULT_SETTINGS, now: NOW })).cards;

describe('Insert all as feedback', () => {
  it('records a use of every inserted card, none preferred to another, each preferred to the cards left out', async () => {
    expect(cards.length).toBe(4);
    const learning = new Learning(() => new FeedbackStore(openLearningDB('package', { indexedDB: new IDBFactory(), IDBKeyRange })));
    learning.noteShown(3, task, cards);
    const inserted = [cards[0].item.id, cards[2].item.id];
    await learning.feedbackTogether(3, [...inserted, 'not-shown'], 'insert', DEFAULT_SETTINGS.weights);
    const { events } = await learning.exportAll();
    expect(events.map((e) => [e.action, e.itemId])).toEqual(inserted.map((id) => ['insert', id]));
    // Two cards left out, each beaten by both inserted cards; no pair between the inserted two.
    const pairs = preferencePairs(events);
    expect(pairs).toHaveLength(4);
    const factorsOf = (id: string) => cards.find((c) => c.item.id === id)!.factors;
    for (const p of pairs) {
      expect(inserted.map(factorsOf)).toContainEqual(p.better);
      expect([cards[1], cards[3]].map((c) => c.factors)).toContainEqual(p.worse);
    }
  });

  it('is recorded when the package insert succeeds (message package:insert), and not when it fails', async () => {
    const recorded: [number, string[], FeedbackAction][] = [];
    const feedback = { recordTogether: async (tabId: number, ids: string[], action: FeedbackAction) => void recorded.push([tabId, ids, action]), record: async () => ({ ok: true }) };
    let accepts = true;
    const insertion = new Insertion(
      { touch: async () => {} } as never,
      { callTaskFrame: async () => (accepts ? { ok: true, technique: 'execCommand' } : { ok: false, technique: 'none', hint: 'refused' }) } as never,
      { markUsed: () => {}, get: async () => undefined } as never,
      {} as never,
      { packageFor: async (_tab: number, ids: string[]) => ({ text: 'the package', ids }) } as never,
      feedback as never,
    );
    expect((await insertion.package(5, ['h0', 'h2'])).ok).toBe(true);
    await new Promise((r) => setTimeout(r, 0));
    expect(recorded).toEqual([[5, ['h0', 'h2'], 'insert']]);
    accepts = false;
    expect((await insertion.package(5, ['h1'])).ok).toBe(false);
    await new Promise((r) => setTimeout(r, 0));
    expect(recorded).toHaveLength(1);
  });

  it('keeps "inserted together" through export and import', async () => {
    const a = new Learning(() => new FeedbackStore(openLearningDB('pa', { indexedDB: new IDBFactory(), IDBKeyRange })));
    a.noteShown(1, task, cards);
    await a.feedbackTogether(1, [cards[0].item.id, cards[1].item.id], 'insert', DEFAULT_SETTINGS.weights);
    const file = JSON.parse(JSON.stringify(await a.exportAll()));
    const b = new Learning(() => new FeedbackStore(openLearningDB('pb', { indexedDB: new IDBFactory(), IDBKeyRange })));
    await b.importFeedback(readFeedbackBlock(file), DEFAULT_SETTINGS.weights, { withPhrases: true });
    expect(preferencePairs((await b.exportAll()).events)).toHaveLength(4);
  });
});
