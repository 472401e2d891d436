import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PanelState } from '../../lib/messaging/protocol';
import { launchExtension, ROOT, type Harness } from './harness';
import { reasonOf } from '../unit/rank-fixtures';

// The demo `npm start` opens: the right background for an email to Dana and for a chat about the retry bug.
let h: Harness;
beforeAll(async () => {
  h = await launchExtension();
  await h.call('memory:import', { fileName: 'memory.json', content: readFileSync(join(ROOT, 'demo', 'memory.json'), 'utf8') });
});
afterAll(async () => h?.close());

async function rankedFor(path: string, field: string): Promise<PanelState> {
  const { page, tabId } = await h.openPage(path);
  await page.locator(field).click();
  await page.keyboard.press('Control+End');
  await page.keyboard.type(' ');
  let state = await h.call<PanelState>('panel:get', { tabId });
  for (let i = 0; i < 50 && state.status !== 'found'; i++) {
    await page.waitForTimeout(100);
    state = await h.call<PanelState>('panel:get', { tabId });
  }
  await page.close();
  return state;
}

describe('the demo', () => {
  it('reads the compose form’s recipient and brings the decision and how Dana likes emails', async () => {
    const state = await rankedFor('/demo/compose.html', '#body');
    expect(state.task?.people).toContain('dana@northwind.example');
    const ids = state.cards.map((c) => c.item.id);
    expect(ids[0]).toBe('demo-budget-decision');
    expect(ids).toContain('demo-dana');
    expect(ids).not.toContain('demo-garden');
    expect(ids).not.toContain('demo-offsite');
    // The code-style rule applies to code, not to this email: not offered, not in the package, and "why not?" says so.
    expect(ids).not.toContain('demo-code-style');
    expect(state.package?.ids).not.toContain('demo-code-style');
    expect(reasonOf(state.trace, 'demo-code-style')).toMatch(/only when the task is about “code”/);
  });

  it('brings the incident note first for the chat about the retry bug, and keeps Dana’s rule out', async () => {
    const state = await rankedFor('/demo/chat.html', '#prompt');
    const ids = state.cards.map((c) => c.item.id);
    expect(ids[0]).toBe('demo-retry');
    expect(ids).not.toContain('demo-dana');
    expect(ids).not.toContain('demo-garden');
    // The budget boundary is about the budget; this chat is not.
    expect(ids).not.toContain('demo-budget-boundary');
    expect(state.package?.ids).not.toContain('demo-budget-boundary');
    expect(ids).toContain('demo-code-style');
  });

  it('shows each instruction\'s scope on its card', async () => {
    const { page, tabId } = await h.openPage('/demo/chat.html');
    await page.locator('#prompt').click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type(' ');
    const panel = await h.openPanel(tabId);
    const chip = panel.locator('[data-testid="card"][data-id="demo-code-style"] [data-testid="card-scope"]');
    await expect.poll(() => chip.innerText(), { timeout: 30_000 }).toMatch(/When the task is about “code”/);
    await panel.close();
    await page.close();
  });
});
