import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchExtension, type Harness } from './harness';

// The side panel's memory browser over a memory too large to draw at once, and browsing by source.
let h: Harness;
const N = 3000;
const DAY = 86_400_000;
const T0 = Date.UTC(2024, 0, 1);

beforeAll(async () => {
  h = await launchExtension();
  const notes = Array.from({ length: N }, (_, i) => ({
    id: `n${i}`, title: `Note ${i}`, text: `Gardening log entry ${i}: watered the beds. marker${i}zz`, createdAt: new Date(T0 + i * 60_000).toISOString(),
  }));
  await h.seed(notes);
});
afterAll(async () => {
  await h?.close();
});

type Page = { items: { id: string }[]; total: number };

describe('memory browser', () => {
  it('shows thousands of memories a page at a time, with only the rows on screen in the page', async () => {
    const { page, tabId } = await h.openPage('/fixtures/textarea.html?memory=1');
    const panel = await h.openPanel(tabId);
    await panel.locator('[data-testid="tab-memory"]').click();
    const rows = panel.locator('[data-testid="memory-item"]');
    const count = panel.locator('[data-testid="memory-count"]');
    await expect.poll(() => count.innerText()).toMatch(/^3,000 of 3,000 memories/);
    expect(await rows.first().getAttribute('data-id')).toBe(`n${N - 1}`); // newest first
    const drawn = await rows.count();
    expect(drawn).toBeGreaterThan(2);
    expect(drawn).toBeLessThan(60);

    // Scrolled to the end, the oldest memory is drawn, and still only a window of rows.
    await panel.locator('.vlist').evaluate((el) => (el.scrollTop = el.scrollHeight));
    await expect.poll(() => panel.locator('[data-testid="memory-item"][data-id="n0"]').count()).toBe(1);
    expect(await rows.count()).toBeLessThan(60);

    // Words: an exact one, then a half-typed one that stands for every word it starts.
    const text = panel.locator('[data-testid="memory-filter-text"]');
    await text.fill('marker1234zz');
    await expect.poll(() => rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-id')))).toEqual(['n1234']);
    await expect.poll(() => count.innerText()).toMatch(/^1 of 3,000/);
    await text.fill('marker12');
    await expect.poll(() => count.innerText()).toMatch(/^111 of 3,000/); // marker12zz, marker120zz…129zz, marker1200zz…1299zz
    await text.fill('');
    await expect.poll(() => count.innerText()).toMatch(/^3,000 of 3,000/);
    await panel.close();
    await page.close();
  });

  it('filters by the file memories came from and by import, and deletes a whole import with a confirmation and Undo', async () => {
    const chat = Array.from({ length: 4 }, (_, i) => ({
      id: `chatgpt:c1:m${i}`, text: `Chat turn ${i} about the Lisbon trip budget`, createdAt: T0 + 400 * DAY + i,
      source: { importId: 'imp-chat', format: 'chatgpt', title: 'Lisbon trip' },
    }));
    const mail = Array.from({ length: 2 }, (_, i) => ({
      id: `mail:<m${i}@x.example>`, text: `Mail ${i}: the invoice for March is attached`, createdAt: T0 + 401 * DAY + i, people: ['Ana <ana@x.example>'],
      source: { importId: 'imp-mail', format: 'mbox', title: 'Invoice' },
    }));
    await h.call('memory:add', { items: [...chat, ...mail] });
    const inImport = async (importId: string) => (await h.call<Page>('memory:query', { filter: { importId }, offset: 0, limit: 10 })).total;

    const { page, tabId } = await h.openPage('/fixtures/textarea.html?memory=2');
    const panel = await h.openPanel(tabId);
    await panel.locator('[data-testid="tab-memory"]').click();
    const rows = panel.locator('[data-testid="memory-item"]');
    const count = panel.locator('[data-testid="memory-count"]');
    await expect.poll(() => count.innerText()).toMatch(/^3,006 of 3,006/);

    await panel.locator('[data-testid="memory-filter-format"]').selectOption('chatgpt');
    await expect.poll(() => rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-id')))).toEqual(chat.map((c) => c.id).reverse());
    await panel.locator('[data-testid="memory-filter-format"]').selectOption('');

    const importSelect = panel.locator('[data-testid="memory-filter-import"]');
    expect(await importSelect.locator('option').allInnerTexts()).toEqual(expect.arrayContaining([expect.stringMatching(/^Mail \(mbox\) · 2 memories/), expect.stringMatching(/^ChatGPT · 4 memories/)]));
    await importSelect.selectOption('imp-mail');
    await expect.poll(() => rows.count()).toBe(2);
    await panel.locator('[data-testid="memory-delete-import"]').click();
    const box = panel.locator('[data-testid="memory-delete-import-box"]');
    await expect.poll(() => box.innerText()).toMatch(/Delete all 2 memories of this import/);
    expect(await inImport('imp-mail')).toBe(2); // nothing goes before the confirmation
    await panel.locator('[data-testid="memory-delete-import-confirm"]').click();
    await expect.poll(() => inImport('imp-mail')).toBe(0);
    expect(await inImport('imp-chat')).toBe(4); // the other import stays
    await expect.poll(() => count.innerText()).toMatch(/^3,004 of 3,004/);
    await expect.poll(() => panel.locator('[data-testid="toast"]').innerText()).toMatch(/Deleted 2 memories/);

    await panel.locator('[data-testid="undo"]').click();
    await expect.poll(() => inImport('imp-mail')).toBe(2);
    await expect.poll(() => count.innerText()).toMatch(/^3,006 of 3,006/);
    const back = await h.call<{ items: { people: string[]; source: { format?: string } }[] }>('memory:query', { filter: { importId: 'imp-mail' }, offset: 0, limit: 10 });
    expect(back.items[0]).toMatchObject({ people: ['Ana <ana@x.example>'], source: { format: 'mbox' } });
    await panel.close();
    await page.close();
  });
});
