import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { launchExtension, type Harness } from './harness';

// The options page: every setting applies at once, import/export, lists, model status, clear all.
let h: Harness;
let options: Page;

const ITEMS = [
  { id: 'budget', title: 'Q3 budget numbers', text: 'Q3 budget: the hardware line is 12k and travel moved to Q4.', tags: ['budget'] },
  { id: 'q2', title: 'Q2 review', text: 'The Q2 budget review was postponed to July.', tags: ['budget'], createdAt: '2020-01-01T00:00:00Z' },
  { id: 'offsite', title: 'Offsite', text: 'The team offsite is in Lisbon on November 18-19.' },
];
type Settings = {
  rank: { weights: Record<string, number>; budgetTokens: number; halfLifeDays: number; maxCards: number };
  ui: { excludedSites: string[] };
  capture: { sent: boolean; sites: string[] };
};
const settings = () => h.call<Settings>('settings:get', {});
const list = async () => (await h.call<{ items: { id: string; title: string; pinned: boolean; excluded?: boolean; text: string }[] }>('memory:list', {})).items;

beforeAll(async () => {
  h = await launchExtension();
  await h.seed(ITEMS);
  options = await h.context.newPage();
  await options.goto(`chrome-extension://${h.extensionId}/options.html`);
});
afterAll(async () => {
  await h?.close();
});

async function panelWithTask(text: string) {
  const { page, tabId } = await h.openPage(`/fixtures/textarea.html?o=${Math.random()}`);
  const panel = await h.openPanel(tabId);
  await page.locator('#field').click();
  await page.locator('#field').pressSequentially(text, { delay: 2 });
  await panel.locator('[data-testid="status"][data-state="found"]').waitFor({ timeout: 60_000 });
  return { page, panel };
}

describe('options page', () => {
  it('has a slider per weight; moving one saves at once and the live preview re-ranks', async () => {
    for (const w of ['semantic', 'lexical', 'recency', 'priority', 'continuity', 'situation'])
      expect(await options.locator(`input[type=range][data-weight="${w}"]`).count()).toBe(1);
    await options.locator('[data-testid="preview-task"]').fill('budget review');
    const preview = options.locator('[data-testid="preview-card"]');
    await expect.poll(() => preview.count(), { timeout: 60_000 }).toBeGreaterThan(0);
    const before = await preview.evaluateAll((els) => els.map((e) => e.textContent));
    await options.locator('input[type=range][data-weight="recency"]').fill('1');
    await options.locator('input[type=range][data-weight="semantic"]').fill('0');
    await expect.poll(async () => (await settings()).rank.weights, { timeout: 10_000 }).toMatchObject({ recency: 1, semantic: 0 });
    await expect.poll(() => preview.evaluateAll((els) => els.map((e) => e.textContent)), { timeout: 30_000 }).not.toEqual(before);
    expect(await preview.locator('.move').count()).toBeGreaterThan(0);
    await options.locator('[data-testid="weights-reset"]').click();
    await expect.poll(async () => (await settings()).rank.weights.semantic).toBe(0.45);
  });

  it('applies half-life, budget and caps to an open panel without reloading', async () => {
    const { page, panel } = await panelWithTask('What is the Q3 budget for hardware?');
    await options.locator('[data-setting="halfLifeDays"]').fill('7');
    await options.locator('[data-setting="halfLifeDays"]').press('Tab');
    await options.locator('[data-setting="budgetTokens"]').fill('300');
    await options.locator('[data-setting="budgetTokens"]').press('Tab');
    await expect.poll(async () => (await settings()).rank.budgetTokens).toBe(300);
    expect((await settings()).rank.halfLifeDays).toBe(7);
    await panel.locator('[data-testid="package"] summary').click();
    await expect.poll(() => panel.locator('[data-testid="package-meter"]').evaluate((m: HTMLMeterElement) => m.max), { timeout: 30_000 }).toBe(300);
    await options.locator('[data-setting="maxCards"]').fill('1');
    await options.locator('[data-setting="maxCards"]').press('Tab');
    await expect.poll(() => panel.locator('[data-testid="card"]').count(), { timeout: 30_000 }).toBe(1);
    await options.locator('[data-setting="maxCards"]').fill('8');
    await options.locator('[data-setting="maxCards"]').press('Tab');
    await expect.poll(async () => (await settings()).rank.maxCards).toBe(8);
    await panel.close();
    await page.close();
  });

  it('switches a site off and on', async () => {
    const { page, panel } = await panelWithTask('Q3 budget hardware');
    const host = new URL(page.url()).hostname;
    await options.locator('[data-testid="excluded-sites-input"]').fill(`http://${host}/anything`);
    await options.locator('[data-testid="excluded-sites-add"]').click();
    await expect.poll(async () => (await settings()).ui.excludedSites).toEqual([host]);
    await panel.locator('[data-testid="paused"]').waitFor({ timeout: 30_000 });
    await options.locator(`[data-testid="excluded-sites"] [data-host="${host}"] button`).click();
    await panel.locator('[data-testid="status"][data-state="found"]').waitFor({ timeout: 30_000 });
    await panel.close();
    await page.close();
  });

  it('keeps always-include and never-include lists', async () => {
    await options.reload();
    await options.locator('[data-testid="always-include-pick"]').selectOption('offsite');
    await options.locator('[data-testid="always-include-add"]').click();
    await options.locator('[data-testid="never-include-pick"]').selectOption('q2');
    await options.locator('[data-testid="never-include-add"]').click();
    await expect.poll(async () => (await list()).filter((i) => i.pinned).map((i) => i.id)).toEqual(['offsite']);
    await expect.poll(async () => (await list()).filter((i) => i.excluded).map((i) => i.id)).toEqual(['q2']);
    await options.locator('[data-testid="always-include"] li[data-id="offsite"] button').click();
    await expect.poll(async () => (await list()).filter((i) => i.pinned).length).toBe(0);
  });

  it('imports a memory file, Markdown, plain text and a folder; rejects a bad file naming the item; exports', async () => {
    const n0 = (await list()).length;
    const file = JSON.stringify({ format: 'backstory-memory', version: 1, items: [{ id: 'imp1', text: 'Imported from JSON', mood: 'kept' }] });
    await options.locator('[data-testid="import-file"]').setInputFiles([
      { name: 'memory.json', mimeType: 'application/json', buffer: Buffer.from(file) },
      { name: 'notes.md', mimeType: 'text/markdown', buffer: Buffer.from('# Vendor\nAcme invoices are net 30.\n\n# Travel\nBook trains, not flights.') },
      { name: 'todo.txt', mimeType: 'text/plain', buffer: Buffer.from('Renew the domain before March.') },
    ]);
    await expect.poll(() => options.locator('[data-testid="import-message"]').innerText(), { timeout: 60_000 }).toBe('Imported 3 files: 4 new, 0 updated, 0 unchanged.');
    expect((await list()).length).toBe(n0 + 4);

    const bad = JSON.stringify({ format: 'backstory-memory', version: 1, items: [{ text: 'ok' }, { title: 'no text' }] });
    await options.locator('[data-testid="import-file"]').setInputFiles([{ name: 'bad.json', mimeType: 'application/json', buffer: Buffer.from(bad) }]);
    await expect.poll(() => options.locator('[data-testid="import-message"]').innerText(), { timeout: 30_000 }).toMatch(/^Not imported: bad\.json: .*Item 1 has no "text".* Nothing was changed\.$/);
    expect((await list()).length).toBe(n0 + 4);

    // A chosen folder arrives as the folder input's file list (Playwright's directory upload hangs now and then in
    // headless Chromium, so the list is handed over the way the browser would, through a DataTransfer).
    await options.locator('[data-testid="import-folder"]').evaluate((input: HTMLInputElement) => {
      const dt = new DataTransfer();
      dt.items.add(new File(['# Alpha\nAlpha note.'], 'a.md', { type: 'text/markdown' }));
      dt.items.add(new File(['Beta note.'], 'b.txt', { type: 'text/plain' }));
      dt.items.add(new File(['not a note'], 'c.png', { type: 'image/png' }));
      input.files = dt.files;
      input.dispatchEvent(new Event('change', { bubbles: true }));
    });
    await expect.poll(() => options.locator('[data-testid="import-message"]').innerText(), { timeout: 60_000 }).toBe('Imported 3 files: 2 new, 0 updated, 0 unchanged.');

    const download = options.waitForEvent('download');
    await options.locator('[data-testid="export"]').click();
    const path = await (await download).path();
    const out = JSON.parse(readFileSync(path!, 'utf8'));
    expect(out.format).toBe('backstory-memory');
    expect(Array.isArray(out.feedback?.events)).toBe(true); // what learning keeps rides along
    expect(out.items.find((i: { id: string }) => i.id === 'imp1')).toMatchObject({ text: 'Imported from JSON', mood: 'kept' });
  });

  it('imports Markdown saved as Windows-1252 without mangling its accents', async () => {
    // "# Café\nThe naïve plan – approved." in Windows-1252: é = 0xE9, ï = 0xEF, – = 0x96.
    const cp1252 = Buffer.from([...Buffer.from('# Caf', 'latin1'), 0xe9, ...Buffer.from('\nThe na', 'latin1'), 0xef, ...Buffer.from('ve plan ', 'latin1'), 0x96, ...Buffer.from(' approved.', 'latin1')]);
    await options.locator('[data-testid="import-file"]').setInputFiles([{ name: 'old-notes.md', mimeType: 'text/markdown', buffer: cp1252 }]);
    await expect.poll(() => options.locator('[data-testid="import-message"]').innerText(), { timeout: 30_000 }).toBe('Imported old-notes.md: 1 new, 0 updated, 0 unchanged.');
    const item = (await list()).find((i) => i.title === 'Café');
    expect(item?.text).toBe('The naïve plan – approved.');
  });

  it('shows indexing progress with a count for a large import, and model status', async () => {
    await options.evaluate(() => {
      const pushes: unknown[] = ((window as unknown as { pushes: unknown[] }).pushes = []);
      chrome.runtime.connect({ name: 'backstory-panel' }).onMessage.addListener((m: { type: string }) => m.type === 'indexing' && pushes.push(m));
      const seen: string[] = ((window as unknown as { seen: string[] }).seen = []);
      new MutationObserver(() => {
        const el = document.querySelector('[data-testid="indexing"]');
        if (el?.textContent) seen.push(el.textContent);
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    });
    const items = Array.from({ length: 160 }, (_, i) => ({ id: `bulk-${i}`, text: `Bulk note number ${i} about shipping crate ${i % 7}.` }));
    await options.locator('[data-testid="import-file"]').setInputFiles([
      { name: 'bulk.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify({ format: 'backstory-memory', version: 1, items })) },
    ]);
    await expect.poll(() => options.locator('[data-testid="import-message"]').innerText(), { timeout: 120_000 }).toBe('Imported bulk.json: 160 new, 0 updated, 0 unchanged.');
    await expect.poll(async () => (await h.call<{ unembedded: number }>('model:status', {})).unembedded, { timeout: 120_000 }).toBe(0);
    const seen = await options.evaluate(() => (window as unknown as { seen: string[] }).seen);
    // The run may also take items of the imports just before (all of them are indexed in the background now).
    const counted = (t: string) => /Indexing ([\d,]+) of ([\d,]+)/.exec(t)?.slice(1).map((n) => Number(n.replace(/,/g, ''))) ?? [0, 0];
    expect(seen.some((t) => counted(t)[0] > 0 && counted(t)[1] >= 160)).toBe(true);
    const pushes = await options.evaluate(() => (window as unknown as { pushes: { progress: { done: number; total: number } }[] }).pushes);
    const last = pushes.at(-1)?.progress;
    expect(last && last.done === last.total && last.total >= 160).toBe(true);
    await options.locator('[data-testid="indexing"]').waitFor({ state: 'detached' });
    await expect.poll(() => options.locator('[data-testid="model-status"]').getAttribute('data-state'), { timeout: 60_000 }).toBe('ready');
    expect(await options.locator('[data-testid="model-status"]').innerText()).toMatch(/ready, running on \w+/);
  });

  it('message capture is off by default and can be switched on for chosen sites', async () => {
    expect(await options.locator('[data-testid="capture-sent"]').isChecked()).toBe(false);
    expect((await settings()).capture.sent).toBe(false);
    await options.locator('[data-testid="capture-sent"]').check();
    await options.locator('[data-testid="capture-sites-input"]').fill('chatgpt.com');
    await options.locator('[data-testid="capture-sites-add"]').click();
    await expect.poll(async () => (await settings()).capture).toMatchObject({ sent: true, sites: ['chatgpt.com'] });
    await options.locator('[data-testid="capture-sent"]').uncheck();
    await expect.poll(async () => (await settings()).capture.sent).toBe(false);
  });

  it('clears all data only after confirmation', async () => {
    expect((await list()).length).toBeGreaterThan(0);
    await options.locator('[data-testid="clear-all"]').click();
    await options.locator('[data-testid="clear-cancel"]').click();
    expect((await list()).length).toBeGreaterThan(0);
    await options.locator('[data-testid="clear-all"]').click();
    expect(await options.locator('[data-testid="clear-confirm-box"]').innerText()).toMatch(/cannot be undone/);
    await options.locator('[data-testid="clear-confirm"]').click();
    await expect.poll(async () => (await list()).length).toBe(0);
  });
});
