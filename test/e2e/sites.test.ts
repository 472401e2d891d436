/**
 * Reading the task on the sites' fixture pages, served at the real hostnames, through the real lib/sites code
 * bundled for the page; plus insertion into the sites' own fields and the feedback guard.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, CHROMIUM_ARGS } from './harness';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { buildFixtures } from './fixtures/build';
import { FIXTURE_ORIGIN, routeFixtures } from './fixtures/editors/serve';
import { SITE_MAP, SITE_URLS } from './fixtures/sites/pages';

let browser: Browser;
let context: BrowserContext;

beforeAll(async () => {
  await buildFixtures();
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  context = await browser.newContext();
  await routeFixtures(context, SITE_MAP);
});
afterAll(async () => {
  await browser?.close();
});

interface Reading {
  adapter: string;
  site: string;
  field?: { text: string; kind: string; label?: string };
  selection?: string;
  subject?: string;
  people?: string[];
  turns?: string[];
  headings?: string[];
}

async function open(url: string, waitFor?: string, before?: () => Promise<void> | void): Promise<Page> {
  const page = await context.newPage();
  if (before) await page.addInitScript(before);
  await page.goto(url);
  if (waitFor) await page.waitForSelector(waitFor);
  await page.addScriptTag({ url: `${new URL(url).origin}/__fixtures/editors/dist/backstory-page.js` });
  await page.evaluate(() => {
    const w = window as any;
    w.__readings = [];
    w.__watcher = w.__backstory.watchTask(document, (r: unknown) => w.__readings.push(r), 40);
  });
  return page;
}
const read = (page: Page): Promise<Reading> =>
  page.evaluate(() => {
    const w = window as any;
    return w.__backstory.readTask(document, w.__watcher.lastEditable());
  });
const readings = (page: Page): Promise<Reading[]> => page.evaluate(() => (window as any).__readings);

describe('Gmail adapter', () => {
  it('compose: recipients (names and addresses), subject, the body being written', async () => {
    const page = await open(SITE_URLS.gmailCompose);
    await page.click('[role="dialog"] [aria-label="Message Body"]');
    await page.keyboard.press('Control+Home');
    await page.keyboard.press('End');
    await page.keyboard.type(' the Q3 travel line is over budget.');
    const r = await read(page);
    expect(r.adapter).toBe('gmail');
    expect(r.site).toBe('mail.google.com');
    expect(r.subject).toBe('Q3 budget numbers');
    expect(r.people).toEqual(expect.arrayContaining(['Ana Lima', 'ana@example.com', 'bo@example.org', 'Dee Park', 'dee@example.com']));
    // Inbox rows are not recipients.
    expect(r.people).not.toContain('carol@example.com');
    expect(r.field?.text).toContain('Hi Ana, the Q3 travel line is over budget.');
    expect(r.field?.text).not.toContain('Me'); // the signature is not the ask
    expect(r.field?.label).toBe('Message Body');
    // The watcher reported the same, debounced.
    await expect.poll(async () => (await readings(page)).at(-1)?.field?.text, { timeout: 5_000 }).toContain('over budget');
    // Once it has settled: still the whole ask, from a few readings for the whole typing, not one per key.
    await page.waitForTimeout(200);
    const all = await readings(page);
    expect(all.at(-1)?.field?.text).toContain('over budget');
    expect(all.length).toBeLessThanOrEqual(4);
    await page.close();
  });

  it('compose closed: the scoped observer sees it, lets go of the body and reads again', async () => {
    const page = await open(SITE_URLS.gmailCompose);
    await page.click('[role="dialog"] [aria-label="Message Body"]');
    await page.keyboard.type('draft');
    await expect.poll(async () => (await readings(page)).at(-1)?.people, { timeout: 5_000 }).toContain('Ana Lima');
    await page.evaluate(() => document.querySelector('[role="dialog"]')!.remove());
    await page.waitForTimeout(1400);
    expect(await page.evaluate(() => (window as any).__watcher.lastEditable())).toBeNull();
    const last = (await readings(page)).at(-1);
    expect(last?.field).toBeUndefined();
    expect(last?.people).toBeUndefined();
    expect(last?.adapter).toBe('generic');
    expect(last?.headings).toContain('Inbox');
    await page.close();
  });

  it('reply: subject, replying-to recipients and the last messages of the thread, oldest first, without quotes', async () => {
    const page = await open(SITE_URLS.gmailReply);
    await page.click('[role="main"] [aria-label="Message Body"]');
    await page.keyboard.press('Control+Home');
    await page.keyboard.type('Hardware is 12k, confirmed.');
    const r = await read(page);
    expect(r.adapter).toBe('gmail');
    expect(r.subject).toBe('Re: Q3 budget review');
    expect(r.people).toEqual(expect.arrayContaining(['Ana Lima', 'ana@example.com']));
    expect(r.turns).toHaveLength(3);
    expect(r.turns?.[0]).toMatch(/^Ana Lima: Hi team,\s+Please send your Q3 numbers/);
    expect(r.turns?.[1]).toBe('Bo Chen: Travel was the offsite in Lisbon. I can move it to Q4.');
    expect(r.turns?.[2]).toMatch(/^Ana Lima: Can you also confirm the hardware line\?/);
    expect(r.turns?.join(' ')).not.toContain('QUOTED-OLD-TEXT');
    expect(r.field?.text).toBe('Hardware is 12k, confirmed.');
    await page.close();
  });

  it('degrades to the generic reading when the page lacks Gmail structure (never to nothing)', async () => {
    const page = await open(SITE_URLS.gmailChanged);
    await page.click('#sig');
    await page.keyboard.type(' and team');
    const r = await read(page);
    expect(r.adapter).toBe('generic');
    expect(r.site).toBe('mail.google.com');
    expect(r.field).toMatchObject({ text: 'Me and team', kind: 'textarea', label: 'Signature text' });
    expect(r.headings).toEqual(['Signature', 'Settings']);
    await page.close();
  });

  it('never reads a password field, its text or its selection', async () => {
    const page = await open(SITE_URLS.gmailChanged);
    await page.click('#sig');
    await page.click('#pw');
    await page.keyboard.type('secret-typed');
    await page.keyboard.press('Control+a');
    await page.waitForTimeout(150);
    const r = await read(page);
    const all = await readings(page);
    const blob = JSON.stringify([r, all]);
    expect(blob).not.toContain('hunter2');
    expect(blob).not.toContain('secret-typed');
    // The last editable stays the signature field, not the password.
    expect(await page.evaluate(() => (window as any).__watcher.lastEditable()?.id)).toBe('sig');
    await page.close();
  });
});

describe('ChatGPT and Claude adapters', () => {
  for (const [name, url, prompt, first, last] of [
    ['chatgpt', SITE_URLS.chatgpt, '#prompt-textarea', 'User: My budget is 120 EUR a night.', 'ChatGPT: Try a francesinha near Bolhão.'],
    ['chatgpt', SITE_URLS.chatgptLegacy, '#prompt-textarea', 'User: My budget is 120 EUR a night.', 'ChatGPT: Try a francesinha near Bolhão.'],
    ['claude', SITE_URLS.claude, '[data-testid="chat-input"]', 'Claude: Split it into a TaxPolicy and an InvoiceRenderer.\nExtract interfaces\nMove tests', 'User: What about VAT in the EU?'],
  ] as const) {
    it(`${name} (${new URL(url).hostname}): the prompt box text and the last turns`, async () => {
      const page = await open(url, `${prompt}[contenteditable="true"]`);
      await page.click(prompt);
      await page.keyboard.type('Which neighbourhood is best for me?');
      const r = await read(page);
      expect(r.adapter).toBe(name);
      expect(r.field).toMatchObject({ text: 'Which neighbourhood is best for me?', kind: 'contenteditable' });
      expect(r.turns).toHaveLength(4);
      expect(r.turns?.[0]).toBe(first);
      expect(r.turns?.[3]).toBe(last);
      expect(r.turns?.join('\n')).not.toMatch(/Copy|Retry|said:/);
      expect(r.subject).toBe(name === 'claude' ? 'Refactor the billing module' : 'Trip to Porto');
      await page.close();
    });
  }

  it('a reading is taken without focus too (the prompt box and the turns), and follows new turns through the scoped observer', async () => {
    const page = await open(SITE_URLS.chatgpt, '#prompt-textarea[contenteditable="true"]');
    await expect.poll(async () => (await readings(page)).at(-1)?.adapter, { timeout: 5_000 }).toBe('chatgpt');
    let all = await readings(page);
    expect(all.at(-1)?.turns).toHaveLength(4);
    // A reply arrives: the observer scoped to <main> produces a new reading without any focus or typing.
    await page.evaluate(() => {
      const turn = document.createElement('div');
      turn.setAttribute('data-message-author-role', 'assistant');
      turn.textContent = 'Also book a Douro valley day trip.';
      document.querySelector('main [role="presentation"]')!.append(turn);
    });
    await expect.poll(async () => (await readings(page)).at(-1)?.turns?.at(-1), { timeout: 5_000 }).toBe('ChatGPT: Also book a Douro valley day trip.');
    all = await readings(page);
    const count = all.length;
    // Stopped: the observer is disconnected, nothing more is read.
    await page.evaluate(() => {
      (window as any).__watcher.stop();
      const turn = document.createElement('div');
      turn.setAttribute('data-message-author-role', 'user');
      turn.textContent = 'Thanks';
      document.querySelector('main [role="presentation"]')!.append(turn);
    });
    await page.waitForTimeout(200);
    expect((await readings(page)).length).toBe(count);
    await page.close();
  });

  it('when the field goes away the watcher lets go of it and reads again', async () => {
    const page = await open(SITE_URLS.chatgpt, '#prompt-textarea[contenteditable="true"]');
    await page.click('#prompt-textarea');
    await page.keyboard.type('draft question');
    await page.waitForTimeout(150);
    await page.evaluate(() => document.querySelector('form')!.remove());
    await page.waitForTimeout(200);
    expect(await page.evaluate(() => (window as any).__watcher.lastEditable())).toBeNull();
    const last = (await readings(page)).at(-1);
    expect(last?.field).toBeUndefined();
    expect(last?.adapter).toBe('chatgpt');
    await page.close();
  });

  it('the same page on another host is read by the generic adapter (hostname decides, not look-alike markup)', async () => {
    const page = await open(`${FIXTURE_ORIGIN}/sites/chatgpt.html`, '#prompt-textarea[contenteditable="true"]');
    await page.click('#prompt-textarea');
    await page.keyboard.type('hello');
    const r = await read(page);
    expect(r.adapter).toBe('generic');
    expect(r.turns).toBeUndefined();
    expect(r.field?.text).toBe('hello');
    await page.close();
  });
});

describe('inserting into the sites’ fields', () => {
  for (const [name, url, field] of [
    ['Gmail compose body', SITE_URLS.gmailCompose, '[role="dialog"] [aria-label="Message Body"]'],
    ['Gmail reply body', SITE_URLS.gmailReply, '[role="main"] [aria-label="Message Body"]'],
    ['ChatGPT prompt (ProseMirror)', SITE_URLS.chatgpt, '#prompt-textarea'],
    ['Claude prompt (ProseMirror)', SITE_URLS.claude, '[data-testid="chat-input"]'],
  ] as const) {
    it(`${name}: inserted at the caret, lines kept, not read back as the ask, one undo`, async () => {
      const page = await open(url, field);
      await page.click(field);
      await page.keyboard.press('Control+Home');
      await page.keyboard.type('Note: ');
      const before = await page.$eval(field, (el) => (el as HTMLElement).innerText);
      await page.focus('#outside');
      const outcome = await page.evaluate(
        () => (window as any).__backstory.insertText((window as any).__watcher.lastEditable(), 'Budget owner: Ana\nDeadline: Friday'),
      );
      expect(outcome.ok, JSON.stringify(outcome)).toBe(true);
      const text = await page.$eval(field, (el) => (el as HTMLElement).innerText);
      expect(text.replace(/\n+/g, '\n')).toContain('Note: Budget owner: Ana\nDeadline: Friday');
      await page.waitForTimeout(150);
      const r = await read(page);
      expect(r.field?.text).toContain('Note:');
      expect(r.field?.text).not.toContain('Budget owner');
      const all = await readings(page);
      expect(JSON.stringify(all.map((x) => x.field?.text ?? ''))).not.toContain('Budget owner');
      await page.keyboard.press('Control+z');
      await page.waitForTimeout(100);
      expect(await page.$eval(field, (el) => (el as HTMLElement).innerText)).toBe(before);
      await page.close();
    });
  }
});

describe('Google Docs', () => {
  /** What the main-world script does at document_start (entrypoints/docs-annotate.content.ts). */
  const flagFirst = () => {
    (window as any)._docs_annotate_canvas_by_ext = 'backstory';
  };
  const docText = (page: Page): Promise<string> => page.evaluate(() => (window as any).__docs.text());
  const count = (hay: string, needle: string) => hay.split(needle).length - 1;
  /** Clicks a point on a painted paragraph (the canvas has no DOM text to click on). */
  const clickLine = async (page: Page, words: string) => {
    const box = await page.evaluate((w) => {
      const r = Array.from(document.querySelectorAll('.kix-canvas-tile-content svg rect[aria-label]')).find((x) => x.getAttribute('aria-label')!.includes(w))!;
      const b = r.getBoundingClientRect();
      return { x: b.left + 30, y: b.top + b.height / 2 };
    }, words);
    await page.mouse.click(box.x, box.y);
  };

  it('canvas only: no DOM text; with the flag set before load, the section around the caret is read from the annotated layer, and follows the caret', async () => {
    const page = await open(SITE_URLS.gdocs, '#canvas', flagFirst);
    expect(await page.evaluate(() => document.body.innerText)).not.toContain('interview loop');
    await clickLine(page, 'interview loop');
    await page.waitForTimeout(150);
    const r = await read(page);
    expect(r.adapter).toBe('gdocs');
    expect(r.subject).toBe('Northwind 2027 plan');
    expect(r.field?.text).toMatch(/^Hiring\nWe are hiring a backend engineer/);
    expect(r.headings?.slice(0, 2)).toEqual(['Hiring', 'Northwind 2027 plan']);
    // The caret moves two paragraphs up with the keyboard (into the event-target iframe): a new reading, unprompted.
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('ArrowUp');
    await expect.poll(async () => (await readings(page)).at(-1)?.field?.text, { timeout: 5_000 }).toMatch(/^Budget\nThe quarterly budget review/);
    await page.close();
  });

  it('the selection is read from the painted selection over the layer', async () => {
    const page = await open(SITE_URLS.gdocs, '#canvas', flagFirst);
    // Click before "backend", shift+click after "engineer": the page paints the selection between.
    const [from, to] = await page.evaluate(() => {
      const r = Array.from(document.querySelectorAll('.kix-canvas-tile-content svg rect[aria-label]')).find((x) => x.getAttribute('aria-label')!.startsWith('We are hiring'))!;
      const label = r.getAttribute('aria-label')!;
      const ctx = document.createElement('canvas').getContext('2d')!;
      ctx.font = r.getAttribute('data-font-css')!;
      const b = r.getBoundingClientRect();
      const at = (n: number) => ({ x: b.left + ctx.measureText(label.slice(0, n)).width + 0.5, y: b.top + b.height / 2 });
      const start = label.indexOf('backend');
      return [at(start), at(start + 'backend engineer'.length)];
    });
    await page.mouse.click(from.x, from.y);
    await page.keyboard.down('Shift');
    await page.mouse.click(to.x, to.y);
    await page.keyboard.up('Shift');
    await page.waitForTimeout(200);
    const r = await read(page);
    expect(r.selection).toBe('backend engineer');
    expect((await readings(page)).at(-1)?.selection).toBe('backend engineer');
    await page.close();
  });

  it('the event target empties itself: the generic technique loop would type a card twice, the Docs insertion types it once, checked against the document', async () => {
    const page = await open(SITE_URLS.gdocs, '#canvas', flagFirst);
    await clickLine(page, 'announcement draft');
    await page.keyboard.press('End');
    // The trap: what a technique loop that reads the field back would do. The first technique takes, yet the
    // event target reads back empty ("unchanged"), so the loop tries the next one and the text lands twice.
    const readBack = await page.evaluate(() => {
      const target = document.querySelector<HTMLIFrameElement>('iframe.docs-texteventtarget-iframe')!.contentDocument!.querySelector('[contenteditable]') as HTMLElement;
      target.focus();
      target.ownerDocument.execCommand('insertText', false, ' TRAP');
      const seen = target.innerText;
      const data = new DataTransfer();
      data.setData('text/plain', ' TRAP');
      target.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
      return seen;
    });
    expect(readBack).toBe('');
    expect(count(await docText(page), 'TRAP')).toBe(2);
    const outcome = await page.evaluate(() => (window as any).__backstory.insertOnPage('Budget owner: Ana\nDeadline: Friday'));
    expect(outcome, JSON.stringify(outcome)).toMatchObject({ ok: true, technique: 'paste' });
    const text = await docText(page);
    expect(count(text, 'Budget owner: Ana')).toBe(1);
    expect(text).toContain('Budget owner: Ana\nDeadline: Friday');
    // And the reading does not take the inserted card for the user's ask.
    await page.waitForTimeout(150);
    expect((await read(page)).field?.text ?? '').not.toContain('Deadline: Friday');
    await page.close();
  });

  it('without the layer (the flag set only after load): title and selection only, and a card goes to the clipboard with a hint, never typed blind', async () => {
    const page = await open(SITE_URLS.gdocs, '#canvas');
    await page.evaluate(() => ((window as any)._docs_annotate_canvas_by_ext = 'too-late'));
    await clickLine(page, 'interview loop').catch(() => undefined);
    await page.mouse.click(300, 300);
    await page.waitForTimeout(150);
    expect(await page.locator('.kix-canvas-tile-content svg rect').count()).toBe(0);
    const r = await read(page);
    expect(r.adapter).toBe('gdocs');
    expect(r.subject).toBe('Northwind 2027 plan');
    expect(r.field?.text ?? '').toBe('');
    const before = await docText(page);
    const outcome = await page.evaluate(() => (window as any).__backstory.insertOnPage('Budget owner: Ana'));
    expect(outcome.ok).toBe(false);
    expect(outcome.hint).toMatch(/clipboard|Ctrl\+V/);
    expect(await docText(page)).toBe(before);
    expect(await page.locator('[data-backstory-hint]').count()).toBe(1);
    await page.close();
  });
});

describe('Outlook on the web', () => {
  it('reads chips, "Add a subject" and the body, and inserts into the body once', async () => {
    const page = await open(SITE_URLS.outlook, '[aria-label^="Message body"]');
    await page.click('[aria-label^="Message body"]');
    await page.keyboard.press('Control+Home');
    await page.keyboard.press('End');
    await page.keyboard.type(' about the renewal:');
    const r = await read(page);
    expect(r.adapter).toBe('outlook');
    expect(r.people).toEqual(expect.arrayContaining(['Ana Lima', 'ana@example.com', 'Raj Patel', 'raj@example.org', 'dee@example.com']));
    expect(r.subject).toBe('Vendor contract renewal');
    expect(r.field?.text).toBe('Hi Ana, about the renewal:');
    await page.focus('#outside');
    const outcome = await page.evaluate(() => (window as any).__backstory.insertOnPage('Renewal owner: Raj'));
    expect(outcome).toMatchObject({ ok: true, technique: 'execCommand' });
    const body = await page.$eval('[aria-label^="Message body"]', (el) => (el as HTMLElement).innerText);
    expect(body.split('Renewal owner: Raj').length - 1).toBe(1);
    expect(body).toMatch(/about the renewal: ?Renewal owner: Raj/);
    await page.close();
  });
});

describe('Notion (block editor)', () => {
  it('the focused block, the heading above and the page title are the task; a pasted card becomes blocks, once', async () => {
    const page = await open(SITE_URLS.notion, '#last');
    await page.click('#last');
    await page.keyboard.press('End');
    await page.keyboard.type(' the hotel deposit');
    const r = await read(page);
    expect(r.adapter).toBe('notion');
    expect(r.subject).toBe('Offsite 2027');
    expect(r.field?.text).toBe('Travel\nFlights are booked centrally; the travel budget moved to Q4.\nAsk finance about the hotel deposit');
    expect(r.headings).toEqual(['Travel', 'Offsite 2027']);
    const before = await page.evaluate(() => (window as any).__notion.blocks().length);
    await page.focus('#outside');
    const outcome = await page.evaluate(() => (window as any).__backstory.insertOnPage('Deposit: 20% by March\nOwner: Ana'));
    expect(outcome, JSON.stringify(outcome)).toMatchObject({ ok: true, technique: 'paste' });
    const blocks: string[] = await page.evaluate(() => (window as any).__notion.blocks());
    // Two lines, two blocks: the first line joins the caret's block, the second is a block of its own.
    expect(blocks.length).toBe(before + 1);
    expect(blocks.at(-2)).toBe('Ask finance about the hotel depositDeposit: 20% by March');
    expect(blocks.at(-1)).toBe('Owner: Ana');
    expect(blocks.join('\n').split('Owner: Ana').length - 1).toBe(1);
    await page.close();
  });
});
