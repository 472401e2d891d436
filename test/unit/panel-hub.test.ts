import { describe, expect, it } from 'vitest';
import type { PanelPush, PanelState } from '../../lib/messaging/protocol';
import { PanelHub, type PanelRanker } from '../../lib/service/panel-hub';

/** A runtime port as the worker sees it: records what it is sent; `watch` is the panel saying what it shows. */
function fakePort() {
  const onMessage: ((m: unknown) => void)[] = [];
  const onDisconnect: (() => void)[] = [];
  const port = {
    sent: [] as PanelPush[],
    postMessage: (m: unknown) => void port.sent.push(m as PanelPush),
    onMessage: { addListener: (cb: (m: unknown) => void) => void onMessage.push(cb) },
    onDisconnect: { addListener: (cb: () => void) => void onDisconnect.push(cb) },
    watch: (w: { tabId: number; search?: string }) => onMessage.forEach((cb) => cb(w)),
    disconnect: () => onDisconnect.forEach((cb) => cb()),
    states: () => port.sent.filter((p): p is Extract<PanelPush, { type: 'state' }> => p.type === 'state').map((p) => p.state),
  };
  return port;
}

const state = (tabId: number, seq: number, status: PanelState['status'] = 'found', search?: string): PanelState => ({
  tabId, seq, status, cards: [], trace: [], model: { state: 'ready' }, memorySize: 0, ...(search ? { search } : {}),
});

/** A ranker whose rankings finish when the test says (`finish`), recording each request. */
function fakeRanker() {
  const calls: { tabId: number; seq: number; search?: string; finish: () => void }[] = [];
  const ranker: PanelRanker & { calls: typeof calls; firstWatches: number[] } = {
    calls,
    firstWatches: [],
    rank: (tabId, seq, search) => new Promise((done) => calls.push({ tabId, seq, search, finish: () => done(state(tabId, seq, 'found', search)) })),
    searching: (tabId, search) => state(tabId, -1, 'searching', search),
    firstWatch: async (tabId) => void ranker.firstWatches.push(tabId),
  };
  return ranker;
}
const tick = () => new Promise((r) => setTimeout(r, 0));

describe('the panel hub', () => {
  it('ranks a tab once for two panels showing it, and sends the ranking to both', async () => {
    const ranker = fakeRanker();
    const hub = new PanelHub(ranker);
    const [a, b] = [fakePort(), fakePort()];
    hub.connect(a);
    hub.connect(b);
    a.watch({ tabId: 7 });
    b.watch({ tabId: 7 });
    await tick();
    expect(ranker.firstWatches).toEqual([7]); // the page is read afresh once, for the first panel
    ranker.calls.forEach((c) => c.finish());
    await tick();
    ranker.calls.length = 0;

    hub.refreshTab(7); // the page was read again
    await tick();
    expect(ranker.calls.map((c) => c.tabId)).toEqual([7]);
    expect(a.states().at(-1)?.status).toBe('searching');
    expect(b.states().at(-1)?.status).toBe('searching');
    ranker.calls[0].finish();
    await tick();
    expect(a.states().at(-1)).toMatchObject({ status: 'found', seq: ranker.calls[0].seq });
    expect(b.states().at(-1)).toMatchObject({ status: 'found', seq: ranker.calls[0].seq });

    ranker.calls.length = 0;
    hub.refreshAll();
    await tick();
    expect(ranker.calls).toHaveLength(1);
  });

  it('ranks each distinct tab and search once on a refresh', async () => {
    const ranker = fakeRanker();
    const hub = new PanelHub(ranker);
    const ports = [fakePort(), fakePort(), fakePort(), fakePort()];
    ports.forEach((p) => hub.connect(p));
    ports[0].watch({ tabId: 1 });
    ports[1].watch({ tabId: 1, search: 'budget' });
    ports[2].watch({ tabId: 2 });
    ports[3].watch({ tabId: 1, search: 'budget ' });
    await tick();
    ranker.calls.forEach((c) => c.finish());
    ranker.calls.length = 0;
    hub.refreshAll();
    await tick();
    expect(ranker.calls.map((c) => `${c.tabId}:${c.search ?? ''}`).sort()).toEqual(['1:', '1:budget', '2:']);
  });

  it('does not show an older ranking over a newer one, nor one of a reading the page no longer has', async () => {
    const ranker = fakeRanker();
    const hub = new PanelHub(ranker);
    const port = fakePort();
    hub.connect(port);
    port.watch({ tabId: 3 });
    await tick();
    const first = ranker.calls[0];
    void hub.rank(3);
    await tick();
    const second = ranker.calls[1];
    second.finish();
    await tick();
    first.finish(); // finishes late
    await tick();
    expect(port.states().map((s) => s.seq)).toEqual([second.seq]);

    void hub.rank(3); // ranking the current reading...
    await tick();
    const stale = ranker.calls[2];
    hub.refreshTab(3); // ...when a new reading arrives
    await tick();
    stale.finish();
    await tick();
    expect(port.states().at(-1)?.status).toBe('searching');
    ranker.calls[3].finish();
    await tick();
    expect(port.states().at(-1)).toMatchObject({ status: 'found', seq: ranker.calls[3].seq });
  });

  it('sends pushes to every open page, and nothing to a page that closed', async () => {
    const hub = new PanelHub(fakeRanker());
    const [panel, options] = [fakePort(), fakePort()];
    hub.connect(panel);
    hub.connect(options);
    panel.watch({ tabId: 1 });
    hub.broadcast({ type: 'problem', message: 'Not saved: storage is full' });
    expect(options.sent).toEqual([{ type: 'problem', message: 'Not saved: storage is full' }]);
    panel.disconnect();
    hub.broadcast({ type: 'indexing', progress: { done: 1, total: 2 } });
    expect(panel.sent.filter((p) => p.type === 'indexing')).toEqual([]);
    expect(options.sent.at(-1)).toEqual({ type: 'indexing', progress: { done: 1, total: 2 } });
  });
});
