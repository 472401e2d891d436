import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { launchExtension, type Harness } from './harness';

// How the cards sit in a narrow side panel: one loud action each, the rest quiet but reachable, six to a screen.
let h: Harness;
const day = 86_400_000;
const note = (id: string, title: string, text: string, days: number, people: string[], url: string) => ({
  id, title, text, people, tags: ['atlas'], createdAt: new Date(Date.now() - days * day).toISOString(), source: { url, title: `Atlas ${id}` },
});
/** Typical memories: a title, two or three sentences, a source, a person, an age. */
const ITEMS = [
  note('scope', 'Atlas launch scope', 'The Atlas launch covers the web app and the public API; the mobile apps follow in the spring release. Pricing stays as it is.', 2, ['Dana Whitfield'], 'https://docs.example.com/atlas/scope'),
  note('date', 'Atlas launch date', 'We agreed to launch Atlas on March 4th, after the security review signs off. Marketing needs two weeks of notice for the announcement.', 5, ['Priya Shah'], 'https://docs.example.com/atlas/date'),
  note('review', 'Security review for Atlas', 'The Atlas security review is booked for February 20th with the platform team; the pen test report is due a week before the launch.', 9, ['Sam Okafor'], 'https://docs.example.com/atlas/review'),
  note('budget', 'Atlas launch budget', 'The Atlas launch budget is 40k: 25k for the launch event, 10k for ads and 5k held back for surprises. Finance approved it on the call.', 12, ['Priya Shah'], 'https://docs.example.com/atlas/budget'),
  note('beta', 'Atlas beta feedback', 'Beta customers of Atlas asked for export to CSV and for a dark theme; both are planned for the launch, CSV export first.', 16, ['Lee Chen'], 'https://docs.example.com/atlas/beta'),
  note('support', 'Atlas launch support rota', 'During the Atlas launch week support runs a rota of two people per shift, and the on-call engineer joins the launch channel.', 20, ['Maria Rossi'], 'https://docs.example.com/atlas/support'),
  note('docs', 'Atlas launch docs', 'The Atlas API docs must be public before the launch; the getting-started guide is being rewritten by the docs team this month.', 24, ['Lee Chen'], 'https://docs.example.com/atlas/docs'),
  note('press', 'Atlas press list', 'For the Atlas launch the press list has twelve outlets; the embargo lifts at 9:00 on launch day, and Dana handles the interviews.', 30, ['Dana Whitfield'], 'https://docs.example.com/atlas/press'),
];

beforeAll(async () => {
  h = await launchExtension();
  await h.seed(ITEMS);
});
afterAll(async () => {
  await h?.close();
});

async function panelWithCards(width: number, height: number): Promise<{ panel: Page; close(): Promise<void> }> {
  const { page, tabId } = await h.openPage(`/fixtures/textarea.html?layout=${width}x${height}`);
  const panel = await h.openPanel(tabId);
  await panel.setViewportSize({ width, height });
  await panel.emulateMedia({ reducedMotion: 'reduce' });
  await panel.locator('[data-testid="search"]').fill('Atlas launch plan');
  await panel.locator('[data-testid="status"][data-state="found"]').waitFor({ timeout: 60_000 });
  await panel.locator('[data-testid="model-status"]').waitFor({ state: 'detached', timeout: 60_000 });
  await panel.locator('[data-testid="indexing"]').waitFor({ state: 'detached', timeout: 60_000 });
  await expect.poll(() => panel.locator('[data-testid="card"]').count()).toBeGreaterThanOrEqual(6);
  return { panel, close: async () => (await panel.close(), await page.close()) };
}

const opacity = (panel: Page, id: string) =>
  panel.locator(`[data-testid="card"][data-id="${id}"] .quiet-actions`).evaluate((el) => getComputedStyle(el).opacity);

describe('cards in a narrow panel', () => {
  it('fits at least six typical cards in a 400 × 800 px panel', async () => {
    const { panel, close } = await panelWithCards(400, 800);
    await panel.mouse.move(200, 5);
    const bottoms = await panel.locator('[data-testid="card"]').evaluateAll((els) => els.map((e) => Math.round(e.getBoundingClientRect().bottom)));
    const fitting = bottoms.filter((b) => b <= 800).length;
    expect(fitting, `card bottoms ${bottoms.join(', ')}`).toBeGreaterThanOrEqual(6);
    await close();
  });

  it('shows Insert on every card and the other actions on hover or focus, all reachable by keyboard', async () => {
    const { panel, close } = await panelWithCards(400, 800);
    const first = panel.locator('[data-testid="card"]').first();
    const id = (await first.getAttribute('data-id'))!;
    const second = (await panel.locator('[data-testid="card"]').nth(1).getAttribute('data-id'))!;
    await panel.mouse.move(200, 5);
    expect(await opacity(panel, id)).toBe('0');
    expect(await first.locator('[data-testid="card-insert"]').isVisible()).toBe(true);

    await first.hover();
    expect(await opacity(panel, id)).toBe('1');
    expect(await opacity(panel, second)).toBe('0');
    await panel.mouse.move(200, 5);

    // Keyboard only: from the card, Tab walks to the quiet actions, which show while they hold the focus.
    await first.focus();
    const focused = () => panel.evaluate(() => document.activeElement?.getAttribute('data-testid') ?? document.activeElement?.tagName);
    const tabTo = async (testId: string) => {
      for (let i = 0; i < 8 && (await focused()) !== testId; i++) await panel.keyboard.press('Tab');
      expect(await focused()).toBe(testId);
    };
    await tabTo('card-why');
    expect(await opacity(panel, id)).toBe('1');
    await tabTo('card-more');
    expect(await first.locator('[data-testid="card-more"]').getAttribute('aria-expanded')).toBe('false');
    await panel.keyboard.press('Enter');
    expect(await first.locator('[data-testid="card-more"]').getAttribute('aria-expanded')).toBe('true');
    await tabTo('card-copy');
    await panel.keyboard.press('Escape');
    expect(await focused()).toBe('card-more');
    expect(await first.locator('[data-testid="card-copy"]').isVisible()).toBe(false);
    await panel.keyboard.press('Enter');
    await tabTo('card-copy');
    await panel.keyboard.press('Enter');
    await panel.locator('[data-testid="toast"]').getByText('Copied.').waitFor();
    expect(await first.locator('[data-testid="card-copy"]').isVisible()).toBe(false);

    // Screen readers get every action whether or not it is shown.
    const names = await first.locator('button').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') || e.textContent?.trim()));
    expect(names).toEqual(expect.arrayContaining(['Why?', 'Pin', 'Not useful', 'Insert', 'Copy', 'Edit', 'Delete']));
    await close();
  });
});
