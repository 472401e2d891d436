import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { launchExtension, ROOT, type Harness } from './harness';

/**
 * An automated accessibility audit (axe-core) of the side panel and the options page as they render in Chromium,
 * in the light and the dark theme: no serious or critical violation (contrast of marked words and badges included).
 */
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
type Violation = { id: string; impact: string | null; help: string; nodes: { target: string[]; failureSummary?: string }[] };

let h: Harness;
beforeAll(async () => {
  h = await launchExtension();
});
afterAll(async () => {
  await h?.close();
});

/** Runs axe in the page (evaluated through the DevTools protocol, which the extension's CSP does not block). */
async function audit(page: Page): Promise<string[]> {
  return inBothThemes(page, async (scheme) => {
    const violations = (await page.evaluate(
      'axe.run(document, { resultTypes: ["violations"] }).then((r) => r.violations)',
    )) as Violation[];
    return violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => {
        const where = v.nodes.slice(0, 4).map((n) => `${n.target.join(' ')}${n.failureSummary ? ` (${n.failureSummary.split('\n').slice(1).join(' ').trim()})` : ''}`);
        return `[${scheme}] ${v.id} (${v.impact}): ${v.help} — ${where.join('; ')}`;
      });
  });
}

/** Runs `check` in the light and then the dark theme, with axe loaded in the page; their findings in that order. */
async function inBothThemes(page: Page, check: (scheme: 'light' | 'dark') => Promise<string[]>): Promise<string[]> {
  const found: string[] = [];
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme, reducedMotion: 'reduce' });
    if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
    found.push(...(await check(scheme)));
  }
  return found;
}

/**
 * Whether axe measured the contrast of the marked words and the kind badges, in both themes: a colour it cannot
 * resolve (a gradient, an overlap) lands in "incomplete", which the audit above would let pass unseen.
 */
async function markAndBadgeContrast(page: Page): Promise<string[]> {
  return inBothThemes(page, async (scheme) => {
    const r = (await page.evaluate(
      'axe.run(document, { runOnly: ["color-contrast"] }).then((r) => ({ measured: [...r.passes, ...r.violations], unsure: r.incomplete }))',
    )) as Record<'measured' | 'unsure', { nodes: { html: string }[] }[]>;
    const ours = (list: { nodes: { html: string }[] }[], re: RegExp) => list.flatMap((x) => x.nodes).filter((n) => re.test(n.html));
    return [
      `[${scheme}] marks ${ours(r.measured, /^<mark/).length > 0}, badges ${ours(r.measured, /^<[^>]*class="badge/).length > 0}`,
      ...ours(r.unsure, /^<mark|^<[^>]*class="badge/).map((n) => `[${scheme}] not measured: ${n.html.slice(0, 80)}`),
    ];
  });
}

async function panelOn(path: string): Promise<{ page: Page; panel: Page }> {
  const { page, tabId } = await h.openPage(path);
  const panel = await h.openPanel(tabId);
  await panel.setViewportSize({ width: 400, height: 860 });
  return { page, panel };
}

describe('accessibility audit (axe-core)', () => {
  it('finds a problem where there is one (faint text, an unlabelled field)', async () => {
    const options = await h.context.newPage();
    await options.goto(`chrome-extension://${h.extensionId}/options.html`);
    await options.evaluate(() => {
      const p = document.createElement('p');
      p.textContent = 'Faint text';
      p.style.cssText = 'color: #bbb; background: #fff';
      document.querySelector('main')?.append(p, document.createElement('input'));
    });
    const found = (await audit(options)).join('\n');
    expect(found).toMatch(/\[light\] color-contrast \(serious\)/);
    expect(found).toMatch(/label \(critical\)/);
    await options.close();
  });

  it('the welcome of an empty memory', async () => {
    const { page, panel } = await panelOn('/fixtures/textarea.html?a11y=welcome');
    await panel.locator('[data-testid="welcome"]').waitFor({ timeout: 30_000 });
    expect(await audit(panel)).toEqual([]);
    await panel.close();
    await page.close();
  });

  it('the side panel with cards, a card focused, its menu open, and the trace open', async () => {
    await h.seed((JSON.parse(readFileSync(join(ROOT, 'demo', 'memory.json'), 'utf8')) as { items: unknown[] }).items);
    const { page, panel } = await panelOn('/demo/compose.html');
    await page.locator('#body').click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type(' can we confirm the numbers?');
    await panel.locator('[data-testid="status"][data-state="found"]').waitFor({ timeout: 60_000 });
    await panel.locator('[data-testid="model-status"]').waitFor({ state: 'detached', timeout: 60_000 });
    await expect.poll(() => panel.locator('mark').count(), { timeout: 30_000 }).toBeGreaterThan(0);
    expect(await audit(panel)).toEqual([]);
    expect(await markAndBadgeContrast(panel)).toEqual(['[light] marks true, badges true', '[dark] marks true, badges true']);

    const first = panel.locator('[data-testid="card"]').first();
    await first.locator('[data-testid="card-why"]').focus();
    await first.locator('[data-testid="card-more"]').click();
    expect(await audit(panel)).toEqual([]);

    await first.locator('[data-testid="card-why"]').click();
    await panel.locator('[data-testid="package"] summary').click();
    await panel.locator('[data-testid="why-not"] summary').click().catch(() => {});
    await first.locator('[data-testid="card-why-text"]').waitFor();
    expect(await audit(panel)).toEqual([]);

    await panel.locator('[data-testid="tab-memory"]').click();
    await panel.locator('[data-testid="memory-item"]').first().waitFor();
    expect(await audit(panel)).toEqual([]);
    await panel.close();
    await page.close();
  });

  it('the side panel when nothing is relevant', async () => {
    const { page, panel } = await panelOn('/fixtures/textarea.html?a11y=empty');
    await page.locator('#field').click();
    await page.locator('#field').pressSequentially('zebra xylophone quasar', { delay: 5 });
    await panel.locator('[data-testid="empty-state"]').waitFor({ timeout: 60_000 });
    expect(await audit(panel)).toEqual([]);
    await panel.close();
    await page.close();
  });

  it('the options page', async () => {
    const options = await h.context.newPage();
    await options.setViewportSize({ width: 1000, height: 900 });
    await options.goto(`chrome-extension://${h.extensionId}/options.html`);
    await options.locator('[data-testid="preview-card"]').first().waitFor({ timeout: 60_000 });
    expect(await audit(options)).toEqual([]);
    await options.close();
  });
});
