import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { PanelState } from '../../lib/messaging/protocol';
import { buildFixtures } from './fixtures/build';
import { FIXTURE_ORIGIN, routeFixtures } from './fixtures/editors/serve';
import { SITE_MAP, SITE_URLS } from './fixtures/sites/pages';
import { launchExtension, type Harness } from './harness';
import { rememberSelection } from './remember-selection';

// Memory that keeps itself in order, in the built extension: a phrase the user keeps typing into prompts is offered
// as an instruction (never saved silently), a capture that nearly repeats a memory is offered for merging, and a
// page that tries to give orders stays where it came from.
let h: Harness;
type Item = { id: string; text: string; kind: string; scope?: { kind: string; values: string[]; set: string } };
const list = async () => (await h.call<{ items: Item[] }>('memory:list', {})).items;

beforeAll(async () => {
  await buildFixtures();
  h = await launchExtension();
  await routeFixtures(h.context, SITE_MAP);
});
afterAll(async () => h?.close());

async function tabOf(page: Page): Promise<number> {
  const sw = await h.serviceWorker();
  const id = await sw.evaluate(async (u) => (await chrome.tabs.query({})).find((t) => t.url === u)?.id, page.url());
  if (id === undefined) throw new Error(`no tab for ${page.url()}`);
  return id;
}

async function ranked(tabId: number, ready: (s: PanelState) => boolean): Promise<PanelState> {
  let state = await h.call<PanelState>('panel:get', { tabId });
  for (let i = 0; i < 150 && !ready(state); i++) {
    await new Promise((r) => setTimeout(r, 100));
    state = await h.call<PanelState>('panel:get', { tabId });
  }
  return state;
}

describe('a phrase the user keeps typing into prompts', () => {
  it('is offered after three prompts on ChatGPT, saved on Save as an instruction for chat assistants, and shown as a card', async () => {
    await h.call('settings:set', { patch: { capture: { sent: true, sites: ['chatgpt.com'] } } });
    const page = await h.context.newPage();
    await page.goto(SITE_URLS.chatgpt);
    const prompt = page.locator('#prompt-textarea[contenteditable="true"]');
    await prompt.waitFor();
    const tabId = await tabOf(page);
    const send = async (text: string) => {
      await prompt.click();
      await page.keyboard.press('Control+A');
      await page.keyboard.press('Backspace');
      await page.keyboard.type(text, { delay: 1 });
      await page.keyboard.press('Enter');
    };
    const sentSoFar = async () => (await list()).filter((i) => i.text.startsWith('How') || i.text.startsWith('What') || i.text.startsWith('Summarise')).length;
    await send('Summarise the release notes for the 2.4 update, keep it short');
    await send('How do I undo a git rebase? Keep it short.');
    await expect.poll(sentSoFar, { timeout: 10_000 }).toBe(2);

    const panel = await h.openPanel(tabId);
    await panel.locator('[data-testid="status"]').waitFor();
    await panel.waitForTimeout(300);
    expect(await panel.locator('[data-testid="phrase-offer"]').count()).toBe(0); // two prompts: not yet

    await send('What changed in Postgres 17? keep it short');
    const offer = panel.locator('[data-testid="phrase-offer"]');
    await offer.waitFor({ timeout: 10_000 });
    expect(await offer.innerText()).toMatch(/You often write “keep it short” \(3 prompts\)\. Save it as an instruction for chat assistants\?/);
    expect((await list()).some((i) => i.kind === 'instruction')).toBe(false); // offered, never saved silently

    // Keyboard: the offer's buttons are reachable and work with Enter.
    await offer.locator('[data-testid="phrase-offer-save"]').focus();
    await panel.keyboard.press('Enter');
    await offer.waitFor({ state: 'detached' });
    await expect.poll(async () => (await list()).filter((i) => i.kind === 'instruction')).toEqual([
      expect.objectContaining({ text: 'Keep it short.', scope: { kind: 'destination', values: ['chat'], set: 'user' } }),
    ]);

    // Writing the next prompt on ChatGPT, the instruction is a card, with its scope on it.
    await prompt.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Backspace');
    await page.keyboard.type('Which sorting algorithm is stable?', { delay: 1 });
    const card = panel.locator('[data-testid="card"][data-kind="instruction"]');
    await card.first().waitFor({ timeout: 15_000 });
    expect(await card.first().innerText()).toContain('Keep it short.');
    expect(await card.first().locator('[data-testid="card-scope"]').innerText()).toMatch(/chat assistants/i);

    // Not offered again, however often it is written.
    await send('Explain the CAP theorem, keep it short');
    await panel.waitForTimeout(500);
    expect(await panel.locator('[data-testid="phrase-offer"]').count()).toBe(0);
    await h.call('settings:set', { patch: { capture: { sent: false, sites: [] } } });
    await panel.close();
    await page.close();
  });
});

describe('a capture that nearly repeats a memory', () => {
  it('is offered for merging in the quick edit, and merging leaves one memory', async () => {
    const { page, tabId } = await h.openPage(`/fixtures/article.html?d=${Math.random()}`);
    const panel = await h.openPanel(tabId);
    await panel.locator('[data-testid="status"]').waitFor();
    const remember = async () => {
      await rememberSelection(h, page, tabId, '#backoff');
      const pop = panel.locator('[data-testid="quick-edit"]');
      await pop.waitFor({ timeout: 30_000 });
      return pop;
    };
    const backoff = async () => (await list()).filter((i) => i.text.includes('exponential backoff with jitter'));
    const first = await remember();
    expect(await first.locator('[data-testid="quick-edit-duplicate"]').count()).toBe(0); // nothing like it yet
    await first.locator('[data-testid="quick-edit-dismiss"]').click();
    await first.waitFor({ state: 'detached' });
    expect(await backoff()).toHaveLength(1);

    // The page now says nearly the same thing, with one more sentence.
    await page.evaluate(() => document.querySelector('#backoff')!.append(' Sam signed it off on Tuesday.'));
    const second = await remember();
    const dup = second.locator('[data-testid="quick-edit-duplicate"]');
    await dup.waitFor({ timeout: 10_000 });
    expect(await dup.innerText()).toMatch(/This nearly repeats/);
    expect(await backoff()).toHaveLength(2); // offered, not merged yet
    await dup.locator('[data-testid="quick-edit-merge"]').click();
    await second.waitFor({ state: 'detached' });
    await expect.poll(async () => (await backoff()).map((i) => i.text)).toEqual([expect.stringContaining('Sam signed it off on Tuesday.')]);
    await panel.close();
    await page.close();
  });
});

describe('a page that tries to give orders', () => {
  it('"Remember this page" on a gardening page is evidence tied to where it came from, never an instruction, and stays out of an unrelated reply', async () => {
    const garden = await h.context.newPage();
    await garden.goto(`${FIXTURE_ORIGIN}/gardening.html`);
    const gardenTab = await tabOf(garden);
    const gardenPanel = await h.openPanel(gardenTab);
    await gardenPanel.locator('[data-testid="status"]').waitFor();
    await h.contextMenu({ menuItemId: 'remember-page', pageUrl: garden.url(), frameId: 0, editable: false }, gardenTab);
    const pop = gardenPanel.locator('[data-testid="quick-edit"]');
    await pop.waitFor({ timeout: 30_000 });
    const id = (await pop.getAttribute('data-id'))!;
    const saved = (await list()).find((i) => i.id === id)!;
    expect(saved.text).toContain('paste your password there');
    expect(saved.scope).toEqual({ kind: 'sites', values: ['fixtures.backstory.test'], set: 'source' });
    // A page's text is evidence until the user makes it an instruction (the quick edit's kind).
    expect(saved.kind).toBe('evidence');
    expect(await pop.locator('[data-testid="edit-kind-evidence"]').isChecked()).toBe(true);
    await pop.locator('[data-testid="quick-edit-dismiss"]').click();
    await gardenPanel.close();

    await h.seed([{ id: 'sales', text: 'Sales figures for October: 340 units sold, 12% above target; the north region led.' }]);
    const { page, tabId } = await h.openPage(`/fixtures/textarea.html?s=${Math.random()}`);
    await page.locator('#field').click();
    await page.locator('#field').pressSequentially('Hi team, here are the sales figures for October', { delay: 2 });
    const state = await ranked(tabId, (s) => s.status === 'found' && s.model.state === 'ready');
    expect(state.cards.map((c) => c.item.id)).toContain('sales');
    expect(state.cards.map((c) => c.item.id)).not.toContain(id);
    expect(state.package?.ids ?? []).not.toContain(id);
    expect(state.package?.text ?? '').not.toMatch(/password/);

    // What "Insert all" puts into the reply: the package, without the page's orders.
    const panel = await h.openPanel(tabId);
    await panel.locator('[data-testid="card"]').first().waitFor({ timeout: 15_000 });
    await panel.locator('[data-testid="package"] summary').click();
    const text = panel.locator('[data-testid="package-text"]');
    await expect.poll(() => text.innerText(), { timeout: 30_000 }).toContain('340 units');
    expect(await text.innerText()).not.toMatch(/password|garden-help/);
    await panel.locator('[data-testid="package-insert"]').click();
    await expect.poll(() => page.locator('#field').inputValue()).toContain('340 units');
    expect(await page.locator('#field').inputValue()).not.toMatch(/password|garden-help/);

    // The memory says where it came from (the quick edit said where it applies).
    const back = await h.openPanel(gardenTab);
    await back.locator('[data-testid="tab-memory"]').click();
    const row = back.locator('[data-testid="memory-item"]', { hasText: 'Plant tomato seedlings' });
    await row.waitFor({ timeout: 10_000 });
    expect(await row.innerText()).toContain('fixtures.backstory.test — Gardening tips for small plots');
    await back.close();
    await panel.close();
    await page.close();
    await garden.close();
  });
});
