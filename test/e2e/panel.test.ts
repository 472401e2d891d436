import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { PanelState } from '../../lib/messaging/protocol';
import { launchExtension, type Harness } from './harness';
import { routeFixtures } from './fixtures/editors/serve';
import { SITE_MAP, SITE_URLS } from './fixtures/sites/pages';

// The side panel's everyday flows, in headless Chromium with the built extension and the real model.
let h: Harness;

const ITEMS = [
  { id: 'budget', title: 'Q3 budget numbers', text: 'Q3 budget: the hardware line is 12k and travel moved to Q4.', people: ['Priya Shah'], tags: ['budget', 'q3'],
    source: { url: 'https://docs.example.com/q3', title: 'Q3 plan' }, createdAt: new Date(Date.now() - 3 * 86_400_000).toISOString() },
  { id: 'tone', kind: 'instruction', title: 'Tone', text: 'Keep replies short and put the numbers first.', tags: ['style'] },
  { id: 'offsite', title: 'Offsite', text: 'The team offsite is in Lisbon on November 18-19; the hotel is near Cais do Sodré.', tags: ['travel'] },
  { id: 'garden', title: 'Tomatoes', text: 'Tomato seedlings need hardening off for a week before planting out.', tags: ['garden'] },
  { id: 'q2', title: 'Q2 review', text: 'The Q2 budget review was postponed to July because finance was short-staffed.', tags: ['budget'] },
];
const ASK = 'What is the Q3 budget for hardware and travel?';

beforeAll(async () => {
  h = await launchExtension();
  await routeFixtures(h.context, SITE_MAP);
  await h.seed(ITEMS);
});
afterAll(async () => {
  await h?.close();
});

const ids = (panel: Page) => panel.locator('[data-testid="card"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-id') ?? ''));
const waitState = (panel: Page, s: string) => panel.locator(`[data-testid="status"][data-state="${s}"]`).waitFor({ timeout: 60_000 });
const card = (panel: Page, id: string) => panel.locator(`[data-testid="card"][data-id="${id}"]`);
/** Copy, Edit, Source and Delete sit in each card's "more" menu. */
const fromMenu = async (panel: Page, id: string, action: string) => {
  await card(panel, id).locator('[data-testid="card-more"]').click();
  await card(panel, id).locator(`[data-testid="${action}"]`).click();
};

let n = 0;
async function writeTask(text: string) {
  // A unique URL per test: the harness finds the tab by URL, and a failed test may leave its page open.
  const { page, tabId } = await h.openPage(`/fixtures/textarea.html?t=${++n}`);
  const panel = await h.openPanel(tabId);
  await waitState(panel, 'watching');
  await page.locator('#field').click();
  await page.locator('#field').pressSequentially(text, { delay: 2 });
  return { page, panel, tabId };
}

describe('side panel', () => {
  it('shows ranked cards with marked words, kind badge, source and age; search asks memory directly', async () => {
    const { page, panel } = await writeTask(ASK);
    await waitState(panel, 'found');
    // Standing instructions come first; the evidence follows in score order.
    const order = await ids(panel);
    expect(order.filter((id) => id !== 'tone')[0]).toBe('budget');
    expect(order.indexOf('garden')).toBe(-1);
    const top = card(panel, 'budget');
    expect(await top.getAttribute('data-kind')).toBe('evidence');
    expect(await top.locator('[data-testid="card-title"]').innerText()).toBe('Q3 budget numbers');
    await expect.poll(async () => (await top.locator('mark').allInnerTexts()).map((m) => m.toLowerCase()), { timeout: 30_000 })
      .toEqual(expect.arrayContaining(['budget', 'hardware']));
    expect(await top.locator('[data-testid="card-meta"]').innerText()).toMatch(/docs\.example\.com — Q3 plan · Priya Shah · 3 days ago/);
    expect(await card(panel, 'tone').locator('[data-testid="card-kind"]').innerText()).toMatch(/instruction/i);
    expect(await panel.locator('[data-testid="status"]').innerText()).toMatch(/cards? for this task/);

    await panel.locator('[data-testid="search"]').fill('Lisbon hotel');
    await expect.poll(async () => (await ids(panel)).filter((id) => id !== 'tone')[0], { timeout: 30_000 }).toBe('offsite');
    expect(await panel.locator('[data-testid="status"]').innerText()).toMatch(/for your search/);
    await panel.locator('[data-testid="search"]').press('Escape');
    await expect.poll(async () => (await ids(panel)).filter((id) => id !== 'tone')[0], { timeout: 30_000 }).toBe('budget');
    await panel.close();
    await page.close();
  });

  it('keeps the cards on screen while the page is read again and re-ranked, rather than blanking them', async () => {
    const { page, panel } = await writeTask(ASK);
    await waitState(panel, 'found');
    // Every state the panel shows from here on: its status and how many cards are on screen.
    await panel.evaluate(() => {
      const seen: [string, number][] = [];
      (window as unknown as { seen: typeof seen }).seen = seen;
      const note = () => seen.push([document.querySelector('[data-testid="status"]')?.getAttribute('data-state') ?? '', document.querySelectorAll('[data-testid="card"]').length]);
      new MutationObserver(note).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
    });
    await page.locator('#field').pressSequentially(' And the travel line?', { delay: 2 });
    const seen = () => panel.evaluate(() => (window as unknown as { seen: [string, number][] }).seen);
    // The re-read shows "searching", then the new ranking.
    await expect.poll(async () => {
      const states = (await seen()).map(([s]) => s);
      const i = states.indexOf('searching');
      return i >= 0 && states.slice(i).includes('found');
    }, { timeout: 30_000 }).toBe(true);
    expect(Math.min(...(await seen()).map(([, cards]) => cards))).toBeGreaterThan(0);
    await panel.close();
    await page.close();
  });

  it('explains a card in plain words with factor bars, and reaches left-out items ("why not?")', async () => {
    const { page, panel } = await writeTask(ASK);
    await waitState(panel, 'found');
    const top = card(panel, 'budget');
    await top.locator('[data-testid="card-why"]').click();
    const why = top.locator('[data-testid="card-why-text"]');
    expect(await why.locator('.why-line').innerText()).toMatch(/^matches “.+”.*; 3 days old$/);
    expect(await why.locator('.bar-row').count()).toBeGreaterThan(0);
    expect(await top.locator('[data-testid="card-why"]').getAttribute('aria-expanded')).toBe('true');
    await panel.locator('[data-testid="why-not"] summary').click();
    const left = panel.locator('[data-testid="why-not-item"]');
    expect(await left.count()).toBeGreaterThan(0);
    const shown = new Set(await ids(panel));
    for (const id of await left.evaluateAll((els) => els.map((e) => e.getAttribute('data-id')!))) expect(shown.has(id)).toBe(false);
    // The words an entry matched are read from its item once the list is open: the worker writes them as the item does.
    await expect.poll(() => left.first().locator('.muted').innerText()).not.toBe('');
    expect(await h.call('trace:words', { items: [{ id: 'q2', terms: ['juli', 'postpon', 'financ'] }] })).toEqual({ words: [['July', 'postponed', 'finance']] });
    await panel.close();
    await page.close();
  });

  it('previews the package against the budget, follows the selection, and inserts all', async () => {
    const { page, panel } = await writeTask(ASK);
    await waitState(panel, 'found');
    await panel.locator('[data-testid="package"] summary').click();
    const meter = panel.locator('[data-testid="package-meter"]');
    const [value, max] = await meter.evaluate((m: HTMLMeterElement) => [m.value, m.max]);
    expect(max).toBe(800);
    expect(value).toBeGreaterThan(0);
    expect(value).toBeLessThanOrEqual(max);
    const text = panel.locator('[data-testid="package-text"]');
    await expect.poll(() => text.innerText(), { timeout: 30_000 }).toContain('hardware line is 12k');
    expect(await text.innerText()).toContain('Keep replies short');
    await card(panel, 'tone').locator('[data-testid="card-select"]').uncheck();
    await expect.poll(() => text.innerText()).not.toMatch(/Keep replies short|Building/);
    expect(await text.innerText()).toContain('hardware line is 12k');
    expect(Number(await panel.locator('[data-testid="package-tokens"]').innerText())).toBeLessThan(value);
    await panel.locator('[data-testid="package-insert"]').click();
    await expect.poll(() => page.locator('#field').inputValue(), { timeout: 30_000 }).toContain('hardware line is 12k');
    expect(await page.locator('#field').inputValue()).not.toContain('Keep replies short');
    await panel.locator('[data-testid="toast"]').getByText(/Inserted/).waitFor();
    await panel.close();
    await page.close();
  });

  it('moves through cards with the arrow keys, shows focus, and inserts with Enter', async () => {
    const { page, panel } = await writeTask(ASK + ' ');
    await waitState(panel, 'found');
    const order = await ids(panel);
    expect(order.length).toBeGreaterThan(1);
    await panel.locator('[data-testid="search"]').focus();
    await panel.keyboard.press('ArrowDown');
    expect(await panel.evaluate(() => document.activeElement?.getAttribute('data-id'))).toBe(order[0]);
    await panel.keyboard.press('ArrowDown');
    expect(await panel.evaluate(() => document.activeElement?.getAttribute('data-id'))).toBe(order[1]);
    const outline = await panel.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle);
    expect(outline).not.toBe('none');
    await panel.keyboard.press('ArrowUp');
    await panel.keyboard.press('Enter');
    const first = ITEMS.find((i) => i.id === order[0])!;
    await expect.poll(() => page.locator('#field').inputValue(), { timeout: 30_000 }).toBe(ASK + ' ' + first.text);
    // Every control has an accessible name.
    const unnamed = await panel.evaluate(() =>
      [...document.querySelectorAll('button, input, select, textarea')].filter((el) => {
        const e = el as HTMLElement;
        return !(e.getAttribute('aria-label') || e.textContent?.trim() || (e as HTMLInputElement).labels?.length || e.getAttribute('title'));
      }).length,
    );
    expect(unnamed).toBe(0);
    await panel.close();
    await page.close();
  });

  it('copies a card, and its body drags as text/plain', async () => {
    const { page, panel } = await writeTask(ASK);
    await waitState(panel, 'found');
    await fromMenu(panel, 'budget', 'card-copy');
    await panel.locator('[data-testid="toast"]').getByText('Copied.').waitFor();
    const dragged = await card(panel, 'budget').evaluate((el) => {
      const dt = new DataTransfer();
      el.dispatchEvent(new DragEvent('dragstart', { dataTransfer: dt, bubbles: true }));
      return { text: dt.getData('text/plain'), draggable: (el as HTMLElement).draggable };
    });
    expect(dragged).toEqual({ text: ITEMS[0].text, draggable: true });
    await panel.close();
    await page.close();
  });

  it('pins, dismisses ("not useful here"), edits, and deletes with undo', async () => {
    const { page, panel } = await writeTask(ASK);
    await waitState(panel, 'found');
    const list = async () => (await h.call<{ items: { id: string; pinned: boolean; title: string }[] }>('memory:list', {})).items;

    await card(panel, 'budget').locator('[data-testid="card-pin"]').click();
    await expect.poll(async () => (await list()).find((i) => i.id === 'budget')?.pinned).toBe(true);
    await expect.poll(() => card(panel, 'budget').locator('[data-testid="card-pin"]').getAttribute('aria-pressed')).toBe('true');
    await card(panel, 'budget').locator('[data-testid="card-pin"]').click();
    await expect.poll(async () => (await list()).find((i) => i.id === 'budget')?.pinned).toBe(false);

    await fromMenu(panel, 'budget', 'card-edit');
    await card(panel, 'budget').locator('[data-testid="edit-title"]').fill('Q3 budget (final)');
    await card(panel, 'budget').locator('[data-testid="edit-save"]').click();
    await expect.poll(() => card(panel, 'budget').locator('[data-testid="card-title"]').innerText(), { timeout: 30_000 }).toBe('Q3 budget (final)');

    const victim = (await ids(panel)).includes('q2') ? 'q2' : 'tone';
    await fromMenu(panel, victim, 'card-delete');
    await expect.poll(async () => (await list()).some((i) => i.id === victim)).toBe(false);
    await panel.locator('[data-testid="undo"]').click();
    await expect.poll(async () => (await list()).some((i) => i.id === victim), { timeout: 30_000 }).toBe(true);

    await card(panel, 'budget').locator('[data-testid="card-dismiss"]').click();
    await expect.poll(async () => (await ids(panel)).includes('budget'), { timeout: 30_000 }).toBe(false);
    expect((await list()).some((i) => i.id === 'budget')).toBe(true); // still in memory
    await panel.close();
    await page.close();
  });

  it('says honestly when nothing is relevant, with a hint', async () => {
    const { page, panel } = await writeTask('zebra xylophone quasar');
    await waitState(panel, 'empty');
    const empty = panel.locator('[data-testid="empty-state"]');
    expect(await empty.innerText()).toMatch(/Nothing in your memory is relevant/);
    expect(await empty.innerText()).toMatch(/search box|Remember this selection/);
    // No card under the empty state: the standing instruction that applies here is not shown on its own.
    expect(await ids(panel)).toEqual([]);
    await panel.close();
    await page.close();
  });

  it('browses memory: filters by kind, site, person and tag; edits; deletes with undo', async () => {
    const { page, tabId } = await h.openPage('/fixtures/textarea.html');
    const panel = await h.openPanel(tabId);
    await panel.locator('[data-testid="tab-memory"]').click();
    const rows = panel.locator('[data-testid="memory-item"]');
    await expect.poll(() => rows.count()).toBe(ITEMS.length);
    await panel.locator('[data-testid="memory-filter-kind"]').selectOption('instruction');
    await expect.poll(() => rows.count()).toBe(1);
    await panel.locator('[data-testid="memory-filter-kind"]').selectOption('');
    await panel.locator('[data-testid="memory-filter-tag"]').selectOption('budget');
    await expect.poll(() => rows.count()).toBe(2);
    await panel.locator('[data-testid="memory-filter-tag"]').selectOption('');
    await panel.locator('[data-testid="memory-filter-person"]').selectOption('Priya Shah');
    await expect.poll(() => rows.count()).toBe(1);
    await panel.locator('[data-testid="memory-filter-person"]').selectOption('');
    await panel.locator('[data-testid="memory-filter-site"]').selectOption('docs.example.com');
    await expect.poll(() => rows.count()).toBe(1);
    await panel.locator('[data-testid="memory-filter-site"]').selectOption('');
    await panel.locator('[data-testid="memory-filter-text"]').fill('lisbon');
    await expect.poll(() => rows.count()).toBe(1);
    const row = rows.first();
    await row.locator('[data-testid="memory-edit"]').click();
    await row.locator('[data-testid="edit-tags"]').fill('travel, lisbon');
    await row.locator('[data-testid="edit-kind-instruction"]').check();
    await row.locator('[data-testid="edit-save"]').click();
    await expect.poll(async () => (await h.call<{ items: { id: string; tags: string[]; kind: string }[] }>('memory:list', {})).items.find((i) => i.id === 'offsite'))
      .toMatchObject({ tags: ['travel', 'lisbon'], kind: 'instruction' });
    await row.locator('[data-testid="memory-delete"]').click();
    await expect.poll(() => rows.count()).toBe(0);
    await panel.locator('[data-testid="undo"]').click();
    await expect.poll(() => rows.count(), { timeout: 30_000 }).toBe(1);
    await panel.close();
    await page.close();
  });

  it('offers "save a note about <person>" for a recipient with no notes, and saves it even if the recipients change meanwhile', async () => {
    const page = await h.context.newPage();
    await page.goto(SITE_URLS.gmailCompose);
    const field = '[role="dialog"] [aria-label="Message Body"]';
    await page.waitForSelector(field);
    const sw = await h.serviceWorker();
    const tabId = (await sw.evaluate(async (u) => (await chrome.tabs.query({})).find((t) => t.url === u)?.id, page.url()))!;
    const panel = await h.openPanel(tabId);
    await page.click(field);
    await page.keyboard.type('Quick question about the offsite ');
    const offer = panel.locator('[data-testid="new-contact"]').filter({ hasText: 'Ana Lima' });
    await offer.waitFor({ timeout: 60_000 });
    await offer.locator('[data-testid="new-contact-add"]').click();
    const form = panel.locator('[data-testid="new-contact-form"]');
    await form.locator('[data-testid="edit-text"]').fill('Ana runs the Lisbon office and prefers calls before noon.');
    // The recipients change while the note is being written: the panel re-ranks (it now offers a note about Cy), and
    // the half-written note about Ana stays as it was.
    await page.evaluate(() => {
      const ana = document.querySelector('[role="option"][data-hovercard-id="ana@example.com"]')!;
      ana.setAttribute('data-hovercard-id', 'cy@example.com');
      ana.setAttribute('data-name', 'Cy Park');
      ana.querySelector('span')!.textContent = 'Cy Park';
    });
    await page.click(field);
    await page.keyboard.type('and the venue');
    await panel.locator('[data-testid="new-contact"]').filter({ hasText: 'Cy Park' }).waitFor({ timeout: 30_000 });
    expect(await form.locator('[data-testid="edit-text"]').inputValue()).toBe('Ana runs the Lisbon office and prefers calls before noon.');
    await form.locator('[data-testid="edit-save"]').click();
    await expect.poll(async () => (await h.call<{ items: { people: string[]; text: string }[] }>('memory:list', {})).items
      .find((i) => i.text.startsWith('Ana runs'))?.people.join(' '), { timeout: 30_000 }).toMatch(/Ana Lima|ana@example\.com/);
    await expect.poll(() => panel.locator('[data-testid="new-contact-form"]').count(), { timeout: 30_000 }).toBe(0);
    await panel.close();
    await page.close();
  });

  it('"why not?" counts every memory left out, lists the first, and finds one past them by its title', async () => {
    // Notes kept for this site, newest first by number: each is a candidate of every task here, and most are left
    // out. Seeded here, after the tests whose rankings they would change.
    const site = new URL(h.origin).hostname;
    await h.seed(Array.from({ length: 90 }, (_, k) => ({
      id: `kept${k}`, title: `Kept note ${k}${k === 83 ? ': the harbour picnic' : ''}`, text: `Parking at the office is free on ${k % 2 ? 'Fridays' : 'Mondays'} (${k}).`, sites: [site],
      createdAt: new Date(Date.now() - (k + 1) * 3_600_000).toISOString(),
    })));
    const { page, panel, tabId } = await writeTask(ASK);
    await waitState(panel, 'found');
    // What an update carries: the cards' entries and the first 40 left out, with the count of all.
    const state = await h.call<PanelState>('panel:get', { tabId });
    expect(state.trace.filter((e) => !e.included).length).toBe(40);
    expect(state.leftOut).toBeGreaterThan(85);
    const whyNot = panel.locator('[data-testid="why-not"]');
    await whyNot.locator('summary').click();
    const total = Number(/(\d+) left out/.exec(await whyNot.locator('summary').innerText())?.[1]);
    expect(total).toBeGreaterThan(85);
    const left = panel.locator('[data-testid="why-not-item"]');
    const listed = await left.evaluateAll((els) => els.map((e) => e.getAttribute('data-id')));
    expect(listed.length).toBe(40);
    // Not among those the update carried: the worker's search finds it, its title read.
    expect(listed).not.toContain('kept83');
    await whyNot.locator('.why-not-filter').fill('harbour');
    await expect.poll(() => left.evaluateAll((els) => els.map((e) => e.getAttribute('data-id'))), { timeout: 15_000 }).toEqual(['kept83']);
    expect(await left.first().locator('strong').innerText()).toBe('Kept note 83: the harbour picnic');
    await panel.close();
    await page.close();
  });

  it('switches off on a site from the panel, and follows the browser light or dark theme', async () => {
    const { page, panel } = await writeTask(ASK);
    await waitState(panel, 'found');
    await panel.locator('footer [data-testid="site-toggle"]').click();
    await panel.locator('[data-testid="paused"]').waitFor({ timeout: 30_000 });
    expect(await panel.locator('[data-testid="card"]').count()).toBe(0);
    await panel.locator('[data-testid="paused"] [data-testid="site-toggle"]').click();
    await waitState(panel, 'found');
    await panel.emulateMedia({ colorScheme: 'light' });
    const light = await panel.evaluate(() => getComputedStyle(document.body).backgroundColor);
    await panel.emulateMedia({ colorScheme: 'dark' });
    const dark = await panel.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(light).not.toBe(dark);
    await panel.close();
    await page.close();
  });
});
