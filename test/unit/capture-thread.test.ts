import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it, vi } from 'vitest';

vi.mock('wxt/browser', () => ({ browser: { runtime: { getURL: (p: string) => `chrome-extension://backstory${p}` } } }));

const { openMemoryDB } = await import('../../lib/memory/db');
const { MemoryStore } = await import('../../lib/memory/store');
const { captureSendingOnChatGPT } = await import('./capture-fixture');

// A conversation imported from a ChatGPT export, then a message sent in it on chatgpt.com: the sent message is the
// conversation's next turn, so it is read with the turn before it (its context vector and the ranker's neighbour
// evidence both follow the thread's order).
describe('a capture joins the thread on screen', () => {
  async function setup() {
    const store = new MemoryStore(openMemoryDB('capture-thread', { indexedDB: new IDBFactory(), IDBKeyRange }), async () => null);
    await store.commitImport(
      [0, 1, 2].map((i) => ({ id: `chatgpt:c1:m${i}`, text: `Turn ${i} about the Lisbon offsite budget`, thread: { id: 'chatgpt:c1', seq: i }, source: { format: 'chatgpt' as const } })),
      { importId: 'export-1', provenance: { from: 'import', trusted: false } },
    );
    const capture = captureSendingOnChatGPT(store);
    return { store, capture };
  }
  const sender = { url: 'https://chatgpt.com/c/c1', tab: { id: 1 } } as never;
  const sent = (text: string) => ({ text, url: 'https://chatgpt.com/c/c1', title: 'Lisbon offsite', site: 'chatgpt.com', thread: { id: 'chatgpt:c1' } });

  it('a sent message comes after the imported turns, read with the last one', async () => {
    const { store, capture } = await setup();
    expect(await capture.sent(sent('Book the venue for 40 people.'), sender)).toEqual({ saved: true });
    const item = (await store.all()).find((i) => i.text === 'Book the venue for 40 people.')!;
    expect(item.thread).toEqual({ id: 'chatgpt:c1', seq: 3 });
    expect(store.view.lexicalIndex.neighbour(item.id, -1)).toBe('chatgpt:c1:m2');

    await capture.sent(sent('And a vegetarian lunch.'), sender);
    const next = (await store.all()).find((i) => i.text === 'And a vegetarian lunch.')!;
    expect(store.view.lexicalIndex.neighbour(next.id, -1)).toBe(item.id);
  });

  it('a first capture in a thread nobody imported starts it', async () => {
    const { store, capture } = await setup();
    await capture.sent({ ...sent('Draft the agenda.'), thread: { id: 'chatgpt:new' } }, sender);
    expect((await store.all()).find((i) => i.text === 'Draft the agenda.')!.thread).toEqual({ id: 'chatgpt:new', seq: 0 });
  });
});
