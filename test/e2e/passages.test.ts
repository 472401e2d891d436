import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchExtension, type Harness } from './harness';

// A long note is found, shown, inserted and packaged by the passage that matches the task, not by its start.
let h: Harness;

const TOPICS = ['garden', 'kitchen', 'budget', 'travel', 'wildlife', 'plumbing', 'library', 'bicycle'];
/** Eight paragraphs of about 170 word pieces each, each its own passage; the fifth holds the evidence. */
const LONG_NOTE = TOPICS.map((topic, p) => {
  const lines = Array.from({ length: 12 }, (_, i) => `The ${topic} notes, entry ${i}, cover ${topic} matters in some depth.`);
  if (p === 4) lines[0] = 'The zebra migration crossed the Mara river at dawn on 14 August, watched by our guide Joseph Kamau.';
  return lines.join(' ');
}).join('\n\n');
const EVIDENCE = 'The zebra migration crossed the Mara river at dawn on 14 August';
const START = 'The garden notes, entry 0';

beforeAll(async () => {
  h = await launchExtension();
  await h.seed([
    { id: 'journal', title: 'Trip and house journal', text: LONG_NOTE },
    { id: 'boots', text: 'Our guide recommended good walking boots for the trip.' },
    { id: 'stream', text: 'The stream behind the house floods every spring.' },
  ]);
});
afterAll(async () => {
  await h?.close();
});

describe('a long note in the panel', () => {
  it('shows, inserts and packages the passage that matches the task, with the rest one click away', async () => {
    const { page, tabId } = await h.openPage('/fixtures/textarea.html');
    await page.locator('#field').click();
    await page.locator('#field').pressSequentially('When did the zebra migration cross the Mara river? ', { delay: 5 });
    const panel = await h.openPanel(tabId);
    const card = panel.locator('[data-testid="card"][data-id="journal"]');
    await card.waitFor({ timeout: 60_000 });

    const shown = card.locator('.snippet');
    await expect.poll(() => shown.textContent(), { timeout: 30_000 }).toContain(EVIDENCE);
    expect(await shown.textContent()).not.toContain(START);
    // The matched words are marked in the passage, as text.
    expect(await card.locator('.snippet mark').allTextContents()).toContain('zebra');

    await card.locator('[data-testid="card-why"]').click();
    expect(await card.locator('[data-testid="card-why-text"]').textContent()).toMatch(/passage 5 of 8/);

    await panel.locator('[data-testid="package"] summary').click();
    const pkg = panel.locator('[data-testid="package-text"]');
    await expect.poll(() => pkg.textContent(), { timeout: 30_000 }).toContain(EVIDENCE);
    expect(await pkg.textContent()).not.toContain(START);

    await card.locator('[data-testid="card-insert"]').click();
    await expect.poll(() => page.locator('#field').inputValue(), { timeout: 15_000 }).toContain(EVIDENCE);
    expect(await page.locator('#field').inputValue()).not.toContain(START);

    // "Show all" unfolds the whole note, and Insert then puts all of it in. The field keeps what it has: emptying it
    // would be a new task, and the panel would rightly rank for that instead.
    await card.locator('[data-testid="card-show-all"]').click();
    expect(await shown.textContent()).toContain(START);
    await card.locator('[data-testid="card-insert"]').click();
    await expect.poll(() => page.locator('#field').inputValue(), { timeout: 15_000 }).toContain(START);
    expect(await page.locator('#field').inputValue()).toContain(EVIDENCE);
    await panel.close();
    await page.close();
  });
});
