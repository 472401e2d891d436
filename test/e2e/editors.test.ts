/**
 * Insertion into every editor, through the real lib/insert + lib/sites code bundled for the page (the code the
 * content script runs), against fixture pages running the editors' own npm packages. Asserts on each editor's model:
 * the text (line breaks kept), the caret after the insertion, and one undo (Ctrl+Z) removing exactly the insertion.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, CHROMIUM_ARGS } from './harness';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { buildFixtures } from './fixtures/build';
import { FIXTURE_ORIGIN, routeFixtures } from './fixtures/editors/serve';
import { EDITOR_CASES, INSERT_TEXT, TYPED, expected, model, openEditor, prepare } from './fixtures/editors/cases';


let browser: Browser;
let context: BrowserContext;
const results: string[] = [];

beforeAll(async () => {
  await buildFixtures();
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  context = await browser.newContext();
  await routeFixtures(context);
});

afterAll(async () => {
  if (results.length) console.log(['editor | scenario | technique', ...results].join('\n'));
  await browser?.close();
});

async function withBackstory(page: Page): Promise<void> {
  await page.addScriptTag({ url: `${FIXTURE_ORIGIN}/__fixtures/editors/dist/backstory-page.js` });
  await page.evaluate(() => {
    const w = window as any;
    w.__readings = [];
    w.__watcher = w.__backstory.watchTask(document, (r: unknown) => w.__readings.push(r), 30);
  });
}

describe('insertText into editors (page-level)', () => {
  for (const c of EDITOR_CASES) {
    for (const scenario of ['typing', 'middle', 'selection'] as const) {
      const title = {
        typing: 'right after typing, focus kept (command)',
        middle: 'caret mid-text, focus moved away (panel)',
        selection: 'replacing the selection, the window lost focus to another tab (panel)',
      }[scenario];
      it(`${c.name}: ${title}`, async () => {
        const page = await context.newPage();
        const errors: string[] = [];
        page.on('pageerror', (e) => errors.push(e.message));
        try {
          const selector = await openEditor(page, c);
          await withBackstory(page);
          const { pre } = await prepare(page, selector, scenario);
          const insert = INSERT_TEXT;
          // The panel takes focus: within the page (middle) or away from the page's window (selection).
          let other: Page | undefined;
          if (scenario === 'middle') await page.focus('#outside');
          if (scenario === 'selection') {
            const cdp = await context.newCDPSession(page);
            await cdp.send('Emulation.setFocusEmulationEnabled', { enabled: false });
            other = await context.newPage();
            await other.bringToFront();
            await expect.poll(() => page.evaluate(() => document.hasFocus())).toBe(false);
          }
          // What the user selected is still the page's selection once they have left it.
          if (scenario === 'selection') expect(await page.evaluate(() => getSelection()?.toString())).toBe(TYPED);
          const outcome = await page.evaluate(
            (text) => (window as any).__backstory.insertText((window as any).__watcher.lastEditable(), text),
            insert,
          );
          results.push(`${c.name} | ${scenario} | ${outcome.technique}${outcome.ok ? '' : ' (FAILED)'} [${outcome.tried?.join(' > ')}]`);
          expect(outcome, JSON.stringify(outcome)).toMatchObject({ ok: true });
          const want = expected(pre, c, scenario);
          // Some editors apply an insertion to their model a frame later.
          await expect.poll(() => model(page), { timeout: 5_000 }).toEqual({ text: want.text, before: want.before });

          if (c.rerender) {
            await page.evaluate(() => (document.querySelector('#rerender') as HTMLButtonElement).click());
            await page.waitForTimeout(50);
            expect((await model(page)).text).toBe(want.text);
            expect(await page.$eval(selector, (el) => (el as HTMLInputElement).value)).toBe(want.text);
            await page.focus(selector);
          }

          // The inserted text is not read back as the user's own ask.
          await page.waitForTimeout(150);
          const lastField = await page.evaluate(() => {
            const w = window as any;
            return w.__backstory.readTask(document, w.__watcher.lastEditable()).field?.text ?? '';
          });
          expect(lastField).not.toContain('Alpha line one');
          if (scenario !== 'selection') expect(lastField).toContain('typed');

          if (other) {
            await other.close();
            await page.bringToFront();
          }
          await page.keyboard.press('Control+z');
          await expect.poll(async () => (await model(page)).text, { timeout: 5_000 }).toBe(pre);
          expect(errors).toEqual([]);
        } finally {
          await page.close();
        }
      });
    }
  }
});

describe('when no technique takes', () => {
  it('puts the text on the clipboard and shows a visible "press Ctrl+V" hint', async () => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: FIXTURE_ORIGIN });
    const page = await context.newPage();
    try {
      await page.goto(`${FIXTURE_ORIGIN}/editors/stubborn.html`);
      await withBackstory(page);
      await page.click('#ce');
      await page.keyboard.press('Control+End');
      const outcome = await page.evaluate(
        (text) => (window as any).__backstory.insertText((window as any).__watcher.lastEditable(), text),
        INSERT_TEXT,
      );
      expect(outcome).toMatchObject({ ok: false, technique: 'clipboard' });
      expect(outcome.tried).toEqual(['execCommand', 'paste', 'beforeinput']);
      expect(outcome.hint).toMatch(/Ctrl\+V/);
      expect(await page.locator('[data-backstory-hint]').count()).toBe(1);
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(INSERT_TEXT);
      // Nothing was written into the field, and the caret is back in it.
      expect(await page.$eval('#ce', (el) => (el as HTMLElement).innerText)).toBe('Hello world');
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('ce');
    } finally {
      await page.close();
    }
  });

  it('refuses without a field, and never types into a password field', async () => {
    const page = await context.newPage();
    try {
      await page.goto(`${FIXTURE_ORIGIN}/editors/plain.html?field=textarea`);
      await withBackstory(page);
      const none = await page.evaluate(() => (window as any).__backstory.insertText(null, 'x'));
      expect(none).toMatchObject({ ok: false, technique: 'none' });
      await page.click('#pw');
      const pw = await page.evaluate(() => (window as any).__backstory.insertText(document.querySelector('#pw'), 'x'));
      expect(pw.ok).toBe(false);
      expect(await page.$eval('#pw', (el) => (el as HTMLInputElement).value)).toBe('');
    } finally {
      await page.close();
    }
  });
});

describe('fields inside an open shadow root', () => {
  for (const id of ['ce', 'ta']) {
    it(`${id === 'ce' ? 'contenteditable' : 'textarea'}: read, and inserted at the caret after focus left`, async () => {
      const page = await context.newPage();
      try {
        await page.goto(`${FIXTURE_ORIGIN}/editors/shadow.html`);
        await withBackstory(page);
        const field = page.locator(`x-composer #${id}`);
        await field.click();
        await page.keyboard.press('Control+End');
        await page.keyboard.type(' typed');
        for (let i = 0; i < ' typed'.length; i++) await page.keyboard.press('ArrowLeft');
        await page.focus('#outside');
        const reading = await page.evaluate(() => {
          const w = window as any;
          return w.__backstory.readTask(document, w.__watcher.lastEditable());
        });
        expect(reading.field).toMatchObject({ text: 'Hello world typed', label: id === 'ce' ? 'Shadow editor' : 'Shadow textarea' });
        const outcome = await page.evaluate(
          (text) => (window as any).__backstory.insertText((window as any).__watcher.lastEditable(), text),
          INSERT_TEXT,
        );
        expect(outcome.ok, JSON.stringify(outcome)).toBe(true);
        const value = await field.evaluate((el) => (el instanceof HTMLTextAreaElement ? el.value : (el as HTMLElement).innerText));
        expect(value).toBe(`Hello world${INSERT_TEXT} typed`);
      } finally {
        await page.close();
      }
    });
  }
});

describe('the later techniques of each chain also reach the model', () => {
  for (const [name, technique] of [
    ['React textarea', 'value'],
    ['React input', 'value'],
    ['ProseMirror/TipTap', 'paste'],
    ['Quill', 'execCommand'],
    ['Slate', 'beforeinput'],
  ] as const) {
    it(`${name}: ${technique}`, async () => {
      const c = EDITOR_CASES.find((x) => x.name === name)!;
      const page = await context.newPage();
      try {
        const selector = await openEditor(page, c);
        await withBackstory(page);
        const { pre } = await prepare(page, selector, 'middle');
        await page.focus('#outside');
        const outcome = await page.evaluate(
          ([text, t]) => (window as any).__backstory.insertText((window as any).__watcher.lastEditable(), text, { techniques: [t] }),
          [INSERT_TEXT, technique] as const,
        );
        expect(outcome).toMatchObject({ ok: true, technique });
        const want = expected(pre, c, 'middle');
        await expect.poll(() => model(page), { timeout: 5_000 }).toEqual({ text: want.text, before: want.before });
        if (c.rerender) {
          await page.evaluate(() => (document.querySelector('#rerender') as HTMLButtonElement).click());
          await page.waitForTimeout(50);
          expect((await model(page)).text).toBe(want.text);
          expect(await page.$eval(selector, (el) => (el as HTMLInputElement).value)).toBe(want.text);
        }
      } finally {
        await page.close();
      }
    });
  }
});
