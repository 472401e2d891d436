import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { launchExtension, ROOT, type Harness } from './harness';

/**
 * The README's pictures, kept current by every test run: the side panel in light and dark (the first-run welcome,
 * cards, the trace open, nothing relevant, the memory view) and the options page, written to docs/screenshots/.
 */
const OUT = join(ROOT, 'docs', 'screenshots');
let h: Harness;

beforeAll(async () => {
  mkdirSync(OUT, { recursive: true });
  h = await launchExtension();
});
afterAll(async () => {
  await h?.close();
});

async function shot(page: Page, name: string, scheme: 'light' | 'dark', fullPage = true) {
  await page.emulateMedia({ colorScheme: scheme, reducedMotion: 'reduce' });
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.waitForTimeout(100);
  const path = join(OUT, name);
  await page.screenshot({ path, fullPage });
  expect(statSync(path).size).toBeGreaterThan(5_000);
}

async function panelFor(tabId: number): Promise<Page> {
  const panel = await h.openPanel(tabId);
  await panel.setViewportSize({ width: 400, height: 860 });
  return panel;
}

describe('screenshots', () => {
  it('the welcome of an empty memory', async () => {
    const { page, tabId } = await h.openPage('/demo/compose.html?first-run');
    const panel = await panelFor(tabId);
    await panel.locator('[data-testid="welcome"]').waitFor({ timeout: 30_000 });
    await shot(panel, 'panel-welcome-light.png', 'light');
    await shot(panel, 'panel-welcome-dark.png', 'dark');
    await panel.close();
    await page.close();
  });

  it('side panel with cards, light and dark, and with the trace open', async () => {
    const demo = JSON.parse(readFileSync(join(ROOT, 'demo', 'memory.json'), 'utf8')) as { items: unknown[] };
    await h.seed(demo.items);
    const { page, tabId } = await h.openPage('/demo/compose.html');
    await page.locator('#body').click();
    await page.keyboard.press('End');
    await page.keyboard.press('Control+End');
    await page.keyboard.type('can we confirm the numbers?');
    const panel = await panelFor(tabId);
    await panel.locator('[data-testid="status"][data-state="found"]').waitFor({ timeout: 60_000 });
    await panel.locator('[data-testid="model-status"]').waitFor({ state: 'detached', timeout: 60_000 });
    await shot(panel, 'panel-light.png', 'light');
    await shot(panel, 'panel-dark.png', 'dark');
    // A card under the pointer shows its quieter actions.
    await panel.locator('[data-testid="card"]').first().hover();
    await shot(panel, 'panel-hover-light.png', 'light');
    await panel.mouse.move(200, 5);
    await panel.locator('[data-testid="card"]').first().locator('[data-testid="card-why"]').click();
    await panel.locator('[data-testid="package"] summary').click();
    await panel.locator('[data-testid="why-not"] summary').click().catch(() => {});
    await shot(panel, 'panel-trace-light.png', 'light');
    await shot(panel, 'panel-trace-dark.png', 'dark');
    await panel.locator('[data-testid="tab-memory"]').click();
    await panel.locator('[data-testid="memory-item"]').first().waitFor();
    await shot(panel, 'panel-memory-light.png', 'light');
    await panel.close();
    await page.close();
  });

  it('empty state', async () => {
    const { page, tabId } = await h.openPage('/fixtures/textarea.html');
    await page.locator('#field').click();
    await page.locator('#field').pressSequentially('zebra xylophone quasar', { delay: 5 });
    const panel = await panelFor(tabId);
    await panel.locator('[data-testid="empty-state"]').waitFor({ timeout: 60_000 });
    await shot(panel, 'panel-empty-light.png', 'light');
    await shot(panel, 'panel-empty-dark.png', 'dark');
    await panel.close();
    await page.close();
  });

  it('options page, light and dark', async () => {
    const options = await h.context.newPage();
    await options.setViewportSize({ width: 1000, height: 900 });
    await options.goto(`chrome-extension://${h.extensionId}/options.html`);
    await options.locator('[data-testid="preview-card"]').first().waitFor({ timeout: 60_000 });
    await shot(options, 'options-light.png', 'light', false);
    await shot(options, 'options-dark.png', 'dark', false);
    await options.close();
  });
});
