/**
 * Sites as they are drawn now, through the built extension: Notion's one editable root (the block the panel ranks
 * on, and a card in exactly once or on the clipboard with the hint), Outlook in German and Japanese, Gmail's thread
 * from the legacy id, and a known site stripped of its landmarks (cards from the field, the reading note, Why?,
 * Diagnose this page).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { launchExtension, type Harness } from './harness';
import { openTab } from './tab-probes';
import { buildFixtures } from './fixtures/build';
import { routeFixtures } from './fixtures/editors/serve';
import { SITE_MAP, SITE_URLS } from './fixtures/sites/pages';
import type { PanelState, SiteDiagnosis } from '../../lib/messaging/protocol';
import type { InsertOutcome } from '../../lib/insert/index';

const NOTE = { id: 'budget', text: 'Q3 budget: hardware line is 12k\nTravel moved to Q4 (Lisbon offsite)' };
const HIRING = { id: 'hiring', text: 'Backend engineer hiring for payments: four interview stages, decision before the holidays, start in February' };
const LAUNCH = { id: 'launch', text: 'Beta launch for design partners: the support runbook and the status page are owned by Sam' };
let h: Harness;

beforeAll(async () => {
  await buildFixtures();
  h = await launchExtension();
  await routeFixtures(h.context, SITE_MAP);
  await h.seed([NOTE, HIRING, LAUNCH]);
  await h.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: 'https://www.notion.so' });
});
afterAll(async () => {
  await h?.close();
});

const task = async (tabId: number) => (await h.call<PanelState>('panel:get', { tabId })).task;
const topCard = (panel: Page) => panel.locator('[data-testid="card"]').first().getAttribute('data-id', { timeout: 1000 }).catch(() => null);
const blocks = (page: Page): Promise<string[]> => page.evaluate(() => (window as any).__notion.blocks());
const times = (list: string[], text: string) => list.join('\n').split(text).length - 1;

/** The text of Backstory's hint on the page, drawn in a closed shadow root (read through DevTools). */
async function hintText(page: Page): Promise<string> {
  const cdp = await page.context().newCDPSession(page);
  try {
    const { root } = (await cdp.send('DOM.getDocument', { depth: -1, pierce: true })) as { root: DomNode };
    const texts: string[] = [];
    const walk = (n: DomNode, inHint: boolean) => {
      const hint = inHint || !!n.attributes?.includes('data-backstory-hint');
      if (hint && n.nodeType === 3) texts.push(n.nodeValue ?? '');
      for (const c of [...(n.children ?? []), ...(n.shadowRoots ?? [])]) walk(c, hint);
    };
    walk(root, false);
    return texts.join('');
  } finally {
    await cdp.detach();
  }
}
interface DomNode {
  nodeType: number;
  nodeValue?: string;
  attributes?: string[];
  children?: DomNode[];
  shadowRoots?: DomNode[];
}

describe('Notion with one editable root over the page', () => {
  it('the panel ranks on the block at the caret, read through the root; no reading note; a card goes in exactly once', async () => {
    const { page, tabId } = await openTab(h, SITE_URLS.notionRoot, '#root');
    const panel = await h.openPanel(tabId);
    await page.click('#launch-leaf');
    await page.keyboard.press('End');
    await page.keyboard.type('?');
    await expect.poll(async () => (await task(tabId))?.ask, { timeout: 30_000 }).toBe(
      'Launch\nThe beta launch for design partners is in March.\nWho owns the support runbook and the status page?',
    );
    await expect.poll(() => topCard(panel), { timeout: 30_000 }).toBe('launch');
    await page.click('#hiring-leaf');
    await page.keyboard.press('End');
    await page.keyboard.type(' before the holidays');
    await expect.poll(() => topCard(panel), { timeout: 30_000 }).toBe('hiring');
    const t = (await task(tabId))!;
    expect(t.adapter).toBe('notion');
    expect(t.ask).toMatch(/^Hiring\n/);
    expect(t.ask).not.toContain('beta launch');
    expect(t.landmarks?.found).toContain('block at the caret');
    expect(await panel.locator('[data-testid="reading-note"]').count()).toBe(0);

    // The user reads the cards before choosing one: the caret has not moved for a while.
    await page.waitForTimeout(1200);
    const before = await blocks(page);
    const outcome = await h.call<InsertOutcome>('card:insert', { tabId, id: NOTE.id });
    expect(outcome, JSON.stringify(outcome)).toMatchObject({ ok: true, technique: 'paste' });
    const after = await blocks(page);
    // Two lines, two blocks: the first joins the caret's block, the second is a block of its own; each once.
    expect(after.length).toBe(before.length + 1);
    expect(after).toContain('Decide on the hiring timeline before the holidaysQ3 budget: hardware line is 12k');
    expect(times(after, 'Travel moved to Q4 (Lisbon offsite)')).toBe(1);
    expect(await page.evaluate(() => (window as any).__notion.counts().reverts)).toBe(0);
    // What went in is not read back as the user's ask.
    await page.waitForTimeout(600);
    expect((await task(tabId))?.ask).not.toContain('Travel moved to Q4');
    await panel.close();
    await page.close();
  });

  it('focus left the page: the caret goes back to its block and settles before the write, so Notion keeps it', async () => {
    const { page, tabId } = await openTab(h, SITE_URLS.notionRootAgain, '#root');
    await page.click('#launch-leaf');
    await page.keyboard.press('End');
    await page.keyboard.type(' ');
    await expect.poll(async () => (await task(tabId))?.ask ?? '', { timeout: 30_000 }).toMatch(/^Launch\n/);
    await page.focus('#outside');
    const outcome = await h.call<InsertOutcome>('card:insert', { tabId, id: LAUNCH.id });
    expect(outcome, JSON.stringify(outcome)).toMatchObject({ ok: true, technique: 'paste' });
    expect(times(await blocks(page), LAUNCH.text)).toBe(1);
    expect(await page.evaluate(() => (window as any).__notion.counts())).toEqual({ pastes: 1, reverts: 0 });
    await page.close();
  });

  it('Notion takes the text back within its window: not counted as inserted, the card is on the clipboard with the hint, the page does not hold it', async () => {
    const { page, tabId } = await openTab(h, SITE_URLS.notionRootOnceMore, '#root');
    await page.click('#hiring-leaf');
    await page.keyboard.press('End');
    await expect.poll(async () => (await task(tabId))?.ask ?? '', { timeout: 30_000 }).toMatch(/^Hiring\n/);
    await page.waitForTimeout(1200);
    await page.evaluate(() => navigator.clipboard.writeText('(what the user copied before)'));
    await page.evaluate(() => (window as any).__notion.revertNext());
    const outcome = await h.call<InsertOutcome>('card:insert', { tabId, id: HIRING.id });
    expect(outcome, JSON.stringify(outcome)).toMatchObject({ ok: false, technique: 'clipboard' });
    expect(outcome.hint).toMatch(/clipboard.*Ctrl\+V/);
    expect(await page.evaluate(() => (window as any).__notion.counts())).toEqual({ pastes: 1, reverts: 1 });
    expect(times(await blocks(page), HIRING.text)).toBe(0);
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(HIRING.text);
    await expect.poll(() => hintText(page)).toMatch(/press Ctrl\+V/);
    await page.close();
  });
});

describe('mail in other interface languages, and threads by either id', () => {
  for (const [url, lang] of [[SITE_URLS.outlookDe, 'German'], [SITE_URLS.outlookJa, 'Japanese']] as const) {
    it(`Outlook in ${lang}: the worker gets the recipients and the subject with the body being written`, async () => {
      const { page, tabId } = await openTab(h, url, '[aria-multiline="true"]');
      await page.click('[aria-multiline="true"] div');
      await page.keyboard.press('End');
      await page.keyboard.type(' Q3 budget');
      await expect.poll(async () => (await task(tabId))?.ask ?? '', { timeout: 30_000 }).toContain('Q3 budget');
      const t = (await task(tabId))!;
      expect(t.adapter).toBe('outlook');
      expect(t.people).toEqual(['Ana Lima', 'ana@example.com', 'Raj Patel', 'raj@example.org', 'dee@example.com']);
      expect(t.subject).toBeTruthy();
      await page.close();
    });
  }

  it('Gmail with only the hex thread id: the worker gets the thread the mbox import names', async () => {
    const field = '[role="main"] [aria-label="Message Body"]';
    const { page, tabId } = await openTab(h, SITE_URLS.gmailLegacyThread, field);
    await page.click(field);
    await page.keyboard.type('About the hardware line: ');
    await expect.poll(async () => (await task(tabId))?.adapter, { timeout: 30_000 }).toBe('gmail');
    const sw = await h.serviceWorker();
    const stored = (await sw.evaluate((id) => chrome.storage.session.get(`task:${id}`), tabId)) as Record<string, { thread?: { id: string } }>;
    expect(stored[`task:${tabId}`].thread).toEqual({ id: 'mail-thread:1790000000000000001' });
    await page.close();
  });
});

describe('a known site stripped of its landmarks', () => {
  it('cards still come from the field; the panel says what it cannot read; Why? says the cards come from the field alone; Diagnose lists names only', async () => {
    const { page, tabId } = await openTab(h, SITE_URLS.gmailChanged, '#sig');
    const panel = await h.openPanel(tabId);
    await page.click('#sig');
    await page.keyboard.press('End');
    await page.keyboard.type(' - Q3 budget owner, hardware line');
    await expect.poll(() => topCard(panel), { timeout: 30_000 }).toBe('budget');
    const note = panel.locator('[data-testid="reading-note"]');
    await expect.poll(() => note.isVisible(), { timeout: 30_000 }).toBe(true);
    const words = await note.innerText();
    expect(words).toContain('Gmail');
    expect(words).toMatch(/recipients/);
    expect(words).toMatch(/only the field you are typing in/);
    await panel.locator('[data-testid="card-why"]').first().click();
    expect(await panel.locator('[data-testid="card-why-field-only"]').first().innerText()).toMatch(/field you are typing in alone/);

    // Diagnose this page, from the options page: the last page read, its landmarks by name, none of its text.
    const options = await h.extensionPage();
    await options.bringToFront();
    await options.reload();
    await options.locator('[data-testid="diagnose-page"]').click();
    const report = await options.locator('[data-testid="diagnose-report"]').innerText();
    expect(report).toContain('Page: mail.google.com');
    expect(report).toContain('Site adapter: Gmail');
    expect(report).toContain('Found: none');
    expect(report).toContain('Missing: compose body, subject, recipients, thread id, messages, mail view');
    expect(report).not.toMatch(/Q3 budget|hardware|hunter2|Signature/);
    const direct = await h.call<SiteDiagnosis>('site:diagnose', { tabId });
    expect(direct).toMatchObject({ site: 'mail.google.com', adapter: 'gmail', fieldOnly: true, found: [] });

    // Where the landmarks are, there is no note.
    const notion = await openTab(h, SITE_URLS.notionRoot, '#root');
    await notion.page.click('#launch-leaf');
    const panel2 = await h.openPanel(notion.tabId);
    await expect.poll(async () => (await task(notion.tabId))?.adapter, { timeout: 30_000 }).toBe('notion');
    await panel2.waitForSelector('[data-testid="status"]');
    expect(await panel2.locator('[data-testid="reading-note"]').count()).toBe(0);
    await panel2.close();
    await notion.page.close();
    await panel.close();
    await page.close();
  });
});
