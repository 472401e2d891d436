import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWithBrokenModel, launchExtension, type Harness } from './harness';

const SECRET_NOTE = { id: 'budget', text: 'The draft budget for Q3 is 1.2M; Dana approved the contractor cut.' };

describe('privacy and safety in Chromium', () => {
  let h: Harness;
  const requests: string[] = [];
  /** Requests of the offscreen document and workers, which Playwright's context events do not include. */
  const otherRequests: { url: string; type: string }[] = [];
  let watcher: { attached: string[] };
  beforeAll(async () => {
    // Watched from the first moment: the model starts loading while the harness allows its test sites.
    h = await launchExtension({ onContext: (c) => c.on('request', (r) => requests.push(r.url())) });
    watcher = await h.watchOtherTargets((url, type) => otherRequests.push({ url, type }));
    await h.seed([SECRET_NOTE, { id: 'html', text: '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script> budget markup note' }]);
    // An import large enough to be indexed in the background: in Chrome that is the offscreen document's job.
    await h.seed(Array.from({ length: 12 }, (_, i) => ({ id: `garden${i}`, text: `Garden log ${i}: watered the tomato seedlings and moved the basil pots to the sunny window.` })));
  });
  afterAll(async () => h?.close());

  it('never reads password or one-time-code fields into the task', async () => {
    const { page, tabId } = await h.openPage('/fixtures/hostile.html');
    await page.locator('#password').click();
    await page.keyboard.type('hunter2-budget');
    await page.locator('#otp').click();
    await page.keyboard.type('123456');
    await page.waitForTimeout(600);
    const state = await h.call<{ task?: { ask: string }; status: string }>('panel:get', { tabId });
    expect(JSON.stringify(state)).not.toContain('hunter2');
    expect(JSON.stringify(state)).not.toContain('123456');
    expect(state.status).toBe('watching');
    await page.close();
  });

  it('gives page scripts no way to reach memory, and shows nothing to them before an explicit insert', async () => {
    const { page, tabId } = await h.openPage('/fixtures/hostile.html');
    await page.locator('#field').click();
    await page.keyboard.type('What is the draft budget for Q3?');
    await page.waitForTimeout(600);
    const state = await h.call<{ cards: { item: { id: string } }[] }>('panel:get', { tabId });
    expect(state.cards[0]?.item.id).toBe('budget');
    // A page script cannot message the extension (no externally_connectable)…
    const reach = await page.evaluate(async (id) => {
      const rt = (globalThis as { chrome?: { runtime?: { sendMessage?: unknown } } }).chrome?.runtime;
      if (!rt || typeof rt.sendMessage !== 'function') return 'no runtime';
      try {
        return await (rt.sendMessage as (id: string, m: unknown) => Promise<unknown>)(id, { type: 'memory:list', payload: {} });
      } catch (e) {
        return `refused: ${(e as Error).message}`;
      }
    }, h.extensionId);
    expect(JSON.stringify(reach)).not.toContain('Dana');
    // …and although memory was ranked for this page, none of it reached the page's DOM or messages.
    const seen = await page.evaluate(() => (window as unknown as { __seen: string[] }).__seen.join('\n'));
    expect(seen).not.toContain('Dana approved');
    await page.close();
  });

  it('renders memory text as text: markup in a memory is shown, never run', async () => {
    const { page, tabId } = await h.openPage('/fixtures/textarea.html');
    await page.locator('#field').click();
    await page.keyboard.type('budget markup note');
    const panel = await h.openPanel(tabId);
    const card = panel.locator('[data-testid="card"][data-id="html"]');
    await card.waitFor({ timeout: 60_000 });
    expect(await card.innerText()).toContain('<img src=x onerror=');
    expect(await panel.locator('[data-testid="card"] img, [data-testid="card"] script').count()).toBe(0);
    expect(await panel.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    await panel.close();
    await page.close();
  });

  it('stays responsive with 200,000 characters in the field', async () => {
    const { page, tabId } = await h.openPage('/fixtures/textarea.html');
    await page.locator('#field').click();
    await page.evaluate(() => {
      const el = document.querySelector('#field') as HTMLTextAreaElement;
      el.value = 'filler words '.repeat(15_000) + ' What is the draft budget for Q3?';
    });
    await page.keyboard.type(' Dana');
    const panel = await h.openPanel(tabId);
    await panel.locator('[data-testid="status"][data-state="found"], [data-testid="status"][data-state="empty"]').waitFor({ timeout: 30_000 });
    const state = await h.call<{ task?: { ask: string } }>('panel:get', { tabId });
    expect(state.task?.ask.length).toBeLessThanOrEqual(200);
    await panel.close();
    await page.close();
  });

  it('coalesces a page that changes 100 times a second instead of ranking on every change', async () => {
    const { page, tabId } = await h.openPage('/fixtures/churn.html');
    await page.locator('#field').click();
    await page.keyboard.type('draft budget');
    const panel = await h.openPanel(tabId);
    await panel.locator('[data-testid="status"][data-state="found"]').waitFor({ timeout: 30_000 });
    const seq = async () => (await h.call<{ seq: number }>('panel:get', { tabId })).seq;
    // Two seconds of a page rewriting itself 100 times a second: no new ask, so (almost) no re-ranking.
    const s0 = await seq();
    await page.evaluate(() => (window as unknown as { __churn(on: boolean): void }).__churn(true));
    await page.waitForTimeout(2000);
    const s1 = await seq();
    expect(s1 - s0).toBeLessThan(5);
    // A burst of 30 fast keystrokes while it churns: a few rankings, and the newest text wins.
    await page.keyboard.type(' for Q3 and what Dana approved', { delay: 10 });
    await page.evaluate(() => (window as unknown as { __churn(on: boolean): void }).__churn(false));
    await page.waitForTimeout(800);
    const after = await h.call<{ seq: number; task?: { ask: string }; cards: { item: { id: string } }[] }>('panel:get', { tabId });
    expect(after.seq - s1).toBeLessThan(12);
    expect(after.task?.ask).toContain('what Dana approved');
    expect(after.cards[0]?.item.id).toBe('budget');
    await panel.close();
    await page.close();
  });

  it('refuses a 5 MB selection with a message in the panel, and saves nothing', async () => {
    const { page, tabId } = await h.openPage('/fixtures/article.html');
    const panel = await h.openPanel(tabId);
    const before = (await h.call<{ items: unknown[] }>('memory:list', {})).items.length;
    await page.evaluate(() => {
      const div = document.createElement('div');
      div.id = 'huge';
      div.textContent = 'lorem ipsum dolor sit amet '.repeat(200_000);
      document.body.append(div);
      const range = document.createRange();
      range.selectNodeContents(div);
      getSelection()!.removeAllRanges();
      getSelection()!.addRange(range);
    });
    await h.contextMenu({ menuItemId: 'remember-selection', selectionText: 'lorem ipsum', pageUrl: page.url(), frameId: 0, editable: false }, tabId);
    await expect.poll(() => panel.locator('[data-testid="toast"]').innerText().catch(() => ''), { timeout: 30_000 }).toMatch(/Not saved: The text is 5,399,999 characters; one memory holds at most/);
    expect((await h.call<{ items: unknown[] }>('memory:list', {})).items.length).toBe(before);
    await panel.close();
    await page.close();
  });

  it('remembers a selection of one unbroken run of 100,000 characters at once, and goes on answering', async () => {
    const { page, tabId } = await h.openPage('/fixtures/article.html');
    // Zero-width spaces: one piece to the token counter's encoder, which took two minutes over it, the worker blocked.
    const run = `Kestrel audit notes ${'\u200b'.repeat(100_000)} end of the audit notes.`;
    const t0 = Date.now();
    await h.contextMenu({ menuItemId: 'remember-selection', selectionText: run, pageUrl: page.url(), frameId: 0, editable: false }, tabId);
    const kept = async () => (await h.call<{ items: { text: string }[] }>('memory:list', {})).items.some((i) => i.text.startsWith('Kestrel audit notes'));
    await expect.poll(kept, { timeout: 20_000 }).toBe(true);
    expect((await h.call<{ seq: number }>('panel:get', { tabId })).seq).toBeGreaterThanOrEqual(0);
    // A blocked worker answers late rather than not at all: how late is what the user sees.
    expect(Date.now() - t0, 'the worker answered within 20 s').toBeLessThan(20_000);
    await page.close();
  });

  it('holds a captured API key out of suggestions until the user confirms it', async () => {
    const { page, tabId } = await h.openPage('/fixtures/textarea.html');
    const secret = 'Staging deploy: use token ghp_abcdefghijklmnopqrstuvwxyz0123456789ABCD for the kestrel pipeline.';
    await h.contextMenu({ menuItemId: 'remember-selection', selectionText: secret, pageUrl: page.url(), frameId: 0, editable: false }, tabId);
    await page.locator('#field').click();
    await page.keyboard.type('kestrel pipeline staging deploy');
    const panel = await h.openPanel(tabId);
    await panel.locator('[data-testid="status"][data-state="empty"], [data-testid="status"][data-state="found"]').waitFor({ timeout: 30_000 });
    const { items } = await h.call<{ items: { id: string; text: string; needsReview?: string }[] }>('memory:list', {});
    const held = items.find((i) => i.text.includes('kestrel'))!;
    expect(held.needsReview).toMatch(/GitHub token/);
    expect(await panel.locator(`[data-testid="card"][data-id="${held.id}"]`).count()).toBe(0);
    await panel.locator('[data-testid="tab-memory"]').click();
    const row = panel.locator(`[data-testid="memory-item"][data-id="${held.id}"]`);
    await expect.poll(() => row.locator('[data-testid="memory-held"]').innerText()).toMatch(/looks like it contains a secret/);
    await row.locator('[data-testid="memory-confirm"]').click();
    await expect
      .poll(async () => (await h.call<{ cards: { item: { id: string } }[] }>('panel:get', { tabId })).cards.map((c) => c.item.id), { timeout: 30_000 })
      .toContain(held.id);
    await panel.close();
    await page.close();
  });

  it('makes no network request beyond its own files and the pages the user opened, from any of its contexts', async () => {
    await expect.poll(async () => (await h.call<{ unembedded: number }>('model:status', {})).unembedded, { timeout: 120_000 }).toBe(0);
    expect((await h.call<{ indexBackend?: string }>('model:status', {})).indexBackend).toMatch(/^offscreen\//);
    // chrome:// is the browser's own UI (the harness allows its test sites on chrome://extensions), not the network.
    const local = (u: string) =>
      u.startsWith('chrome-extension://') || u.startsWith(h.origin) || u.startsWith('data:') || u.startsWith('blob:') || u.startsWith('chrome://');
    expect(requests.filter((u) => !local(u))).toEqual([]);
    expect(otherRequests.filter((r) => !local(r.url))).toEqual([]);
    // Both were really watched: the service worker and the offscreen document each fetched the model from the
    // extension itself (so a request to anywhere else would have been seen too).
    expect(requests.some((u) => u.startsWith(`chrome-extension://${h.extensionId}/models/`))).toBe(true);
    expect(watcher.attached.some((t) => /^(other|background_page) /.test(t))).toBe(true);
    expect(otherRequests.some((r) => r.url.startsWith(`chrome-extension://${h.extensionId}/models/`))).toBe(true);
    expect(otherRequests.some((r) => r.url.startsWith(`chrome-extension://${h.extensionId}/ort/`))).toBe(true);
  });
});

describe('when the model cannot load', () => {
  let h: Harness;
  let dir: string;
  beforeAll(async () => {
    dir = buildWithBrokenModel('broken-model', () => true);
    h = await launchExtension({ buildDir: dir });
    await h.seed([SECRET_NOTE, { id: 'garden', text: 'Tomato seedlings need hardening off for a week.' }]);
  });
  afterAll(async () => {
    await h?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('still ranks by words, and the panel says why meaning-matching is off', async () => {
    const { page, tabId } = await h.openPage('/fixtures/textarea.html');
    await page.locator('#field').click();
    await page.keyboard.type('draft budget for Q3');
    const panel = await h.openPanel(tabId);
    await panel.locator('[data-testid="card"][data-id="budget"]').waitFor({ timeout: 60_000 });
    await expect.poll(() => panel.locator('body').innerText(), { timeout: 30_000 }).toMatch(/model did not load/i);
    const state = await h.call<{ model: { state: string }; cards: { item: { id: string } }[] }>('panel:get', { tabId });
    expect(state.model.state).toBe('failed');
    expect(state.cards.map((c) => c.item.id)).not.toContain('garden');
    await panel.close();
    await page.close();
  });
});
