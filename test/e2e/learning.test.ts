import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PanelState } from '../../lib/messaging/protocol';
import { launchExtension, type Harness } from './harness';

// Learning from feedback in the built extension: what the user does with cards reaches the ranking and the options
// page in plain words, and turning it off or resetting is one click each.
let h: Harness;
const DAY = 86_400_000;
const ITEMS = [
  { id: 'old', text: 'Lisbon offsite: the hotel is booked near the river, dinner at 8 pm.', tags: ['important'], createdAt: '2025-06-01T00:00:00Z' },
  { id: 'new', text: 'Lisbon offsite: the hotel booking moved to the 19th.', createdAt: new Date(Date.now() - DAY).toISOString() },
  { id: 'misc', text: 'The Lisbon office has a new coffee machine.', createdAt: new Date(Date.now() - 30 * DAY).toISOString() },
];
beforeAll(async () => {
  h = await launchExtension();
  await h.seed(ITEMS);
});
afterAll(async () => h?.close());

async function ranked(tabId: number): Promise<PanelState> {
  let state = await h.call<PanelState>('panel:get', { tabId });
  for (let i = 0; i < 100 && (state.status !== 'found' || state.model.state !== 'ready'); i++) {
    await new Promise((r) => setTimeout(r, 100));
    state = await h.call<PanelState>('panel:get', { tabId });
  }
  return state;
}
const order = (s: PanelState) => s.cards.map((c) => c.item.id);

describe('learning from feedback', () => {
  it('learns from copies of the second card, says so, and is off and reset in one click each', async () => {
    const { page, tabId } = await h.openPage(`/fixtures/textarea.html?l=${Math.random()}`);
    await page.locator('#field').click();
    await page.locator('#field').pressSequentially('Lisbon offsite hotel', { delay: 2 });
    const before = await ranked(tabId);
    expect(order(before).slice(0, 2)).toEqual(['new', 'old']);
    // The user keeps taking the older, important note over the newer one.
    for (let i = 0; i < 40; i++) await h.call('feedback:record', { tabId, id: 'old', action: 'copy' });
    expect((await h.call<{ events: number }>('learning:status', {})).events).toBe(40);

    const after = await ranked(tabId);
    expect(order(after)[0]).toBe('old');
    expect(after.cards[0].learned).toMatch(/^Learned from your feedback: priority counts more everywhere, so it is above/);

    const options = await h.context.newPage();
    await options.goto(`chrome-extension://${h.extensionId}/options.html`);
    const section = options.locator('[data-testid="learning"]');
    await expect.poll(() => section.locator('[data-testid="learning-line"]').allInnerTexts(), { timeout: 10_000 })
      .toContain('Learned: priority counts more everywhere (×3.0)');

    await section.locator('[data-testid="learning-toggle"]').click();
    await expect.poll(() => section.getAttribute('data-enabled')).toBe('false');
    expect(await section.locator('[data-testid="learning-state"]').innerText()).toMatch(/Learning is off/);
    expect(order(await ranked(tabId))).toEqual(order(before));

    await section.locator('[data-testid="learning-toggle"]').click();
    await expect.poll(() => section.getAttribute('data-enabled')).toBe('true');
    expect(order(await ranked(tabId))[0]).toBe('old');
    await section.locator('[data-testid="learning-reset"]').click();
    await expect.poll(() => section.locator('[data-testid="learning-state"]').innerText()).toMatch(/Not enough feedback yet \(0 of/);
    expect(order(await ranked(tabId))).toEqual(order(before));
    await options.close();
    await page.close();
  });
});
