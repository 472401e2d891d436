import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { launchExtension, type Harness } from './harness';

// The whole path with the real model: remember → rank → insert → survive a worker restart.
let h: Harness;

const BACKGROUND = [
  { id: 'garden', text: 'Tomato seedlings need hardening off for a week before planting out; water them in the morning.' },
  { id: 'offsite', text: 'The team offsite is in Lisbon on November 18-19; the hotel is near Cais do Sodré.' },
  { id: 'invoice', text: 'Invoices from Acme are paid net 30; the finance contact is Priya.' },
];

beforeAll(async () => {
  h = await launchExtension();
  await h.seed(BACKGROUND);
});
afterAll(async () => {
  await h?.close();
});

async function cardIds(panel: Page): Promise<string[]> {
  return panel.locator('[data-testid="card"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-id') ?? ''));
}

async function waitForState(panel: Page, state: string) {
  await panel.locator(`[data-testid="status"][data-state="${state}"]`).waitFor({ timeout: 60_000 });
}

type Ranked = { status: string; task?: { ask: string }; model: { state: string }; cards: { item: { id: string }; factors: { semantic: number } }[] };

/** The worker's ranking once it is for the whole typed ask (a ranking of a half-typed ask can also say "found"). */
async function rankedFor(tabId: number, ask: string): Promise<Ranked> {
  let state: Ranked | undefined;
  await expect
    .poll(async () => {
      state = await h.call<Ranked>('panel:get', { tabId });
      return state.status === 'found' && state.task?.ask === ask;
    }, { timeout: 60_000 })
    .toBe(true);
  return state!;
}

describe('Backstory in Chromium with the real model', () => {
  let rememberedId = '';

  it('remembers a selection through the context menu handler', async () => {
    const { page, tabId } = await h.openPage('/fixtures/article.html');
    await page.evaluate(() => {
      const p = document.querySelector('#backoff')!;
      const range = document.createRange();
      range.selectNodeContents(p);
      getSelection()!.removeAllRanges();
      getSelection()!.addRange(range);
    });
    const selectionText = await page.evaluate(() => getSelection()!.toString());
    const before = (await h.call<{ items: { id: string }[] }>('memory:list', {})).items.length;
    await h.contextMenu({ menuItemId: 'remember-selection', selectionText, pageUrl: page.url(), frameId: 0, editable: false }, tabId);
    await expect.poll(async () => (await h.call<{ items: unknown[] }>('memory:list', {})).items.length, { timeout: 30_000 }).toBe(before + 1);
    const { items } = await h.call<{ items: { id: string; text: string; kind: string; source: { url?: string; title?: string } }[] }>('memory:list', {});
    const saved = items.find((i) => i.text.includes('exponential backoff'))!;
    expect(saved).toBeDefined();
    expect(saved.source.url).toBe(page.url());
    expect(saved.source.title).toBe('Field notes: the sync worker');
    expect(saved.kind).toBe('evidence');
    rememberedId = saved.id;
    await page.close();
  });

  it('ranks the remembered card first for a field about the same subject, and not for an unrelated one', async () => {
    const { page, tabId } = await h.openPage('/fixtures/textarea.html');
    const panel = await h.openPanel(tabId);
    await waitForState(panel, 'watching');
    await page.locator('#field').click();
    const ask = 'How do we stop the sync worker from retrying in a tight loop?';
    await page.locator('#field').pressSequentially(ask, { delay: 5 });
    expect((await rankedFor(tabId, ask)).cards[0].item.id).toBe(rememberedId);
    await expect.poll(async () => (await cardIds(panel))[0], { timeout: 30_000 }).toBe(rememberedId);

    await page.locator('#field').fill('');
    await page.locator('#field').pressSequentially('Which seeds should I plant this spring?', { delay: 5 });
    await expect.poll(async () => (await cardIds(panel))[0], { timeout: 30_000 }).toBe('garden');
    expect(await cardIds(panel)).not.toContain(rememberedId);
    await panel.close();
    await page.close();
  });

  it('inserts a card into a textarea through the panel, at the caret', async () => {
    const { page, tabId } = await h.openPage('/fixtures/textarea.html');
    await page.locator('#field').click();
    await page.locator('#field').pressSequentially('Where is the offsite? ', { delay: 5 });
    const panel = await h.openPanel(tabId);
    await waitForState(panel, 'found');
    const card = panel.locator('[data-testid="card"][data-id="offsite"]');
    await card.locator('[data-testid="card-insert"]').click();
    await expect.poll(() => page.locator('#field').inputValue()).toBe(`Where is the offsite? ${BACKGROUND[1].text}`);
    await panel.close();
    await page.close();
  });

  it('inserts into a contenteditable through the panel', async () => {
    const { page, tabId } = await h.openPage('/fixtures/contenteditable.html');
    await page.locator('#editor').click();
    await page.keyboard.type('Notes on the Lisbon offsite hotel: ');
    const panel = await h.openPanel(tabId);
    await waitForState(panel, 'found');
    await panel.locator('[data-testid="card"][data-id="offsite"] [data-testid="card-insert"]').click();
    await expect.poll(() => page.locator('#editor').innerText()).toContain(BACKGROUND[1].text);
    expect(await page.locator('#editor').innerText()).toMatch(/^Notes on the Lisbon offsite hotel:/);
    await panel.close();
    await page.close();
  });

  it('inserts the top card with the insert-top-card command, into a textarea and a contenteditable', async () => {
    const a = await h.openPage('/fixtures/textarea.html');
    await a.page.locator('#field').click();
    await a.page.locator('#field').pressSequentially('When are Acme invoices due? ', { delay: 5 });
    await a.page.waitForTimeout(400); // the content script's debounce
    await h.command('insert-top-card', a.tabId);
    await expect.poll(() => a.page.locator('#field').inputValue(), { timeout: 30_000 }).toContain(BACKGROUND[2].text);
    await a.page.close();

    const b = await h.openPage('/fixtures/contenteditable.html');
    await b.page.locator('#editor').click();
    await b.page.keyboard.type('tomato seedlings planting out: ');
    await b.page.waitForTimeout(400);
    await h.command('insert-top-card', b.tabId);
    await expect.poll(() => b.page.locator('#editor').innerText(), { timeout: 30_000 }).toContain(BACKGROUND[0].text);
    await b.page.close();
  });

  it('the panel keeps showing the newest ranking while other rankings of the same tab run', async () => {
    const { page, tabId } = await h.openPage('/fixtures/textarea.html');
    const panel = await h.openPanel(tabId);
    await waitForState(panel, 'watching');
    // Other callers rank the tab all the time (here: worker calls, as the insert-top-card shortcut does).
    let busy = true;
    const others = Array.from({ length: 3 }, async () => {
      while (busy) await h.call('panel:get', { tabId });
    });
    try {
      await page.locator('#field').click();
      await page.locator('#field').pressSequentially('Which hotel is the Lisbon offsite near?', { delay: 5 });
      await expect.poll(async () => (await cardIds(panel))[0], { timeout: 30_000 }).toBe('offsite');
      await page.locator('#field').fill('');
      await page.locator('#field').pressSequentially('When are Acme invoices due?', { delay: 5 });
      await expect.poll(async () => (await cardIds(panel))[0], { timeout: 30_000 }).toBe('invoice');
    } finally {
      busy = false;
      await Promise.all(others);
    }
    await panel.close();
    await page.close();
  });

  it('keeps memory, embeddings and ranking after the service worker is stopped and restarted', async () => {
    await h.restartServiceWorker();
    const { items } = await h.call<{ items: { id: string }[] }>('memory:list', {});
    expect(items.map((i) => i.id)).toContain(rememberedId);
    const { page, tabId } = await h.openPage('/fixtures/textarea.html');
    const panel = await h.openPanel(tabId);
    await page.locator('#field').click();
    const ask = 'retry storm after the API outage, what backoff did we agree?';
    await page.locator('#field').pressSequentially(ask, { delay: 5 });
    const state = await rankedFor(tabId, ask);
    expect(state.cards[0].item.id).toBe(rememberedId);
    await expect.poll(async () => (await cardIds(panel))[0], { timeout: 30_000 }).toBe(rememberedId);
    expect(state.model.state).toBe('ready');
    expect(state.cards[0].factors.semantic).toBeGreaterThan(0.3);
    await panel.close();
    await page.close();
  });
});
