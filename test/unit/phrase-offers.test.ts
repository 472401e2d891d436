import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { FeedbackStore, openLearningDB } from '../../lib/learn/feedback-store';
import { findPhrases, instructionPhrases } from '../../lib/learn/phrases';
import { MemoryStore } from '../../lib/memory/store';
import { openMemoryDB } from '../../lib/memory/db';
import { isChatSite, PhraseOffers } from '../../lib/service/phrase-offers';
import { Insertion } from '../../lib/service/insertion';
import { readFeedbackBlock } from '../../lib/learn/feedback-file';

describe('instruction-like phrases in a prompt', () => {
  it('finds the standing instructions people type into real prompts', () => {
    expect(instructionPhrases('Summarise this article for me, keep it short.')).toEqual(['keep it short']);
    expect(instructionPhrases('Please keep it short and use British English. What does the Bank of England do?')).toEqual(['keep it short', 'use british english']);
    expect(instructionPhrases('Can you explain how React hooks work? No bullet points please.')).toEqual(['no bullet points']);
    expect(instructionPhrases('Answer in British English: how do I fix the retry bug in the sync worker?')).toEqual(['answer in british english']);
    expect(instructionPhrases("Write a cover letter for a data analyst job. Don't use emojis.")).toEqual(['dont use emojis']);
    expect(findPhrases('what is a monad? Answer in British English')[0].text).toBe('Answer in British English');
  });

  it('offers nothing for ordinary words, tasks, or runs of stop words', () => {
    for (const prompt of [
      'What is the capital of Peru?',
      'Write a poem about autumn leaves',
      'Explain this code to me',
      'I have no idea why the build fails on CI',
      'Use this table to compute the totals and keep that in mind',
      'the meeting is at 3 and we should be there on time',
      'and so it is, and then there was more of it',
      'be it as it may',
      'Can you make it so that the button is blue and also the header is larger than the footer text',
    ])
      expect(instructionPhrases(prompt), prompt).toEqual([]);
  });
});

describe('offering a phrase the user keeps typing', () => {
  const fresh = (name: string) => {
    const feedback = new FeedbackStore(openLearningDB(name, { indexedDB: new IDBFactory(), IDBKeyRange }));
    const store = new MemoryStore(openMemoryDB(`${name}-mem`, { indexedDB: new IDBFactory(), IDBKeyRange }), async () => null);
    const pushes: string[] = [];
    const offers = new PhraseOffers(store, { broadcast: (p) => void pushes.push(p.type) }, () => feedback.phrases);
    return { feedback, store, offers, pushes };
  };
  const PROMPTS = [
    'Summarise the attached minutes, keep it short.',
    'How do I undo a git rebase? Keep it short',
    'Keep it short: what changed in Postgres 17?',
    'Draft a reply to the landlord about the boiler, keep it short please',
  ];

  it('offers a phrase only once it is in three distinct prompts, never the same prompt twice, and saves it only on Save', async () => {
    const { offers, store, pushes } = fresh('p1');
    await offers.prompt(1, PROMPTS[0], true);
    await offers.prompt(1, PROMPTS[0], true); // the same prompt sent again
    await offers.prompt(2, PROMPTS[1], true);
    expect((await offers.offer()).offer).toBeUndefined();
    expect(pushes).toEqual([]);
    await offers.prompt(2, PROMPTS[2], true);
    expect((await offers.offer()).offer).toMatchObject({ phrase: 'keep it short', text: 'Keep it short', prompts: 3 });
    expect(pushes).toEqual(['phrase-offer']);
    await store.load();
    expect([...store.items()]).toEqual([]); // offered, not saved
    const { item } = await offers.answer('keep it short', 'save');
    expect(item).toMatchObject({ text: 'Keep it short.', kind: 'instruction', scope: { kind: 'destination', values: ['chat'], set: 'user' } });
    await offers.prompt(3, PROMPTS[3], true);
    expect((await offers.offer()).offer).toBeUndefined(); // saved: not offered again
  });

  it('counts a draft read at an insert and the prompt it grew into once', async () => {
    const { offers } = fresh('p2');
    await offers.prompt(1, 'keep it short', false); // the user inserted a card into this draft
    await offers.prompt(1, 'keep it short. What changed in Postgres 17?', true); // and sent it
    await offers.prompt(1, 'How do I undo a git rebase? keep it short', true);
    expect((await offers.offer()).offer).toBeUndefined();
    await offers.prompt(1, 'Keep it short: how do tides work?', true);
    expect((await offers.offer()).offer?.prompts).toBe(3);
  });

  it('never offers a phrase an instruction already says, or one declined; Not now asks again three prompts later', async () => {
    const { offers, store } = fresh('p3');
    await store.add([{ text: 'Answer in British English, always.', kind: 'instruction' }], { from: 'user' });
    for (const p of ['Answer in British English: what is a monad?', 'what is a lemma? Answer in British English', 'Answer in British English. Who was Ada Lovelace?']) await offers.prompt(1, p, true);
    expect((await offers.offer()).offer).toBeUndefined();

    for (const p of PROMPTS.slice(0, 3)) await offers.prompt(2, p, true);
    expect((await offers.offer()).offer?.phrase).toBe('keep it short');
    await offers.answer('keep it short', 'later');
    expect((await offers.offer()).offer).toBeUndefined();
    for (const p of ['a, keep it short', 'b, keep it short']) await offers.prompt(2, p, true);
    expect((await offers.offer()).offer).toBeUndefined();
    await offers.prompt(2, 'c, keep it short', true);
    expect((await offers.offer()).offer?.phrase).toBe('keep it short');
    await offers.answer('keep it short', 'never');
    for (const p of ['d, keep it short', 'e, keep it short', 'f, keep it short']) await offers.prompt(2, p, true);
    expect((await offers.offer()).offer).toBeUndefined();
  });

  it('offers the parts of a longer run the user always writes together, one at a time', async () => {
    const { offers } = fresh('p4');
    for (const p of ['Keep it short and use British English. What is VAT?', 'What is a gilt? Keep it short and use British English', 'keep it short and use British English: who sets interest rates?'])
      await offers.prompt(1, p, true);
    const first = (await offers.offer()).offer!.phrase;
    expect(['keep it short', 'use british english']).toContain(first);
    await offers.answer(first, 'never');
    expect((await offers.offer()).offer?.phrase).toBe(first === 'keep it short' ? 'use british english' : 'keep it short');
  });

  it('goes with the memory: export, import into a new profile, clear all', async () => {
    const a = fresh('p5');
    for (const p of PROMPTS.slice(0, 3)) await a.offers.prompt(1, p, true);
    await a.offers.answer('keep it short', 'never');
    const file = JSON.parse(JSON.stringify(await a.feedback.exportAll()));
    expect(file.phrases.map((r: { key: string; state: string }) => [r.key, r.state])).toEqual([['keep it short', 'never']]);
    expect(JSON.stringify(file)).not.toContain('landlord'); // phrases only, never the prompts
    const b = fresh('p6');
    await b.feedback.importAll(readFeedbackBlock(file), { semantic: 0.45, lexical: 0.35, recency: 0.03, priority: 0.06, continuity: 0.03, situation: 0.03 }, { withPhrases: true });
    for (const p of ['x, keep it short', 'y, keep it short', 'z, keep it short']) await b.offers.prompt(1, p, true);
    expect((await b.offers.offer()).offer).toBeUndefined(); // declined in the other profile
    await b.feedback.clear();
    expect((await b.feedback.exportAll()).phrases).toEqual([]);
  });
});

describe('where prompts are read from', () => {
  const insertion = (adapter: string, destination: string, site: string, calls: [number | undefined, string, boolean][]) =>
    new Insertion(
      { load: async () => {}, read: async (id: string) => ({ id, text: 'card text' }), touch: async () => {} } as never,
      { callTaskFrame: async () => ({ ok: true, technique: 'execCommand' }) } as never,
      { markUsed: () => {}, get: async () => ({ url: `https://${site}/`, title: '', site, adapter, destination, field: { text: 'Which sort is stable? keep it short', kind: 'contenteditable' }, at: 0 }) } as never,
      {} as never,
      {} as never,
      { record: async () => ({ ok: true }), recordTogether: async () => ({ ok: true }) } as never,
      { prompt: async (tabId: number | undefined, text: string, sent: boolean) => void calls.push([tabId, text, sent]) },
    );

  it('an insert into a chat assistant prompt reads the prompt as written so far; into an email, nothing', async () => {
    const calls: [number | undefined, string, boolean][] = [];
    await insertion('chatgpt', 'chat', 'chatgpt.com', calls).card(4, 'c1');
    expect(calls).toEqual([[4, 'Which sort is stable? keep it short', false]]);
    const none: [number | undefined, string, boolean][] = [];
    await insertion('gmail', 'email', 'mail.google.com', none).card(4, 'c1');
    expect(none).toEqual([]);
  });

  it('chat assistants are told by their sites', () => {
    expect(['chatgpt.com', 'claude.ai', 'www.perplexity.ai'].map(isChatSite)).toEqual([true, true, true]);
    expect(['mail.google.com', 'example.com'].map(isChatSite)).toEqual([false, false]);
  });
});
