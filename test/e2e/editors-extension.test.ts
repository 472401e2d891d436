/**
 * The same editor assertions as editors.test.ts, through the built extension: the side panel's insert button and the
 * insert-top-card command, reaching the content script's insertText. Needs `npm run build` (npm test builds first).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { launchExtension, type Harness } from './harness';
import { buildFixtures } from './fixtures/build';
import { routeFixtures } from './fixtures/editors/serve';
import { SITE_MAP } from './fixtures/sites/pages';
import { EDITOR_CASES, caseUrl, expected, model, prepare, type EditorCase } from './fixtures/editors/cases';

const CARD = { id: 'porto', text: 'Porto trip: stay in Cedofeita guesthouses\nBudget: 120 EUR a night' };
const OTHER = { id: 'garden', text: 'Tomato seedlings need hardening off for a week before planting out.' };
const TYPED = ' Porto trip budget?';

let h: Harness;

beforeAll(async () => {
  await buildFixtures();
  h = await launchExtension();
  await routeFixtures(h.context, SITE_MAP);
  await h.seed([CARD, OTHER]);
});
afterAll(async () => {
  await h?.close();
});

async function openTab(c: EditorCase): Promise<{ page: Page; tabId: number; selector: string }> {
  const page = await h.context.newPage();
  await page.goto(caseUrl(c));
  await page.waitForFunction(() => document.documentElement.dataset.fixtureReady === 'true', null, { timeout: 20_000 });
  const selector = await page.evaluate(() => (window as any).__fixture.selector as string);
  const sw = await h.serviceWorker();
  const url = page.url();
  const tabId = await sw.evaluate(async (u) => (await chrome.tabs.query({})).find((t) => t.url === u)?.id, url);
  if (tabId === undefined) throw new Error(`no tab for ${url}`);
  return { page, tabId, selector };
}

async function checkUndo(page: Page, pre: string): Promise<void> {
  await page.bringToFront();
  await page.keyboard.press('Control+z');
  await expect.poll(async () => (await model(page)).text, { timeout: 5_000 }).toBe(pre);
}

describe('insertion into editors through the extension', () => {
  for (const c of EDITOR_CASES) {
    it(`${c.name}: the panel's insert button (caret mid-text)`, async () => {
      const { page, tabId, selector } = await openTab(c);
      const { pre } = await prepare(page, selector, 'middle', TYPED);
      const panel = await h.openPanel(tabId);
      try {
        const insert = panel.locator(`[data-testid="card"][data-id="${CARD.id}"] [data-testid="card-insert"]`);
        await insert.waitFor({ timeout: 60_000 });
        await insert.click();
        const want = expected(pre, c, 'middle', CARD.text, TYPED);
        await expect.poll(async () => (await model(page)).text, { timeout: 10_000 }).toBe(want.text);
        expect((await model(page)).before).toBe(want.before);
        if (c.rerender) {
          await page.evaluate(() => (document.querySelector('#rerender') as HTMLButtonElement).click());
          await page.waitForTimeout(50);
          expect((await model(page)).text).toBe(want.text);
          await page.focus(selector);
        }
        // The content script verified the insertion and tagged the field (so the reading strips it).
        await expect.poll(() => page.$eval(selector, (el) => el.getAttribute('data-backstory-inserted')), { timeout: 5_000 }).toBe('1');
        await checkUndo(page, pre);
      } finally {
        await panel.close();
        await page.close();
      }
    });

    it(`${c.name}: the insert-top-card command (right after typing)`, async () => {
      const { page, tabId, selector } = await openTab(c);
      try {
        const { pre } = await prepare(page, selector, 'typing', TYPED);
        await page.waitForTimeout(400); // the content script's debounce
        await h.command('insert-top-card', tabId);
        const want = expected(pre, c, 'typing', CARD.text, TYPED);
        await expect.poll(async () => (await model(page)).text, { timeout: 30_000 }).toBe(want.text);
        expect((await model(page)).before).toBe(want.before);
        await expect.poll(() => page.$eval(selector, (el) => el.getAttribute('data-backstory-inserted')), { timeout: 5_000 }).toBe('1');
        await checkUndo(page, pre);
      } finally {
        await page.close();
      }
    });
  }
});
