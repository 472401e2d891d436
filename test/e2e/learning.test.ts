import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PanelState } from '../../lib/messaging/protocol';
import { launchExtension, ROOT, type Harness } from './harness';

// Learning from feedback in the built extension: what the user does with cards reaches the options page in plain
// words, and turning it off or resetting is one click each.
let h: Harness;
beforeAll(async () => {
  h = await launchExtension();
  await h.call('memory:import', { fileName: 'memory.json', content: readFileSync(join(ROOT, 'demo', 'memory.json'), 'utf8') });
});
afterAll(async () => h?.close());

async function ranked(tabId: number): Promise<PanelState> {
  let state = await h.call<PanelState>('panel:get', { tabId });
  for (let i = 0; i < 50 && state.status !== 'found'; i++) {
    await new Promise((r) => setTimeout(r, 100));
    state = await h.call<PanelState>('panel:get', { tabId });
  }
  return state;
}

describe('learning from feedback', () => {
  it('shows what it learned from copies of a lower card, and is off and reset in one click each', async () => {
    const { page, tabId } = await h.openPage('/demo/compose.html');
    await page.locator('#body').click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type(' ');
    const state = await ranked(tabId);
    expect(state.cards.length).toBeGreaterThan(2);
    // The user keeps taking the last card shown over those above it.
    const last = state.cards[state.cards.length - 1].item.id;
    for (let i = 0; i < 16; i++) await h.call('feedback:record', { tabId, id: last, action: 'copy' });

    const options = await h.context.newPage();
    await options.goto(`chrome-extension://${h.extensionId}/options.html`);
    const section = options.locator('[data-testid="learning"]');
    await expect.poll(() => section.locator('[data-testid="learning-line"]').count(), { timeout: 10_000 }).toBeGreaterThan(0);
    expect(await section.locator('[data-testid="learning-line"]').first().innerText()).toMatch(/^Learned: .+ counts (more|less) /);
    const learned = await ranked(tabId);
    expect(learned.cards.map((c) => c.item.id).indexOf(last)).toBeLessThan(state.cards.length - 1);

    await section.locator('[data-testid="learning-toggle"]').click();
    await expect.poll(() => section.getAttribute('data-enabled')).toBe('false');
    expect(await section.locator('[data-testid="learning-state"]').innerText()).toMatch(/Learning is off/);
    expect((await ranked(tabId)).cards.map((c) => c.item.id)).toEqual(state.cards.map((c) => c.item.id));

    await section.locator('[data-testid="learning-toggle"]').click();
    await expect.poll(() => section.getAttribute('data-enabled')).toBe('true');
    await section.locator('[data-testid="learning-reset"]').click();
    await expect.poll(() => section.locator('[data-testid="learning-state"]').innerText()).toMatch(/Not enough feedback yet \(0 of/);
    expect((await ranked(tabId)).cards.map((c) => c.item.id)).toEqual(state.cards.map((c) => c.item.id));
    await options.close();
    await page.close();
  });
});
