import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from 'esbuild';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { launchExtension, ROOT, type Harness } from './harness';
import { rememberSelection } from './remember-selection';

// "Remember this" for a selection, a page and a link, the quick edit popover after saving, and the optional,
// off-by-default capture of sent messages.
let h: Harness;
type Item = { id: string; text: string; title: string; kind: string; people: string[]; tags: string[]; sites: string[]; source: { url?: string; title?: string }; thread?: { id: string; seq: number } };
const list = async () => (await h.call<{ items: Item[] }>('memory:list', {})).items;

beforeAll(async () => {
  h = await launchExtension();
});
afterAll(async () => {
  await h?.close();
});

async function setup(): Promise<{ page: Page; tabId: number; panel: Page }> {
  const { page, tabId } = await h.openPage(`/fixtures/article.html?c=${Math.random()}`);
  const panel = await h.openPanel(tabId);
  await panel.locator('[data-testid="status"]').waitFor();
  return { page, tabId, panel };
}

describe('capture', () => {
  it('remembers a selection and offers a quick edit that saves title, kind, people, tags and sites', async () => {
    const { page, tabId, panel } = await setup();
    await rememberSelection(h, page, tabId, '#backoff');
    const pop = panel.locator('[data-testid="quick-edit"]');
    await pop.waitFor({ timeout: 30_000 });
    const id = (await pop.getAttribute('data-id'))!;
    expect((await list()).find((i) => i.id === id)?.text).toContain('exponential backoff');
    await pop.locator('[data-testid="edit-title"]').fill('Retry policy');
    await pop.locator('[data-testid="edit-kind-instruction"]').check();
    await pop.locator('[data-testid="edit-people"]').fill('Sam Ortiz, sam@example.com');
    await pop.locator('[data-testid="edit-tags"]').fill('sync, retry');
    await pop.locator('[data-testid="edit-sites"]').fill('github.com');
    await pop.locator('[data-testid="edit-save"]').click();
    await pop.waitFor({ state: 'detached' });
    await expect.poll(async () => (await list()).find((i) => i.id === id)).toMatchObject({
      title: 'Retry policy', kind: 'instruction', people: ['Sam Ortiz', 'sam@example.com'], tags: ['sync', 'retry'], sites: ['github.com'],
    });
    // A panel opened a moment later does not offer it again once handled.
    const again = await h.openPanel(tabId);
    await again.locator('[data-testid="status"]').waitFor();
    await again.waitForTimeout(300);
    expect(await again.locator('[data-testid="quick-edit"]').count()).toBe(0);
    await again.close();
    await panel.close();
    await page.close();
  });

  it('remembers the page; the popover can be dismissed with Escape and keeps what was saved', async () => {
    const { page, tabId, panel } = await setup();
    await h.contextMenu({ menuItemId: 'remember-page', pageUrl: page.url(), frameId: 0, editable: false }, tabId);
    const pop = panel.locator('[data-testid="quick-edit"]');
    await pop.waitFor({ timeout: 30_000 });
    const id = (await pop.getAttribute('data-id'))!;
    const saved = (await list()).find((i) => i.id === id)!;
    expect(saved.source.title).toBe('Field notes: the sync worker');
    expect(saved.text).toContain('sync worker runs every five minutes');
    await pop.locator('[data-testid="edit-title"]').press('Escape');
    await pop.waitFor({ state: 'detached' });
    expect((await list()).some((i) => i.id === id)).toBe(true);
    await panel.close();
    await page.close();
  });

  it('remembers a link (context menu id remember-link)', async () => {
    const { page, tabId, panel } = await setup();
    await h.contextMenu({ menuItemId: 'remember-link', linkUrl: 'https://example.com/postmortem', selectionText: 'Outage postmortem', pageUrl: page.url(), frameId: 0, editable: false }, tabId);
    const pop = panel.locator('[data-testid="quick-edit"]');
    await pop.waitFor({ timeout: 30_000 });
    const id = (await pop.getAttribute('data-id'))!;
    expect((await list()).find((i) => i.id === id)).toMatchObject({ title: 'Outage postmortem', source: { url: 'https://example.com/postmortem' } });
    await pop.locator('[data-testid="quick-edit-dismiss"]').click();
    await pop.waitFor({ state: 'detached' });
    await panel.close();
    await page.close();
  });

  it('saves sent messages only when switched on for the site', async () => {
    const msg = { text: 'Please use exponential backoff for the sync worker.', url: 'https://chatgpt.com/c/1', title: 'Chat', site: 'chatgpt.com' };
    expect(await h.call('capture:sent', msg)).toEqual({ saved: false }); // off by default
    await h.call('settings:set', { patch: { capture: { sent: true, sites: ['chatgpt.com'] } } });
    expect(await h.call('capture:sent', { ...msg, site: 'claude.ai' })).toEqual({ saved: false }); // not an enabled site
    expect(await h.call('capture:sent', msg)).toEqual({ saved: true });
    expect((await list()).find((i) => i.text === msg.text)).toMatchObject({ tags: ['sent', 'chatgpt.com'], source: { url: msg.url } });
    // A message sent in a conversation joins its thread (the id an import of that conversation gives its turns).
    const reply = { ...msg, text: 'And cap the retries at five.', thread: { id: 'chatgpt:1' } };
    expect(await h.call('capture:sent', reply)).toEqual({ saved: true });
    const joined = (await list()).find((i) => i.text === reply.text)!;
    expect(joined.thread).toEqual({ id: 'chatgpt:1', seq: expect.any(Number) });
    await h.call('settings:set', { patch: { capture: { sent: false } } });
  });

  it('the page-side sent-message watcher takes the composer text on Enter and on a send button, only when allowed', async () => {
    const { code } = await bundleCaptureSent();
    const page = await h.context.newPage();
    await page.goto(`${h.origin}/fixtures/textarea.html?sent`);
    await page.addScriptTag({ content: code });
    await page.evaluate(() => {
      const w = window as unknown as { sent: string[]; allow: boolean; cs: { startSentCapture: (d: unknown) => void } };
      w.sent = [];
      w.allow = false;
      const btn = document.createElement('button');
      btn.setAttribute('aria-label', 'Send message');
      btn.textContent = 'Send';
      btn.onclick = () => ((document.querySelector('#field') as HTMLTextAreaElement).value = '');
      document.body.append(btn);
      w.cs.startSentCapture({
        readField: (el: Element) => (el instanceof HTMLTextAreaElement ? el.value : null),
        send: async (m: { text: string }) => void w.sent.push(m.text),
        loadSettings: async () => ({ captureSent: true, captureSites: [location.hostname] }),
        onSettingsChanged: () => () => {},
      });
    });
    const field = page.locator('#field');
    await field.click();
    await field.pressSequentially('first message');
    await page.keyboard.press('Shift+Enter'); // a new line, not a send
    await page.keyboard.press('Enter');
    await field.fill('second message');
    await page.getByRole('button', { name: 'Send message' }).click();
    expect(await page.evaluate(() => (window as unknown as { sent: string[] }).sent)).toEqual(['first message', 'second message']);
    await page.close();
  });
});

async function bundleCaptureSent(): Promise<{ code: string }> {
  const out = await build({ entryPoints: [join(ROOT, 'lib/sites/capture-sent.ts')], bundle: true, write: false, format: 'iife', globalName: 'cs', target: 'chrome120' });
  return { code: out.outputFiles[0].text };
}
