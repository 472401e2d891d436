// @vitest-environment happy-dom
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeBrowser } from 'wxt/testing';

/**
 * The options page against a worker that answers its messages, counts status requests and can push over a port,
 * and a browser that records the tabs it opens.
 */
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
const created: string[] = [];
const commands: { getAll(): Promise<unknown[]>; openShortcutSettings?: () => Promise<void> } = { getAll: async () => [] };
const chromeFake = Object.assign(fakeBrowser, {
  runtime: Object.assign(fakeBrowser.runtime, {
    getManifest: () => ({ host_permissions: [] }),
    sendMessage: async (msg: { type: string }) => ({ ok: true, value: answers[msg.type]?.() ?? {} }),
    connect: () => {
      const listeners: ((m: unknown) => void)[] = [];
      const deliver = (m: unknown) => listeners.forEach((l) => l(m));
      worker.ports.push(deliver);
      const disconnect = () => {
        const i = worker.ports.indexOf(deliver);
        if (i >= 0) worker.ports.splice(i, 1);
      };
      return { postMessage() {}, disconnect, onMessage: { addListener: (l: (m: unknown) => void) => listeners.push(l) }, onDisconnect: { addListener() {} } };
    },
  }),
  tabs: Object.assign(fakeBrowser.tabs, { create: async ({ url }: { url: string }) => (created.push(url), { id: 1 }) }),
  commands,
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
beforeEach(() => {
  created.length = 0;
  worker.ports.length = 0; // pages of earlier tests are gone
  delete commands.openShortcutSettings;
});
afterEach(() => vi.useRealTimers());

async function renderOptions(): Promise<{ root: HTMLElement; done(): void }> {
  const root = document.createElement('div');
  document.body.append(root);
  render(h(OptionsPage, {}), root);
  await vi.waitFor(() => expect(root.querySelector('#h-sites')).not.toBeNull());
  return { root, done: () => (render(null, root), root.remove()) };
}

describe('the options page', () => {
  it('puts the common sections first: weights, import and export, then the sites', async () => {
    const { root, done } = await renderOptions();
    const headings = Array.from(root.querySelectorAll('section > h2'), (e) => e.id);
    expect(headings.slice(0, 4)).toEqual(['h-rank', 'h-io', 'h-access', 'h-sites']);
    expect(headings).toContain('h-shortcuts');
    done();
  });

  it('"Change the shortcuts" opens chrome://extensions/shortcuts in Chrome', async () => {
    const { root, done } = await renderOptions();
    root.querySelector<HTMLButtonElement>('[data-testid="shortcut-settings"]')!.click();
    await vi.waitFor(() => expect(created).toEqual(['chrome://extensions/shortcuts']));
    done();
  });

  it("opens Firefox's own shortcut page where the browser has one, and no tab", async () => {
    const opened = vi.fn(async () => {});
    commands.openShortcutSettings = opened; // Firefox has it; Chrome does not
    const { root, done } = await renderOptions();
    root.querySelector<HTMLButtonElement>('[data-testid="shortcut-settings"]')!.click();
    await vi.waitFor(() => expect(opened).toHaveBeenCalledTimes(1));
    expect(created).toEqual([]);
    done();
  });

  it('asks for the model status when the worker says it changed, not every few seconds, and says why indexing stopped', async () => {
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
