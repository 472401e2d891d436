/**
 * Site access in Chromium: Backstory reads only the sites the user allowed. A site is allowed and taken back the way a
 * user does it (chrome://extensions' Site access, the panel's "Allow on <host>", the options page's Remove); pages on
 * other sites are served by the router under hostnames the harness never allows.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILD_DIR, launchExtension, ROOT, type Harness } from './harness';
import { routeFixtures } from './fixtures/editors/serve';
import { openTab, scriptAnswers as probeScript, seenByService as serviceView } from './tab-probes';
import { buildFixtures } from './fixtures/build';
import { SITE_MAP, SITE_URLS } from './fixtures/sites/pages';
import type { PanelState } from '../../lib/messaging/protocol';

const NOTE = { id: 'kestrel', text: 'Kestrel migration plan: cut over the billing database on Saturday, rollback window two hours.' };
const FIXTURE = readFileSync(join(ROOT, 'test', 'e2e', 'fixtures', 'textarea.html'));
const SITE = 'https://notes.unlisted.test';
const OTHER = 'https://wiki.unlisted.test';

let h: Harness;

beforeAll(async () => {
  await buildFixtures(); // the built-in sites' fixture pages load the editors bundle
  h = await launchExtension();
  await routeFixtures(h.context, SITE_MAP);
  for (const origin of [SITE, OTHER]) {
    await h.context.route(`${origin}/**`, (route) => route.fulfill({ status: 200, body: FIXTURE, headers: { 'content-type': 'text/html; charset=utf-8' } }));
  }
  await h.seed([NOTE]);
});
afterAll(async () => h?.close());

const open = (url: string) => openTab(h, url);
const scriptAnswers = (tabId: number) => probeScript(h, tabId);
const seenByService = (tabId: number) => serviceView(h, tabId);

const panelState = (tabId: number) => h.call<PanelState>('panel:get', { tabId });

describe('site access', () => {
  it('asks for the fewest permissions: its own sites up front, any other site only when allowed', () => {
    const manifest = JSON.parse(readFileSync(join(BUILD_DIR, 'manifest.json'), 'utf8'));
    // The sites with their own adapter, as the adapters declare them.
    expect(manifest.host_permissions).toEqual([
      'https://mail.google.com/*', 'https://outlook.live.com/*', 'https://outlook.office.com/*', 'https://outlook.office365.com/*',
      'https://outlook.cloud.microsoft/*',
      'https://docs.google.com/document/*', 'https://www.notion.so/*', 'https://notion.so/*', 'https://chatgpt.com/*', 'https://chat.openai.com/*',
      'https://claude.ai/*', 'https://gemini.google.com/*', 'https://copilot.microsoft.com/*', 'https://www.perplexity.ai/*',
      'https://perplexity.ai/*', 'https://chat.deepseek.com/*', 'https://chat.mistral.ai/*',
      // Grok inside X and Microsoft 365 Copilot: only the paths the assistant lives under, not the rest of the host.
      'https://grok.com/*', 'https://x.com/i/grok*', 'https://m365.cloud.microsoft/chat*',
    ]);
    expect(manifest.optional_host_permissions).toEqual(['*://*/*']);
    expect(manifest.permissions).toEqual(expect.arrayContaining(['activeTab', 'scripting']));
    expect(JSON.stringify(manifest)).not.toContain('<all_urls>');
    // The only script in the manifest sets Google Docs' flag in the page's world (it reads nothing); the reading
    // script is registered at run time for the allowed sites.
    expect(manifest.content_scripts).toEqual([
      { matches: ['https://docs.google.com/document/*'], run_at: 'document_start', js: ['content-scripts/docs-annotate.js'], world: 'MAIN' },
    ]);
  });

  it('on a site not allowed, runs no content script, never reads the field, and the panel says so', async () => {
    const { page, tabId } = await open(`${SITE}/draft.html`);
    await page.locator('#field').click();
    await page.keyboard.type('Kestrel migration: when is the billing cut over?');
    await page.waitForTimeout(800); // the content script's debounce, had one been there
    expect(await scriptAnswers(tabId)).toBe(false);
    const seen = await seenByService(tabId);
    expect(seen).not.toContain('billing cut over');
    const state = await panelState(tabId);
    expect(state.task).toBeUndefined();
    expect(state.cards).toEqual([]);
    expect(state.access).toEqual({ state: 'ask', host: 'notes.unlisted.test', pattern: `${SITE}/*` });

    const panel = await h.openPanel(tabId);
    await expect.poll(() => panel.locator('[data-testid="status"]').innerText(), { timeout: 30_000 }).toContain('Backstory can’t read this page');
    expect(await panel.locator('[data-testid="status"]').getAttribute('data-state')).toBe('watching');
    await expect.poll(() => panel.locator('[data-testid="no-access"]').innerText()).toContain('nothing on notes.unlisted.test has been read');
    expect(await panel.locator('[data-testid="allow-site"]').innerText()).toBe('Allow on notes.unlisted.test');
    expect(await panel.locator('[data-testid="card"]').count()).toBe(0);
    // Search still works without reading the page.
    await panel.locator('[data-testid="search"]').fill('kestrel billing cut over');
    await expect.poll(() => panel.locator(`[data-testid="card"][data-id="${NOTE.id}"]`).count(), { timeout: 30_000 }).toBe(1);
    await panel.close();
    await page.close();
  });

  it('after “Allow on <host>”, the open page is read without a reload and cards appear; taking it back stops it', async () => {
    const { page, tabId } = await open(`${SITE}/compose.html`);
    const panel = await h.openPanel(tabId);
    await panel.locator('[data-testid="allow-site"]').waitFor({ timeout: 30_000 });
    // The user allows the site in chrome://extensions, so the panel's own request finds it allowed without a dialog.
    await h.allowInBrowserSettings(`${SITE}/*`);
    await panel.locator('[data-testid="allow-site"]').click();
    await expect.poll(() => panel.locator('[data-testid="toast"]').innerText().catch(() => ''), { timeout: 15_000 }).toContain('Allowed on notes.unlisted.test');
    await expect.poll(() => h.contentScriptMatches()).toContain(`${SITE}/*`);
    await expect.poll(() => scriptAnswers(tabId), { timeout: 15_000 }).toBe(true);

    await page.locator('#field').click();
    await page.keyboard.type('Kestrel migration: when is the billing cut over?');
    await expect.poll(async () => (await panelState(tabId)).task?.ask ?? '', { timeout: 30_000 }).toContain('billing cut over');
    await expect.poll(() => panel.locator(`[data-testid="card"][data-id="${NOTE.id}"]`).count(), { timeout: 30_000 }).toBe(1);
    expect(await panel.locator('[data-testid="no-access"]').count()).toBe(0);
    // A page opened later on the site gets the content script from the registration.
    const later = await open(`${SITE}/later.html`);
    await expect.poll(() => scriptAnswers(later.tabId), { timeout: 15_000 }).toBe(true);
    await later.page.close();

    // Taken back in chrome://extensions: the script in the open page stops, and what is typed next is not read.
    await h.revokeSite(`${SITE}/*`);
    await expect.poll(() => panel.locator('[data-testid="no-access"]').count(), { timeout: 15_000 }).toBe(1);
    await expect.poll(() => scriptAnswers(tabId), { timeout: 15_000 }).toBe(false);
    await page.locator('#field').click();
    await page.keyboard.type(' Osprey rollback rehearsal too.');
    await page.waitForTimeout(800);
    expect(await seenByService(tabId)).not.toContain('Osprey');
    expect((await panelState(tabId)).access).toMatchObject({ state: 'ask', host: 'notes.unlisted.test' });
    const after = await open(`${SITE}/after.html`);
    await after.page.waitForTimeout(500);
    expect(await scriptAnswers(after.tabId)).toBe(false);
    await after.page.close();
    await panel.close();
    await page.close();
  });

  it('on a site not allowed, the insert shortcut and “Remember this” work on the page where the user invokes them, and nothing watches after', async () => {
    const { page, tabId } = await open(`${SITE}/invoked.html`);
    await page.locator('#field').click();
    await page.keyboard.type('Kestrel migration: when is the billing cut over? ');
    // Without the browser's activeTab grant the page cannot be reached: the shortcut inserts nothing.
    await h.command('insert-top-card', tabId);
    await page.waitForTimeout(800);
    expect(await page.locator('#field').inputValue()).not.toContain('rollback window');

    // The browser's activeTab grant on this page (what the menu click or the shortcut itself gives in a headed browser).
    await h.grantActiveTab(page);
    await page.locator('#field').focus();
    await h.command('insert-top-card', tabId);
    await expect.poll(() => page.locator('#field').inputValue(), { timeout: 30_000 }).toContain('rollback window two hours');

    await page.evaluate(() => {
      const div = document.createElement('div');
      div.innerHTML = 'Heron runbook line one<br>Heron runbook line two';
      document.body.append(div);
      const range = document.createRange();
      range.selectNodeContents(div);
      (document.activeElement as HTMLElement | null)?.blur();
      getSelection()!.removeAllRanges();
      getSelection()!.addRange(range);
    });
    await h.contextMenu({ menuItemId: 'remember-selection', selectionText: 'Heron runbook line one Heron runbook line two', pageUrl: page.url(), frameId: 0, editable: false }, tabId);
    // The page's own selection (line break kept) was read, which only a script in the page can do.
    await expect.poll(async () => (await h.call<{ items: { text: string }[] }>('memory:list', {})).items.map((i) => i.text), { timeout: 15_000 })
      .toContain('Heron runbook line one\nHeron runbook line two');

    // Nothing was left watching: later typing is not read, and the panel still offers to allow the site.
    await page.locator('#field').click();
    await page.keyboard.type('Osprey rehearsal');
    await page.waitForTimeout(800);
    expect(await seenByService(tabId)).not.toContain('Osprey');
    expect((await panelState(tabId)).access).toMatchObject({ state: 'ask', host: 'notes.unlisted.test' });
    await page.close();
  });

  it('the options page lists the sites Backstory reads; removing one there stops it', async () => {
    await h.grantSite(`${OTHER}/*`);
    const options = await h.context.newPage();
    await options.goto(`chrome-extension://${h.extensionId}/options.html`);
    const item = options.locator(`[data-testid="site-access-item"][data-origin="${OTHER}/*"]`);
    await item.waitFor();
    // The built-in sites are listed too, without a Remove button.
    const claude = options.locator('[data-testid="site-access-item"][data-origin="https://claude.ai/*"]');
    expect(await claude.getAttribute('data-builtin')).toBe('true');
    expect(await claude.locator('[data-testid="site-access-remove"]').count()).toBe(0);
    const { page, tabId } = await open(`${OTHER}/page.html`);
    await expect.poll(() => scriptAnswers(tabId), { timeout: 15_000 }).toBe(true);

    await item.locator('[data-testid="site-access-remove"]').click();
    await expect.poll(() => item.count()).toBe(0);
    await expect.poll(() => h.contentScriptMatches()).not.toContain(`${OTHER}/*`);
    await expect.poll(() => scriptAnswers(tabId), { timeout: 15_000 }).toBe(false);
    expect((await panelState(tabId)).access).toMatchObject({ state: 'ask', host: 'wiki.unlisted.test' });
    await page.close();
    await options.close();
  });

  it('keeps the registration for allowed sites when the service worker restarts', async () => {
    await h.grantSite(`${OTHER}/*`);
    await h.restartServiceWorker();
    expect(await h.contentScriptMatches()).toContain(`${OTHER}/*`);
    const { page, tabId } = await open(`${OTHER}/restart.html`);
    await page.locator('#field').click();
    await page.keyboard.type('Kestrel billing cut over after a restart');
    await expect.poll(async () => (await panelState(tabId)).task?.ask ?? '', { timeout: 30_000 }).toContain('after a restart');
    await page.close();
  });

  it('a built-in site the user set to “On click” is not read, and the panel offers to allow it', async () => {
    await h.setSiteAccessMode('ON_CLICK');
    try {
      const { page, tabId } = await open(SITE_URLS.claude);
      await page.locator('[contenteditable="true"]').first().click();
      await page.keyboard.type('Kestrel billing cut over plan');
      await page.waitForTimeout(800);
      expect(await scriptAnswers(tabId)).toBe(false);
      expect(await seenByService(tabId)).not.toContain('billing cut over plan');
      expect((await panelState(tabId)).access).toEqual({ state: 'ask', host: 'claude.ai', pattern: 'https://claude.ai/*' });
      // chrome://extensions' "On specific sites" + claude.ai: read again, in the open page.
      await h.setSiteAccessMode('ON_SPECIFIC_SITES');
      await h.allowInBrowserSettings('https://claude.ai/*');
      await expect.poll(() => scriptAnswers(tabId), { timeout: 15_000 }).toBe(true);
      expect((await panelState(tabId)).access).toBeUndefined();
      await page.close();
    } finally {
      await h.setSiteAccessMode('ON_ALL_SITES');
    }
  });
});

describe('a capture held back as a possible secret', () => {
  /** Saves `text` through the real "Remember this" listener with the panel open; returns its quick edit popover. */
  async function rememberSelection(text: string) {
    const { page, tabId } = await h.openPage('/fixtures/textarea.html');
    const panel = await h.openPanel(tabId);
    await panel.locator('[data-testid="status"]').waitFor();
    await h.contextMenu({ menuItemId: 'remember-selection', selectionText: text, pageUrl: page.url(), frameId: 0, editable: false }, tabId);
    return { page, tabId, panel, popover: panel.locator('[data-testid="quick-edit"]') };
  }

  it('the quick edit after “Remember this” says why and offers “Use it anyway”, which makes it a card', async () => {
    const { page, tabId, panel, popover } = await rememberSelection(
      'Osprey staging deploy: use token ghp_abcdefghijklmnopqrstuvwxyz0123456789ABCD for the osprey pipeline.',
    );
    await expect.poll(() => popover.locator('[data-testid="quick-edit-held"]').innerText().catch(() => ''), { timeout: 15_000 }).toMatch(/Held back from suggestions: it looks like it contains a secret \(GitHub token\)/);
    const id = await popover.getAttribute('data-id');

    await page.locator('#field').click();
    await page.keyboard.type('osprey pipeline staging deploy');
    await expect.poll(async () => (await panelState(tabId)).task?.ask ?? '', { timeout: 30_000 }).toContain('osprey pipeline');
    expect((await panelState(tabId)).cards.map((c) => c.item.id)).not.toContain(id);

    await popover.locator('[data-testid="quick-edit-confirm"]').click();
    await expect.poll(() => panel.locator('[data-testid="quick-edit-held"]').count()).toBe(0);
    // Watched in the panel only: a ranking asked for meanwhile (panel:get) would make the panel's own one stale.
    await expect.poll(() => panel.locator(`[data-testid="card"][data-id="${id}"]`).count(), { timeout: 30_000 }).toBe(1);
    const { items } = await h.call<{ items: { id: string; needsReview?: string }[] }>('memory:list', {});
    expect(items.find((i) => i.id === id)?.needsReview).toBeFalsy();
    await panel.close();
    await page.close();
  });

  it('“Delete it” removes a captured secret at once', async () => {
    const { page, panel, popover } = await rememberSelection('prod key sk-ant-abcdefghijklmnopqrstuvwxyz0123 for the heron job');
    await popover.locator('[data-testid="quick-edit-held"]').waitFor({ timeout: 15_000 });
    await popover.locator('[data-testid="quick-edit-delete"]').click();
    await expect.poll(async () => (await h.call<{ items: { text: string }[] }>('memory:list', {})).items.some((i) => i.text.includes('heron'))).toBe(false);
    expect(await panel.locator('[data-testid="quick-edit"]').count()).toBe(0);
    await panel.close();
    await page.close();
  });
});
