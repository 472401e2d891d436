// @vitest-environment happy-dom
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fakeBrowser } from 'wxt/testing';

/** The worker as the options page sees it: answers messages, counts status requests, and can push over a port. */
const worker = {
  statusRequests: 0,
  indexProblem: undefined as string | undefined,
  ports: [] as ((m: unknown) => void)[],
  push(m: unknown) {
    for (const deliver of this.ports) deliver(m);
  },
};
const answers: Record<string, () => unknown> = {
  'memory:list': () => ({ items: [] }),
  'memory:query': () => ({ items: [], total: 0, size: 0 }),
  'import:status': () => ({ jobs: [] }),
  'model:status': () => {
    worker.statusRequests++;
    return { state: 'ready', backend: 'wasm', memorySize: 3, unembedded: 0, ...(worker.indexProblem ? { indexProblem: worker.indexProblem } : {}) };
  },
  'settings:get': () => ({}),
};
const chromeFake = Object.assign(fakeBrowser, {
  runtime: Object.assign(fakeBrowser.runtime, {
    getManifest: () => ({ host_permissions: [] }),
    sendMessage: async (msg: { type: string }) => ({ ok: true, value: answers[msg.type]?.() ?? {} }),
    connect: () => {
      const listeners: ((m: unknown) => void)[] = [];
      worker.ports.push((m) => listeners.forEach((l) => l(m)));
      return { postMessage() {}, disconnect() {}, onMessage: { addListener: (l: (m: unknown) => void) => listeners.push(l) }, onDisconnect: { addListener() {} } };
    },
  }),
  commands: { getAll: async () => [] },
  permissions: Object.assign(fakeBrowser.permissions ?? {}, {
    getAll: async () => ({ origins: [] }),
    onAdded: { addListener() {}, removeListener() {} },
    onRemoved: { addListener() {}, removeListener() {} },
  }),
});

let render: typeof import('preact').render;
let h: typeof import('preact').h;
let OptionsPage: typeof import('../../lib/ui/options-page').OptionsPage;
beforeAll(async () => {
  (globalThis as { chrome?: unknown }).chrome = chromeFake; // before wxt/browser is first imported
  ({ render, h } = await import('preact'));
  ({ OptionsPage } = await import('../../lib/ui/options-page'));
});
afterAll(() => vi.useRealTimers());

describe('the options page model status', () => {
  it('is asked for when the worker says it changed, not every few seconds, and says why indexing stopped', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
    const root = document.createElement('div');
    document.body.append(root);
    render(h(OptionsPage, {}), root);
    await vi.advanceTimersByTimeAsync(100);
    const first = worker.statusRequests;
    expect(first).toBeGreaterThan(0);
    await vi.advanceTimersByTimeAsync(20_000); // nothing changed
    expect(worker.statusRequests).toBe(first);
    worker.indexProblem = 'Indexing stopped after 16 of 40 memories: <b>engine gone</b>.';
    worker.push({ type: 'indexing', progress: { done: 16, total: 16 } }); // a run ended (here: stopped)
    await vi.advanceTimersByTimeAsync(100);
    expect(worker.statusRequests).toBe(first + 1);
    expect(root.querySelector('[data-testid="index-problem"]')?.textContent).toContain('<b>engine gone</b>'); // as text
    worker.push({ type: 'model', status: { state: 'ready', backend: 'wasm' } });
    await vi.advanceTimersByTimeAsync(100);
    expect(worker.statusRequests).toBe(first + 2);
    render(null, root);
  });
});
