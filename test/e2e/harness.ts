import { chromium, type BrowserContext, type Page, type Worker } from 'playwright-core';
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { serveStatic } from '../../scripts/demo-server';

export const ROOT = resolve(import.meta.dirname, '..', '..');
export const BUILD_DIR = join(ROOT, '.output', 'chrome-mv3');
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Flags that keep Chromium quiet on a closed network (see ../shared/TOOLCHAIN.md). */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
  '--no-first-run',
  '--disable-default-apps',
];

export interface Harness {
  context: BrowserContext;
  extensionId: string;
  /** Origin of the local page server: /demo/ holds demo/pages, /fixtures/ holds test/e2e/fixtures. */
  origin: string;
  userDataDir: string;
  serviceWorker(): Promise<Worker>;
  /** Opens a page on the local server and returns it with its tab id. */
  openPage(path: string): Promise<{ page: Page; tabId: number }>;
  /** Opens the side panel page pinned to a tab (as CONTRACT.md allows: sidepanel.html?tab=<id>). */
  openPanel(tabId: number): Promise<Page>;
  /** Any extension page, for calling the typed protocol as the extension's own pages do. */
  extensionPage(): Promise<Page>;
  /** Sends a protocol message to the service worker from an extension page. */
  call<T = unknown>(type: string, payload: unknown): Promise<T>;
  /** Imports a memory file (CONTRACT.md format) through the real import path. */
  seed(items: unknown[]): Promise<number>;
  /** Fires a manifest command's real listener, as a key press would. */
  command(name: string, tabId: number): Promise<void>;
  /** Fires a context-menu click's real listener. */
  contextMenu(info: Record<string, unknown>, tabId: number): Promise<void>;
  /**
   * Lets Backstory read a site the way a user does without a permission dialog: chrome://extensions' "Site access"
   * adds the site (developerPrivate.addHostPermission, what its "Add a site" dialog calls), then the extension's
   * own "Allow on <host>" request (chrome.permissions.request from an extension page) finds it already allowed and
   * resolves without a prompt. Waits until the content script is registered for the site.
   */
  grantSite(pattern: string): Promise<void>;
  /** Only the chrome://extensions half of grantSite: the site is allowed in the browser's settings. */
  allowInBrowserSettings(pattern: string): Promise<void>;
  /** chrome://extensions' Site access menu: "On all sites" | "On specific sites" | "On click". */
  setSiteAccessMode(mode: 'ON_ALL_SITES' | 'ON_SPECIFIC_SITES' | 'ON_CLICK'): Promise<void>;
  /** Takes a site back as the user does in chrome://extensions' "Site access" (removeHostPermission). */
  revokeSite(pattern: string): Promise<void>;
  /**
   * Gives Backstory the browser's activeTab grant on a page, as a context-menu click or a shortcut does in a headed
   * browser (neither can be clicked or typed in headless Chromium): a real toolbar-button click through CDP
   * (Extensions.triggerAction on the page's tab). Chromium 156 gives no activeTab for a click that opens the side
   * panel, so the panel-on-click behaviour is off for this click and restored after. The URL must be unique among tabs.
   */
  grantActiveTab(page: Page): Promise<void>;
  /** The match patterns the content script is registered for now. */
  contentScriptMatches(): Promise<string[]>;
  /**
   * Records the URL of every request made by targets Playwright does not follow: the offscreen document (a
   * "background_page", first seen as "other") and dedicated workers such as onnxruntime's threads. Pages and the
   * service worker are covered by `context.on('request')`. Attaches through the Target domain (non-flat sessions, so
   * one CDP session of an extension page is enough) as soon as each target appears.
   */
  watchOtherTargets(onRequest: (url: string, targetType: string) => void): Promise<{ attached: string[]; stop(): Promise<void> }>;
  /** Stops the MV3 service worker as Chrome does when idle, and waits for it to start again. */
  restartServiceWorker(): Promise<Worker>;
  close(): Promise<void>;
}

export interface LaunchOptions {
  headless?: boolean;
  buildDir?: string;
  /** A profile kept between runs (npm start); by default a fresh one that close() deletes. */
  userDataDir?: string;
  /** Port of the local page server; 0 picks a free one. */
  port?: number;
  /** Called with the browser context before anything else runs in it (to watch every request from the start). */
  onContext?: (context: BrowserContext) => void;
  /** Sites to allow at launch (see Harness.grantSite); by default the local page server and the fixture origin. */
  grantSites?: string[];
  /** WebGPU on: Chromium's software adapter (SwiftShader) is offered instead of no GPU at all. */
  webgpu?: boolean;
}

/**
 * A copy of the built extension whose model files (`models/all-MiniLM-L6-v2/onnx/`) that `broken` picks are
 * corrupt, for the tests of what happens when a model cannot load. The caller removes the directory.
 */
export function buildWithBrokenModel(label: string, broken: (file: string) => boolean): string {
  const dir = mkdtempSync(join(tmpdir(), `backstory-${label}-`));
  cpSync(BUILD_DIR, dir, { recursive: true });
  const onnx = join(dir, 'models', 'all-MiniLM-L6-v2', 'onnx');
  for (const f of readdirSync(onnx)) if (broken(f)) writeFileSync(join(onnx, f), 'corrupt');
  return dir;
}

/** What the tests' pages are served from: allowed at launch so tests of everything else see a readable page. */
export const TEST_SITES = ['http://127.0.0.1/*', 'http://localhost/*', 'https://fixtures.backstory.test/*'];

/** chrome://extensions' own API, present on that page only (not in @types/chrome). */
type DeveloperPrivate = {
  addHostPermission(id: string, host: string): Promise<void>;
  removeHostPermission(id: string, host: string): Promise<void>;
  updateExtensionConfiguration(update: { extensionId: string; hostAccess: string }): Promise<void>;
};

/** Polls `check` until it holds; throws with `what` after `timeoutMs`. */
export async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function launchExtension(options: LaunchOptions = {}): Promise<Harness> {
  const buildDir = options.buildDir ?? BUILD_DIR;
  if (!existsSync(join(buildDir, 'manifest.json'))) throw new Error(`No extension build at ${buildDir}: run \`npm run build\` first.`);
  const server = await serveStatic({ demo: join(ROOT, 'demo', 'pages'), fixtures: join(ROOT, 'test', 'e2e', 'fixtures') }, options.port ?? 0);
  const userDataDir = options.userDataDir ?? mkdtempSync(join(tmpdir(), 'backstory-e2e-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: options.headless ?? true,
    args: [
      ...(options.webgpu ? [...CHROMIUM_ARGS.filter((a) => a !== '--disable-gpu'), '--enable-unsafe-webgpu'] : CHROMIUM_ARGS),
      `--disable-extensions-except=${buildDir}`,
      `--load-extension=${buildDir}`,
    ],
  });
  options.onContext?.(context);
  const serviceWorker = async (): Promise<Worker> => {
    const live = context.serviceWorkers().find((w) => w.url().startsWith('chrome-extension://'));
    return live ?? (await context.waitForEvent('serviceworker', { timeout: 30_000 }));
  };
  const extensionId = new URL((await serviceWorker()).url()).host;
  let extPage: Page | undefined;

  /** Runs one of chrome://extensions' own calls for this extension on that page, as its Site access controls do. */
  const onExtensionsPage = async (call: 'addHostPermission' | 'removeHostPermission' | 'mode', args: string[]) => {
    const page = await context.newPage();
    try {
      await page.goto(`chrome://extensions/?id=${extensionId}`);
      await page.evaluate(
        async ([c, id, list]) => {
          const dp = (chrome as unknown as { developerPrivate: DeveloperPrivate }).developerPrivate;
          for (const a of list) await (c === 'mode' ? dp.updateExtensionConfiguration({ extensionId: id, hostAccess: a }) : dp[c as 'addHostPermission'](id, a));
        },
        [call, extensionId, args] as const,
      );
    } finally {
      await page.close();
    }
  };

  const h: Harness = {
    context,
    extensionId,
    origin: server.origin,
    userDataDir,
    serviceWorker,
    async openPage(path) {
      const page = await context.newPage();
      await page.goto(`${server.origin}${path}`);
      const url = page.url();
      const sw = await serviceWorker();
      const tabId = await sw.evaluate(async (u) => (await chrome.tabs.query({})).find((t) => t.url === u)?.id, url);
      if (tabId === undefined) throw new Error(`No tab found for ${url}`);
      return { page, tabId };
    },
    async openPanel(tabId) {
      const panel = await context.newPage();
      await panel.goto(`chrome-extension://${extensionId}/sidepanel.html?tab=${tabId}`);
      return panel;
    },
    async extensionPage() {
      if (!extPage || extPage.isClosed()) {
        extPage = await context.newPage();
        await extPage.goto(`chrome-extension://${extensionId}/options.html`);
      }
      return extPage;
    },
    async call<T>(type: string, payload: unknown): Promise<T> {
      const page = await h.extensionPage();
      const wire = (await page.evaluate(([t, p]) => chrome.runtime.sendMessage({ type: t, payload: p }), [type, payload] as const)) as
        | { ok: true; value: T }
        | { ok: false; error: string };
      if (!wire.ok) throw new Error(wire.error);
      return wire.value;
    },
    async seed(items) {
      const content = JSON.stringify({ format: 'backstory-memory', version: 1, items });
      return (await h.call<{ added: number }>('memory:import', { fileName: 'seed.json', content })).added;
    },
    async command(name, tabId) {
      const sw = await serviceWorker();
      await sw.evaluate(
        async ([n, id]) => {
          const tab = await chrome.tabs.get(id);
          (chrome.commands.onCommand as unknown as { dispatch(n: string, t: chrome.tabs.Tab): void }).dispatch(n, tab);
        },
        [name, tabId] as const,
      );
    },
    async contextMenu(info, tabId) {
      const sw = await serviceWorker();
      await sw.evaluate(
        async ([i, id]) => {
          const tab = await chrome.tabs.get(id);
          (chrome.contextMenus.onClicked as unknown as { dispatch(i: unknown, t: chrome.tabs.Tab): void }).dispatch(i, tab);
        },
        [info, tabId] as const,
      );
    },
    async allowInBrowserSettings(pattern) {
      await onExtensionsPage('addHostPermission', [pattern]);
    },
    async setSiteAccessMode(mode) {
      await onExtensionsPage('mode', [mode]);
    },
    async grantSite(pattern) {
      await grantSites([pattern]);
    },
    async revokeSite(pattern) {
      await onExtensionsPage('removeHostPermission', [pattern]);
      await waitFor(async () => !(await h.contentScriptMatches()).includes(pattern), `the content script to be unregistered for ${pattern}`);
    },
    async grantActiveTab(page) {
      const browser = context.browser();
      if (!browser) throw new Error('No browser-level CDP session in this context');
      const sw = await serviceWorker();
      const panelOnClick = (on: boolean) => sw.evaluate((o) => chrome.sidePanel.setPanelBehavior({ openPanelOnActionClick: o }), on);
      const cdp = await browser.newBrowserCDPSession();
      await panelOnClick(false);
      try {
        type Info = { targetId: string; type: string; url: string };
        const { targetInfos } = (await cdp.send('Target.getTargets', { filter: [{}] } as never)) as unknown as { targetInfos: Info[] };
        const tabs = targetInfos.filter((t) => t.type === 'tab' && t.url === page.url());
        if (tabs.length !== 1) throw new Error(`Expected one tab at ${page.url()}, found ${tabs.length}`);
        await cdp.send('Extensions.triggerAction' as never, { id: extensionId, targetId: tabs[0].targetId } as never);
      } finally {
        await panelOnClick(true);
        await cdp.detach();
      }
    },
    async contentScriptMatches() {
      const sw = await serviceWorker();
      return sw.evaluate(async () => (await chrome.scripting.getRegisteredContentScripts()).flatMap((s) => s.matches ?? []));
    },
    async watchOtherTargets(onRequest) {
      const page = await context.newPage();
      await page.goto(`chrome-extension://${extensionId}/options.html`);
      const cdp = await context.newCDPSession(page);
      const attached: string[] = [];
      let id = 0;
      type Info = { targetId: string; type: string; url: string };
      type Message = { method?: string; params?: { request?: { url: string }; sessionId?: string; message?: string; targetInfo?: Info } };
      /** Sends a command to a target through the chain of non-flat sessions leading to it. */
      const sendVia = (path: string[], method: string, params: object = {}) => {
        let message = JSON.stringify({ id: ++id, method, params });
        for (let i = path.length - 1; i > 0; i--) message = JSON.stringify({ id: ++id, method: 'Target.sendMessageToTarget', params: { sessionId: path[i], message } });
        return cdp.send('Target.sendMessageToTarget', { sessionId: path[0], message });
      };
      /** Network events of a target, and the workers it starts (held at their start until their requests are watched). */
      const watch = async (path: string[], info: Info) => {
        attached.push(`${info.type} ${info.url}`);
        await sendVia(path, 'Network.enable');
        await sendVia(path, 'Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: true, flatten: false });
        await sendVia(path, 'Runtime.runIfWaitingForDebugger');
      };
      const types = new Map<string, string[]>(); // top-level session id -> its type
      const onMessage = (path: string[], type: string, raw: string) => {
        const m = JSON.parse(raw) as Message;
        if (m.method === 'Network.requestWillBeSent' && m.params?.request) onRequest(m.params.request.url, type);
        else if (m.method === 'Target.attachedToTarget' && m.params?.sessionId && m.params.targetInfo) void watch([...path, m.params.sessionId], m.params.targetInfo).catch(() => undefined);
        else if (m.method === 'Target.receivedMessageFromTarget' && m.params?.sessionId && m.params.message) {
          const child = [...path, m.params.sessionId];
          onMessage(child, types.get(child.join('/'))?.[0] ?? 'worker', m.params.message);
        }
      };
      cdp.on('Target.receivedMessageFromTarget', (e: { sessionId: string; message: string }) => onMessage([e.sessionId], types.get(e.sessionId)?.[0] ?? '?', e.message));
      const attach = async (info: Info) => {
        // Pages and the service worker are Playwright's; workers are reached through the document that starts them.
        if (['page', 'service_worker', 'browser_ui', 'browser', 'tab', 'worker'].includes(info.type)) return;
        try {
          const { sessionId } = await cdp.send('Target.attachToTarget', { targetId: info.targetId, flatten: false });
          types.set(sessionId, [info.type]);
          await watch([sessionId], info);
        } catch {
          // Gone before we got to it.
        }
      };
      cdp.on('Target.targetCreated', (e: { targetInfo: Info }) => void attach(e.targetInfo));
      await cdp.send('Target.setDiscoverTargets', { discover: true }); // also reports the targets alive now
      return { attached, stop: () => cdp.detach().then(() => page.close()) };
    },
    async restartServiceWorker() {
      const page = await h.extensionPage();
      const cdp = await context.newCDPSession(page);
      type Versions = { versions: { runningStatus: string; scriptURL: string }[] };
      const ours = (e: Versions) => e.versions.filter((v) => v.scriptURL.includes(extensionId));
      const reached = (status: string) =>
        new Promise<void>((ok) =>
          cdp.on('ServiceWorker.workerVersionUpdated', (e: Versions) => {
            if (ours(e).some((v) => v.runningStatus === status)) ok();
          }),
        );
      const stopped = reached('stopped');
      await cdp.send('ServiceWorker.enable');
      await cdp.send('ServiceWorker.stopAllWorkers');
      await stopped;
      const running = reached('running');
      // Any extension event wakes the worker again; a message from a page is the usual one.
      await page.evaluate(() => chrome.runtime.sendMessage({ type: 'settings:get', payload: {} }));
      await running;
      await cdp.detach();
      return serviceWorker();
    },
    async close() {
      await context.close();
      await server.close();
      if (!options.userDataDir) rmSync(userDataDir, { recursive: true, force: true });
    },
  };
  /** Several sites in one visit to chrome://extensions and one request, as launch allows its test sites. */
  async function grantSites(patterns: string[]): Promise<void> {
    if (!patterns.length) return;
    await onExtensionsPage('addHostPermission', patterns);
    const page = await h.extensionPage();
    const granted = await page.evaluate((p) => chrome.permissions.request({ origins: p }), patterns);
    if (!granted) throw new Error(`Chrome did not grant ${patterns.join(', ')}`);
    await waitFor(async () => {
      const matches = await h.contentScriptMatches();
      return patterns.every((p) => matches.includes(p));
    }, `the content script to be registered for ${patterns.join(', ')}`);
  }
  await grantSites(options.grantSites ?? TEST_SITES);
  return h;
}
