import { readFileSync } from 'node:fs';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fakeBrowser } from 'wxt/testing';
import type { PanelState } from '../../lib/messaging/protocol';
import type { PanelHub as PanelHubType } from '../../lib/service/panel-hub';
import type { Settings } from '../../lib/settings/types';

const fixture = (v: number) => JSON.parse(readFileSync(new URL(`../fixtures/settings/v${v}.json`, import.meta.url), 'utf8')) as Record<string, unknown>;

// The storage API the extension sees, before wxt/browser is first imported.
(globalThis as { chrome?: unknown }).chrome = fakeBrowser;
let mod: typeof import('../../lib/settings/settings-item');
let SettingsCache: typeof import('../../lib/service/settings-cache').SettingsCache;
let PanelHub: typeof PanelHubType;
let backgroundHandlers: typeof import('../../lib/service/handlers').backgroundHandlers;

/** A fresh settings item per test: defining it is what runs the stored object's migration. */
async function fresh() {
  const { vi } = await import('vitest');
  vi.resetModules();
  mod = await import('../../lib/settings/settings-item');
  ({ SettingsCache } = await import('../../lib/service/settings-cache'));
  ({ PanelHub } = await import('../../lib/service/panel-hub'));
  ({ backgroundHandlers } = await import('../../lib/service/handlers'));
}

beforeAll(() => {
  (globalThis as { chrome?: unknown }).chrome = fakeBrowser;
});
beforeEach(() => {
  fakeBrowser.reset();
});

const stored = async () => (await fakeBrowser.storage.local.get(['settings', 'settings$'])) as { settings?: Record<string, unknown>; settings$?: { v: number } };
const settle = () => new Promise((r) => setTimeout(r, 20));

describe('the settings item', () => {
  it('migrates a v1 object, as stored then, without losing a value', async () => {
    await fakeBrowser.storage.local.set({ settings: fixture(1) });
    await fresh();
    const s = await mod.readSettings();
    expect(s).toEqual(fixture(3)); // every value in its group, the unknown `backend` carried along
    const after = await stored();
    expect(after.settings).toEqual(fixture(3));
    expect(after.settings$).toEqual({ v: 3 });
  });

  it('migrates a v2 object: the indexing backend appears at its default, every other value kept', async () => {
    await fakeBrowser.storage.local.set({ settings: fixture(2), settings$: { v: 2 } });
    await fresh();
    expect(await mod.readSettings()).toEqual(fixture(3));
    expect((await stored()).settings$).toEqual({ v: 3 });
  });

  it('reads a v3 object as it is, and gives defaults when nothing is stored', async () => {
    await fakeBrowser.storage.local.set({ settings: { ...fixture(3), embed: { backend: 'wasm' } }, settings$: { v: 3 } });
    await fresh();
    expect(await mod.readSettings()).toEqual({ ...fixture(3), embed: { backend: 'wasm' } });
    fakeBrowser.reset();
    await fresh();
    const s = await mod.readSettings();
    expect(s.rank.weights.semantic).toBe(0.45);
    expect(s.ui.excludedSites).toEqual([]);
    expect(s.capture).toEqual({ sent: false, sites: [] });
    expect(s.embed).toEqual({ backend: 'auto' });
  });

  it('fills and clamps a damaged stored object instead of failing', async () => {
    await fakeBrowser.storage.local.set({ settings: { rank: { maxCards: 9999, weights: { semantic: 'x' } }, ui: { excludedSites: ['https://www.Bank.example.com/login', 7] }, embed: { backend: 'cuda' } }, settings$: { v: 3 } });
    await fresh();
    const s = await mod.readSettings();
    expect(s.rank.maxCards).toBe(50);
    expect(s.rank.weights.semantic).toBe(0.45);
    expect(s.ui.excludedSites).toEqual(['bank.example.com']);
    expect(s.embed.backend).toBe('auto');
  });
});

describe('settings in the worker', () => {
  it('a site paused in the panel and a weight moved on the options page at the same moment both land', async () => {
    await fresh();
    const cache = new SettingsCache(() => {});
    await Promise.all([
      cache.pauseSite('www.news.example.com', true),
      cache.set({ rank: { weights: { semantic: 0.1, lexical: 0.9, recency: 0, priority: 0, continuity: 0, situation: 0 } } }),
      cache.set({ capture: { sent: true } }),
    ]);
    const s = (await stored()).settings as unknown as Settings;
    expect(s.ui.excludedSites).toEqual(['news.example.com']);
    expect(s.rank.weights.lexical).toBe(0.9);
    expect(s.capture.sent).toBe(true);
    await cache.pauseSite('news.example.com', false);
    expect(((await stored()).settings as unknown as Settings).ui.excludedSites).toEqual([]);
  });

  it('a settings change re-ranks an open panel once', async () => {
    await fresh();
    let rankings = 0;
    const hub: PanelHubType = new PanelHub({
      rank: async (tabId, seq) => {
        rankings++;
        return { tabId, seq, status: 'found', cards: [], trace: [], model: { state: 'ready' }, memorySize: 0 } satisfies PanelState;
      },
      searching: (tabId) => ({ tabId, seq: -1, status: 'searching', cards: [], trace: [], model: { state: 'ready' }, memorySize: 0 }),
      firstWatch: async () => {},
    });
    const port = fakePort();
    hub.connect(port);
    port.watch({ tabId: 1 });
    await settle();
    rankings = 0;
    const settings = new SettingsCache(() => hub.refreshAll());
    const handlers = backgroundHandlers({ settings } as never);
    await handlers['settings:set']!({ patch: { rank: { maxCards: 3 } } }, {});
    await settle();
    expect(rankings).toBe(1);
    expect((await settings.get()).rank.maxCards).toBe(3);
  });
});

function fakePort() {
  const onMessage: ((m: unknown) => void)[] = [];
  return {
    sent: [] as unknown[],
    postMessage(m: unknown) {
      this.sent.push(m);
    },
    onMessage: { addListener: (cb: (m: unknown) => void) => onMessage.push(cb) },
    onDisconnect: { addListener: () => {} },
    watch: (w: unknown) => onMessage.forEach((cb) => cb(w)),
  };
}
