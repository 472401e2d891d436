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
/** Sites the worker suggests from other devices, and the permission requests the page made (in a click or not). */
const suggested = { hosts: [] as string[], dismissed: [] as string[] };
const requests: { origins: string[]; inClick: boolean }[] = [];
let clicking = false;
/** As the worker answers: suggested hosts not dismissed and not granted here. */
const suggestions = () => ({
  hosts: suggested.hosts.filter((h) => !suggested.dismissed.includes(h) && !requests.some((r) => r.origins.includes(`https://${h}/*`))),
});
const answers: Record<string, (payload?: unknown) => unknown> = {
  'sites:suggestions': suggestions,
  'sites:dismiss-suggestion': (p) => (suggested.dismissed.push((p as { host: string }).host), suggestions()),
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
    sendMessage: async (msg: { type: string; payload?: unknown }) => ({ ok: true, value: answers[msg.type]?.(msg.payload) ?? {} }),
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
    request: async (p: { origins: string[] }) => (requests.push({ origins: p.origins, inClick: clicking }), true),
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
  requests.length = 0;
  suggested.hosts = [];
  suggested.dismissed = [];
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

  it('suggests the sites allowed on other devices: Allow asks the browser inside the click, Dismiss drops the suggestion', async () => {
    suggested.hosts = ['wiki.example.org', 'tracker.example.com'];
    const { root, done } = await renderOptions();
    const access = root.querySelector('[data-testid="site-access"]')!.parentElement!;
    await vi.waitFor(() => expect(access.querySelectorAll('[data-testid="site-suggestion"]')).toHaveLength(2));
    expect(access.textContent).toContain('Suggested by your other devices');
    expect(requests).toEqual([]); // nothing is asked for (nor granted) before the user clicks
    const chip = (host: string) => access.querySelector<HTMLElement>(`[data-testid="site-suggestion"][data-host="${host}"]`);
    clicking = true;
    chip('wiki.example.org')!.querySelector<HTMLButtonElement>('[data-testid="site-suggestion-allow"]')!.click();
    clicking = false;
    expect(requests).toEqual([{ origins: ['https://wiki.example.org/*'], inClick: true }]);
    await vi.waitFor(() => expect(chip('wiki.example.org')).toBeNull());
    chip('tracker.example.com')!.querySelector<HTMLButtonElement>('[data-testid="site-suggestion-dismiss"]')!.click();
    await vi.waitFor(() => expect(access.querySelector('[data-testid="site-suggestions"]')).toBeNull());
    expect(suggested.dismissed).toEqual(['tracker.example.com']);
    expect(requests).toHaveLength(1);
    done();
  });
});
