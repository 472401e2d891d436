import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it, vi } from 'vitest';

vi.mock('wxt/browser', () => ({ browser: { runtime: { getURL: (p: string) => `chrome-extension://backstory${p}` } } }));

const { openMemoryDB } = await import('../../lib/memory/db');
const { MemoryStore } = await import('../../lib/memory/store');
const { captureSendingOnChatGPT } = await import('./capture-fixture');
const { SENT_PER_TAB_PER_MINUTE, SentRate } = await import('../../lib/service/sent-rate');

// A page that gets sends past the content script (a gesture it tricked out of the user) is held to a person's pace.
describe('sent-message captures per tab', () => {
  function setup() {
    const store = new MemoryStore(openMemoryDB(`sent-rate-${Math.random()}`, { indexedDB: new IDBFactory(), IDBKeyRange }), async () => null);
    const capture = captureSendingOnChatGPT(store);
    return { store, capture };
  }
  const fromTab = (id: number) => ({ url: 'https://chatgpt.com/c/1', tab: { id } }) as never;
  const msg = (text: string) => ({ text, url: 'https://chatgpt.com/c/1', title: 'Chat', site: 'chatgpt.com' });

  it(`a tab gets at most ${SENT_PER_TAB_PER_MINUTE} saved a minute; other tabs and Backstory’s own pages are not held back`, async () => {
    const { store, capture } = setup();
    const results = [];
    for (let i = 0; i < 12; i++) results.push((await capture.sent(msg(`Planted rule number ${i}`), fromTab(7))).saved);
    expect(results.filter(Boolean)).toHaveLength(SENT_PER_TAB_PER_MINUTE);
    expect(results.slice(SENT_PER_TAB_PER_MINUTE).every((s) => !s)).toBe(true);
    expect((await store.all()).filter((i) => i.text.startsWith('Planted rule'))).toHaveLength(SENT_PER_TAB_PER_MINUTE);
    expect(await capture.sent(msg('A question from another tab'), fromTab(8))).toEqual({ saved: true });
    expect(await capture.sent(msg('Saved from the panel'), { url: 'chrome-extension://backstory/sidepanel.html' } as never)).toEqual({ saved: true });
  });

  it('the window slides: a minute after the first sends, the tab may send again', () => {
    let now = 1_000_000;
    const rate = new SentRate(3, () => now);
    expect([rate.take(1), rate.take(1), rate.take(1), rate.take(1)]).toEqual([true, true, true, false]);
    now += 59_999;
    expect(rate.take(1)).toBe(false);
    now += 1;
    expect(rate.take(1)).toBe(true);
  });
});
