// @vitest-environment happy-dom
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeBrowser } from 'wxt/testing';

/** The options page as a user scans it: the common sections first, and a way to the browser's shortcut settings. */
const answers: Record<string, () => unknown> = {
  'memory:list': () => ({ items: [] }),
  'memory:query': () => ({ items: [], total: 0, size: 0 }),
  'import:status': () => ({ jobs: [] }),
  'model:status': () => ({ state: 'ready', backend: 'wasm', memorySize: 0, unembedded: 0 }),
};
const created: string[] = [];
const commands: { getAll(): Promise<unknown[]>; openShortcutSettings?: () => Promise<void> } = { getAll: async () => [] };
const chromeFake = Object.assign(fakeBrowser, {
  runtime: Object.assign(fakeBrowser.runtime, {
    getManifest: () => ({ host_permissions: [] }),
    sendMessage: async (msg: { type: string }) => ({ ok: true, value: answers[msg.type]?.() ?? {} }),
    connect: () => ({ postMessage() {}, disconnect() {}, onMessage: { addListener() {} }, onDisconnect: { addListener() {} } }),
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
  delete commands.openShortcutSettings;
});

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
});
