import { beforeAll, describe, expect, it } from 'vitest';
import type { PageBridge as PageBridgeType } from '../../lib/service/page-bridge';

/** A tab as the worker reaches it: `listening` says whether a content script answers there. */
const tab = { listening: false, injected: 0, refuseInjection: false, answer: undefined as unknown };
const chromeFake = {
  runtime: { id: 'test-extension', getURL: (p: string) => `chrome-extension://test-extension/${p.replace(/^\//, '')}` },
  tabs: {
    sendMessage: async () => {
      if (!tab.listening) throw new Error('Could not establish connection. Receiving end does not exist.');
      return tab.answer;
    },
  },
};
let PageBridge: typeof PageBridgeType;
let NoReceiverError: typeof import('../../lib/messaging/rpc').NoReceiverError;
let callTab: typeof import('../../lib/messaging/rpc').callTab;
beforeAll(async () => {
  (globalThis as { chrome?: unknown }).chrome = chromeFake; // before wxt/browser is first imported
  ({ PageBridge } = await import('../../lib/service/page-bridge'));
  ({ NoReceiverError, callTab } = await import('../../lib/messaging/rpc'));
});

const access = {
  injectPageActions: async () => {
    if (tab.refuseInjection) throw new Error('Cannot access contents of the page.');
    tab.injected++;
    tab.listening = true;
  },
  tabAccess: async () => ({ state: 'ask' as const, host: 'news.example.com', pattern: 'https://news.example.com/*' }),
};
const tasks = { frameOf: () => 0 };
const bridge = () => new PageBridge(access as never, tasks as never);

describe('the page bridge', () => {
  it('tells "nobody answered" apart from the page\'s own error', async () => {
    Object.assign(tab, { listening: false });
    await expect(callTab(1, 'page:selection', {})).rejects.toBeInstanceOf(NoReceiverError);
    Object.assign(tab, { listening: true, answer: undefined }); // the page went away before answering
    await expect(callTab(1, 'page:selection', {})).rejects.toBeInstanceOf(NoReceiverError);
    Object.assign(tab, { answer: { ok: false, error: 'The field is read-only.' } });
    const own = await callTab(1, 'page:selection', {}).catch((e: unknown) => e);
    expect(own).not.toBeInstanceOf(NoReceiverError);
    expect(String(own)).toContain('The field is read-only.');
  });

  it('injects the page responder where no content script listens, then asks again', async () => {
    Object.assign(tab, { listening: false, injected: 0, refuseInjection: false, answer: { ok: true, value: { text: 'selected' } } });
    expect(await bridge().call(1, 'page:selection', {})).toEqual({ text: 'selected' });
    expect(tab.injected).toBe(1);
  });

  it('says why when the browser refuses the injection, and does not inject over a page error', async () => {
    Object.assign(tab, { listening: false, injected: 0, refuseInjection: true });
    await expect(bridge().call(1, 'page:insert', { text: 'x' })).rejects.toThrow('Backstory may not read news.example.com');
    Object.assign(tab, { listening: true, refuseInjection: false, answer: { ok: false, error: 'No focused field.' } });
    await expect(bridge().call(1, 'page:insert', { text: 'x' })).rejects.toThrow('No focused field.');
    expect(tab.injected).toBe(0);
  });

  it('cuts a reading the page answers with to its limits before keeping it', async () => {
    const reading = { url: 'https://news.example.com/', title: 't'.repeat(50_000), site: 'news.example.com', adapter: 'generic', at: 1, people: ['p'.repeat(80_000)] };
    Object.assign(tab, { listening: true, refuseInjection: false, answer: { ok: true, value: reading } });
    const kept: { title: string; people?: string[] }[] = [];
    const recording = { frameOf: () => 0, set: async (_tab: number, r: { title: string; people?: string[] }) => void kept.push(r) };
    await new PageBridge(access as never, recording as never).readNow(1, true);
    expect(kept).toHaveLength(1);
    expect(kept[0].title).toHaveLength(300);
    expect(kept[0].people?.[0]).toHaveLength(320);
  });
});
