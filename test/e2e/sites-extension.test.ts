/**
 * Site adapters through the built extension: the content script on the real hostnames (served from the fixture pages
 * by the router) reports the site's reading to the service worker, and inserts into the sites' own fields.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { launchExtension, type Harness } from './harness';
import { openTab } from './tab-probes';
import { buildFixtures } from './fixtures/build';
import { routeFixtures } from './fixtures/editors/serve';
import { SITE_MAP, SITE_URLS } from './fixtures/sites/pages';
import type { PanelState } from '../../lib/messaging/protocol';
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
});
afterAll(async () => {
  await h?.close();
});

const openSite = (url: string, waitFor: string) => openTab(h, url, waitFor);

const task = async (tabId: number) => (await h.call<PanelState>('panel:get', { tabId })).task;

/** The text of Backstory's hint on the page, which it draws in a closed shadow root (read through DevTools, as seen). */
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

describe('a long document', () => {
  const topCard = (panel: Page) => panel.locator('[data-testid="card"]').first().getAttribute('data-id', { timeout: 1000 }).catch(() => null);

  for (const [kind, sel, hiring, budget] of [
    ['rich document (contenteditable)', '#doc', '#hiring-p', '#budget-p'],
    ['Markdown textarea', '#md', 'interview loop', 'hardware line'],
  ] as const) {
    it(`${kind}: the top card follows the caret from one section to another, live, with the panel open`, async () => {
      const { page, tabId } = await h.openPage('/fixtures/long-doc.html');
      const panel = await h.openPanel(tabId);
      const caretAt = async (where: string) => {
        if (where.startsWith('#')) return page.click(where);
        // In the textarea: put the caret just after the words' first letter, then step back onto them with the
        // arrow key, as the user would (a page's synthetic keyup moves nothing).
        await page.focus(sel);
        await page.$eval(sel, (el, w) => {
          const ta = el as HTMLTextAreaElement;
          const at = ta.value.indexOf(w) + 1;
          ta.setSelectionRange(at, at);
        }, where);
        await page.keyboard.press('ArrowLeft');
      };
      await caretAt(hiring);
      await expect.poll(() => topCard(panel), { timeout: 30_000 }).toBe('hiring');
      await caretAt(budget);
      await expect.poll(() => topCard(panel), { timeout: 30_000 }).toBe('budget');
      // The document itself did not change: only the caret moved.
      expect((await task(tabId))?.ask).toMatch(/^Budget\nThe quarterly budget review/);
      await panel.close();
      await page.close();
    });
  }
});

describe('site adapters in the extension', () => {
  it('Gmail reply: the worker gets the gmail reading, and a card goes into the body once, not read back', async () => {
    const field = '[role="main"] [aria-label="Message Body"]';
    const { page, tabId } = await openSite(SITE_URLS.gmailReply, field);
    await page.click(field);
    await page.keyboard.press('Control+Home');
    await page.keyboard.type('About the hardware line in the Q3 budget: ');
    await expect.poll(async () => (await task(tabId))?.adapter, { timeout: 30_000 }).toBe('gmail');
    await expect.poll(async () => (await task(tabId))?.ask, { timeout: 30_000 }).toContain('About the hardware line in the Q3 budget:');
    const t = (await task(tabId))!;
    expect(t.subject).toBe('Re: Q3 budget review');
    expect(t.people).toEqual(expect.arrayContaining(['Ana Lima', 'ana@example.com']));
    expect(t.ask).toContain('hardware line');

    const outcome = await h.call<InsertOutcome>('card:insert', { tabId, id: NOTE.id });
    expect(outcome).toMatchObject({ ok: true, technique: 'execCommand', editor: 'contenteditable' });
    const text = await page.$eval(field, (el) => (el as HTMLElement).innerText);
    expect(text.replace(/\n+/g, '\n')).toContain('About the hardware line in the Q3 budget: Q3 budget: hardware line is 12k\nTravel moved to Q4');
    await page.waitForTimeout(600);
    expect((await task(tabId))?.ask).not.toContain('Travel moved to Q4');
    await page.close();
  });

  for (const [name, url, prompt] of [
    ['chatgpt', SITE_URLS.chatgpt, '#prompt-textarea'],
    ['claude', SITE_URLS.claude, '[data-testid="chat-input"]'],
  ] as const) {
    it(`${name}: the prompt box is read and a card goes into its ProseMirror editor`, async () => {
      const { page, tabId } = await openSite(url, `${prompt}[contenteditable="true"]`);
      await page.click(prompt);
      await page.keyboard.type('Summarise the Q3 budget for me: ');
      await expect.poll(async () => (await task(tabId))?.adapter, { timeout: 30_000 }).toBe(name);
      // Readings arrive as the user types (50 ms debounce): wait for the one with the whole ask.
      await expect.poll(async () => (await task(tabId))?.ask, { timeout: 30_000 }).toContain('Summarise the Q3 budget for me:');
      const outcome = await h.call<InsertOutcome>('card:insert', { tabId, id: NOTE.id });
      expect(outcome).toMatchObject({ ok: true, editor: 'prosemirror' });
      const model = await page.evaluate(() => (window as any).__fixture.text());
      expect(model).toBe('Summarise the Q3 budget for me: Q3 budget: hardware line is 12k\nTravel moved to Q4 (Lisbon offsite)');
      await page.close();
    });
  }

  it('Google Docs: the main-world script gets the annotated layer, the section at the caret reaches the worker, a card is typed once', async () => {
    const { page, tabId } = await openSite(SITE_URLS.gdocs, '#canvas');
    // The flag was set by Backstory's main-world script before the page's own code ran: the layer is there.
    expect(await page.evaluate(() => (window as any).__docs.annotated())).toBe(true);
    const box = await page.evaluate(() => {
      const r = Array.from(document.querySelectorAll('.kix-canvas-tile-content svg rect[aria-label]')).find((x) => x.getAttribute('aria-label')!.includes('interview loop'))!;
      const b = r.getBoundingClientRect();
      return { x: b.left + 30, y: b.top + b.height / 2 };
    });
    await page.mouse.click(box.x, box.y);
    await expect.poll(async () => (await task(tabId))?.adapter, { timeout: 30_000 }).toBe('gdocs');
    await expect.poll(async () => (await task(tabId))?.ask, { timeout: 30_000 }).toMatch(/^Hiring\nWe are hiring a backend engineer/);
    const outcome = await h.call<InsertOutcome>('card:insert', { tabId, id: NOTE.id });
    expect(outcome).toMatchObject({ ok: true, technique: 'paste' });
    const text: string = await page.evaluate(() => (window as any).__docs.text());
    expect(text.split('Q3 budget: hardware line is 12k').length - 1).toBe(1);
    expect(text).toContain('Q3 budget: hardware line is 12k\nTravel moved to Q4 (Lisbon offsite)');
    await page.close();
  });

  it('Google Docs as Backstory meets it (canvas only, no text layer): insert-top-card puts the card on the clipboard and says "press Ctrl+V", typing nothing; the selection and the document’s own text are read', async () => {
    await h.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: 'https://docs.google.com' });
    const { page, tabId } = await openSite(SITE_URLS.gdocsCanvasOnly, '#canvas');
    expect(await page.evaluate(() => (window as any).__docs.annotated())).toBe(false);
    expect(await page.locator('.kix-canvas-tile-content svg rect').count()).toBe(0);
    // The user selects "backend engineer" on the canvas: click before it, shift+click after it.
    const from = await page.evaluate(() => (window as any).__docs.pointAt('backend engineer'));
    const to = await page.evaluate(() => (window as any).__docs.pointAt('backend engineer', true));
    await page.mouse.click(from.x, from.y);
    await page.keyboard.down('Shift');
    await page.mouse.click(to.x, to.y);
    await page.keyboard.up('Shift');
    await page.evaluate(() => navigator.clipboard.writeText('(what the user copied before)'));
    const before: string = await page.evaluate(() => (window as any).__docs.text());

    await h.command('insert-top-card', tabId);
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText()), { timeout: 30_000 }).toBe(HIRING.text);
    await expect.poll(() => hintText(page)).toMatch(/press Ctrl\+V/);
    expect(await page.locator('[data-backstory-hint]').isVisible()).toBe(true);
    expect(await page.evaluate(() => (window as any).__docs.text())).toBe(before);

    const t = (await task(tabId))!;
    expect(t.adapter).toBe('gdocs');
    expect(t.subject).toBe('Northwind 2027 plan');
    // The document's own text, from Docs' export in the user's session: the paragraph the selection is in.
    expect(t.ask).toContain('We are hiring a backend engineer for the payments squad.');
    await page.close();
  });

  it('Gmail page without Gmail structure: the generic reading still reaches the worker', async () => {
    const { page, tabId } = await openSite(SITE_URLS.gmailChanged, '#sig');
    await page.click('#sig');
    await page.keyboard.type(' - Q3 budget owner');
    await expect.poll(async () => (await task(tabId))?.ask ?? '', { timeout: 30_000 }).toContain('Q3 budget owner');
    expect((await task(tabId))?.adapter).toBe('generic');
    await page.close();
  });
});
