import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { PanelState } from '../../lib/messaging/protocol';
import { launchExtension, type Harness } from './harness';

// A first run: the memory is empty, and the panel says what Backstory does and how to fill it instead of going blank.
let h: Harness;
beforeAll(async () => {
  h = await launchExtension();
});
afterAll(async () => {
  await h?.close();
});

async function panelOn(path: string): Promise<{ page: Page; panel: Page; tabId: number }> {
  const { page, tabId } = await h.openPage(path);
  const panel = await h.openPanel(tabId);
  await panel.setViewportSize({ width: 400, height: 800 });
  return { page, panel, tabId };
}

describe('first run', () => {
  it('welcomes an empty memory with the ways to fill it and the two shortcuts, also while the user writes', async () => {
    const { page, panel } = await panelOn('/fixtures/textarea.html?welcome=1');
    const welcome = panel.locator('[data-testid="welcome"]');
    await welcome.waitFor({ timeout: 30_000 });
    expect(await welcome.locator('.welcome-lead').innerText()).toMatch(/^Backstory keeps what you already wrote down.*on this device/);
    const ways = await welcome.locator('[data-testid="welcome-source"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-source')));
    expect(ways).toEqual(['chatgpt', 'claude', 'mail', 'notes']);
    expect(await welcome.locator('[data-source="chatgpt"]').innerText()).toMatch(/Settings → Data controls → Export data/);
    expect(await welcome.locator('[data-testid="welcome-demo"]').isEnabled()).toBe(true);
    expect(await welcome.innerText()).toMatch(/Remember this selection/);
    // The shortcuts as the browser has them (Chromium leaves a suggested key unset when it is taken).
    const sw = await h.serviceWorker();
    const given = await sw.evaluate(async () => Object.fromEntries((await chrome.commands.getAll()).map((c) => [c.name, c.shortcut ?? ''])));
    expect(given['insert-top-card']).toBe('Alt+Shift+K');
    const keys = (await welcome.locator('[data-testid="welcome-shortcuts"]').innerText()).replace(/\s+/g, ' ').replace(/ ?\+ ?/g, '+');
    expect(keys).toContain('Alt+Shift+K inserts the top card');
    expect(keys).toContain(`${given['open-side-panel'] || 'not set'} opens this panel`);
    expect(await welcome.locator('[data-testid="welcome-shortcut-settings"]').isVisible()).toBe(true);

    // Writing on the page with nothing in memory: the welcome stays (as the empty state), never a blank panel.
    await page.locator('#field').click();
    await page.locator('#field').pressSequentially('Can we confirm the Q3 budget?', { delay: 2 });
    await panel.locator('[data-testid="status"][data-state="empty"]').waitFor({ timeout: 30_000 });
    expect(await panel.locator('[data-testid="empty-state"] [data-testid="welcome"]').isVisible()).toBe(true);
    await panel.close();
    await page.close();
  });

  it('opens the options page at its import section from an import button', async () => {
    const { page, panel } = await panelOn('/fixtures/textarea.html?welcome=2');
    await panel.locator('[data-testid="welcome"]').waitFor({ timeout: 30_000 });
    const [options] = await Promise.all([h.context.waitForEvent('page'), panel.locator('[data-testid="welcome-import-chatgpt"]').click()]);
    await options.waitForLoadState();
    expect(new URL(options.url()).pathname + new URL(options.url()).hash).toBe('/options.html#import');
    await expect.poll(() => options.evaluate(() => document.activeElement?.id)).toBe('h-io');
    expect(await options.locator('#import [data-testid="import-file"]').count()).toBe(1);
    await options.close();
    await panel.close();
    await page.close();
  });

  it('"Try the demo memory" fills memory and the panel ranks from it', async () => {
    const { page, panel, tabId } = await panelOn('/demo/compose.html');
    await panel.locator('[data-testid="welcome-demo"]').click();
    await expect.poll(async () => (await h.call<{ items: unknown[] }>('memory:list', {})).items.length, { timeout: 30_000 }).toBe(7);
    await page.locator('#body').click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type(' ');
    await panel.locator('[data-testid="status"][data-state="found"]').waitFor({ timeout: 60_000 });
    expect(await panel.locator('[data-testid="welcome"]').count()).toBe(0);
    const state = await h.call<PanelState>('panel:get', { tabId });
    expect(state.cards.map((c) => c.item.id)).toContain('demo-budget-decision');
    await panel.close();
    await page.close();
  });
});
