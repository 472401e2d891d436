import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serveStatic } from '../../scripts/demo-server';
import { ROOT } from './harness';

/**
 * The Firefox build (.output/firefox-mv3) in real headless Firefox ESR, driven over WebDriver BiDi by puppeteer-core
 * (Playwright needs its own patched Firefox, which cannot be downloaded here).
 *
 * Firefox lets BiDi open moz-extension:// pages and reach the browser's own UI (the sidebar, the context menu, the
 * add-on's shortcut keys) only with `--remote-allow-system-access`; the test uses that to click the real menu item
 * and fire the real shortcut, and to read whether the real sidebar opened.
 */
export const FIREFOX_BUILD_DIR = join(ROOT, '.output', 'firefox-mv3');
export const FIREFOX = process.env.FIREFOX_PATH ?? '/usr/bin/firefox-esr';

export interface FirefoxHarness {
  browser: Browser;
  /** The add-on's moz-extension:// origin (fixed per run through the `extensions.webextensions.uuids` pref). */
  extensionOrigin: string;
  origin: string;
  version: string;
  openPage(path: string): Promise<{ page: Page; tabId: number }>;
  /** Opens any URL (e.g. the local server under another host name) and returns it with its tab id. */
  openUrl(url: string): Promise<{ page: Page; tabId: number }>;
  /** The sidebar page opened as an ordinary tab, pinned to a tab (sidepanel.html?tab=<id>). */
  openPanel(tabId: number): Promise<Page>;
  /** An extension page (options.html) kept open for protocol calls. */
  extensionPage(): Promise<Page>;
  openExtensionPage(path: string): Promise<Page>;
  call<T = unknown>(type: string, payload: unknown): Promise<T>;
  seed(items: unknown[]): Promise<number>;
  /** Runs a function body in the browser's privileged top window (where `gBrowser`, `SidebarController` live). */
  chrome<T = unknown>(body: string): Promise<T>;
  /** Brings a tab to the front, as a click on it would. */
  selectTab(tabId: number): Promise<void>;
  close(): Promise<void>;
}

function addonId(buildDir: string): string {
  const manifestPath = join(buildDir, 'manifest.json');
  if (!existsSync(manifestPath)) throw new Error(`No Firefox build at ${buildDir}: run \`npm run build:firefox\` first.`);
  const id = JSON.parse(readFileSync(manifestPath, 'utf8')).browser_specific_settings?.gecko?.id as string | undefined;
  if (!id) throw new Error(`${manifestPath} has no browser_specific_settings.gecko.id; Firefox MV3 needs one.`);
  return id;
}

/** Firefox's promise-based `browser` namespace in extension pages (same shape as `chrome` for what is used here). */
export type WebExt = { browser: typeof chrome };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function launchFirefoxExtension(buildDir = FIREFOX_BUILD_DIR): Promise<FirefoxHarness> {
  if (!existsSync(FIREFOX)) {
    throw new Error(`Firefox not found at ${FIREFOX}: install it with \`apt-get install -y firefox-esr\` (.ci/run does) or set FIREFOX_PATH.`);
  }
  const id = addonId(buildDir);
  const uuid = randomUUID();
  const extensionOrigin = `moz-extension://${uuid}`;
  const server = await serveStatic({ demo: join(ROOT, 'demo', 'pages'), fixtures: join(ROOT, 'test', 'e2e', 'fixtures') }, 0);
  const userDataDir = mkdtempSync(join(tmpdir(), 'backstory-firefox-'));
  const browser = await puppeteer.launch({
    browser: 'firefox',
    executablePath: FIREFOX,
    headless: true,
    userDataDir,
    args: ['--remote-allow-system-access'],
    // FIREFOX_DUMPIO=1 prints Firefox's output, the add-on's console included, for debugging.
    dumpio: !!process.env.FIREFOX_DUMPIO,
    extraPrefsFirefox: {
      ...(process.env.FIREFOX_DUMPIO ? { 'devtools.console.stdout.chrome': true, 'devtools.console.stdout.content': true } : {}),
      'extensions.webextensions.uuids': JSON.stringify({ [id]: uuid }),
      // Host access granted at install (Firefox's default, set so a changed default cannot silently break the test).
      'extensions.originControls.grantByDefault': true,
      // permissions.request() answers without a prompt (no one can click one in a headless test).
      'extensions.webextOptionalPermissionPrompts': false,
    },
  });
  try {
    await browser.installExtension(buildDir);
  } catch (e) {
    await browser.close();
    throw e;
  }
  const connection = (browser as unknown as { connection: { send(method: string, params: unknown): Promise<{ result: unknown }> } }).connection;
  let extPage: Page | undefined;

  /**
   * BiDi refuses no navigation to moz-extension:// with system access, but the load moves the tab to the add-on's
   * process and puppeteer's goto never sees it finish: start it, then wait until the page itself says it is there.
   */
  async function gotoExtension(page: Page, url: string): Promise<void> {
    void page.goto(url).catch(() => {});
    const deadline = Date.now() + 30_000;
    for (;;) {
      const here = await page.evaluate(() => [location.href, document.readyState]).catch(() => ['', '']);
      if (here[0] === url && here[1] === 'complete') return;
      if (Date.now() > deadline) throw new Error(`Extension page ${url} did not load (last seen: ${here[0] || 'nothing'}).`);
      await sleep(100);
    }
  }

  const h: FirefoxHarness = {
    browser,
    extensionOrigin,
    origin: server.origin,
    version: await browser.version(),
    openPage(path) {
      return h.openUrl(`${server.origin}${path}`);
    },
    async openUrl(target) {
      const page = await browser.newPage();
      await page.goto(target);
      const url = page.url();
      const ext = await h.extensionPage();
      const tabId = await ext.evaluate(
        // The newest tab with that URL: a page closed a moment ago may still be listed.
        async (u) => Math.max(...(await (globalThis as unknown as WebExt).browser.tabs.query({})).filter((t) => t.url === u).map((t) => t.id ?? -1)),
        url,
      );
      if (!(tabId >= 0)) throw new Error(`No tab found for ${url}`);
      return { page, tabId };
    },
    openPanel(tabId) {
      return h.openExtensionPage(`/sidepanel.html?tab=${tabId}`);
    },
    async openExtensionPage(path) {
      const page = await browser.newPage();
      await gotoExtension(page, `${extensionOrigin}${path}`);
      return page;
    },
    async extensionPage() {
      if (!extPage || extPage.isClosed()) extPage = await h.openExtensionPage('/options.html');
      return extPage;
    },
    async call<T>(type: string, payload: unknown): Promise<T> {
      const page = await h.extensionPage();
      const wire = (await page.evaluate(
        (t, p) => (globalThis as unknown as WebExt).browser.runtime.sendMessage({ type: t, payload: p }),
        type,
        payload as never,
      )) as { ok: true; value: T } | { ok: false; error: string };
      if (!wire.ok) throw new Error(wire.error);
      return wire.value;
    },
    async seed(items) {
      const content = JSON.stringify({ format: 'backstory-memory', version: 1, items });
      return (await h.call<{ added: number }>('memory:import', { fileName: 'seed.json', content })).added;
    },
    async chrome<T>(body: string): Promise<T> {
      const tree = (await connection.send('browsingContext.getTree', { 'moz:scope': 'chrome' })).result as { contexts: { context: string }[] };
      const top = tree.contexts[0];
      if (!top) throw new Error('No browser window to reach (is --remote-allow-system-access honoured?)');
      // The answer crosses as JSON text: BiDi's own serialisation of objects is verbose.
      const r = (
        await connection.send('script.evaluate', {
          expression: `(async () => JSON.stringify(await (async () => { ${body} })() ?? null))()`,
          target: { context: top.context },
          awaitPromise: true,
        })
      ).result as { type: string; result?: { value?: string }; exceptionDetails?: { text: string } };
      if (r.type === 'exception') throw new Error(`In the browser window: ${r.exceptionDetails?.text}`);
      return JSON.parse(r.result?.value ?? 'null') as T;
    },
    async selectTab(tabId) {
      const ext = await h.extensionPage();
      await ext.evaluate((id) => (globalThis as unknown as WebExt).browser.tabs.update(id, { active: true }).then(() => undefined), tabId);
    },
    async close() {
      await browser.close().catch(() => {});
      await server.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
  // The local test site is not one of the built-in sites, so allow it as a user would in about:addons → Backstory →
  // Permissions (the same ExtensionPermissions call that toggle makes; the add-on hears permissions.onAdded).
  try {
    await h.chrome(`
      const { ExtensionPermissions } = ChromeUtils.importESModule('resource://gre/modules/ExtensionPermissions.sys.mjs');
      const policy = WebExtensionPolicy.getByID(${JSON.stringify(id)});
      if (!policy) throw new Error('add-on not running');
      await ExtensionPermissions.add(${JSON.stringify(id)}, { permissions: [], origins: ['http://127.0.0.1/*'] }, policy.extension);
      return true;`);
  } catch (e) {
    await h.close();
    throw e;
  }
  return h;
}
