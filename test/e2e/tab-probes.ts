import type { Page } from 'playwright-core';
import type { PanelState } from '../../lib/messaging/protocol';
import type { Harness } from './harness';

/** Opens a page (waiting for `waitFor` when given) and finds its tab id as the service worker knows it. */
export async function openTab(h: Harness, url: string, waitFor?: string): Promise<{ page: Page; tabId: number }> {
  const page = await h.context.newPage();
  await page.goto(url);
  if (waitFor) await page.waitForSelector(waitFor);
  const sw = await h.serviceWorker();
  const tabId = await sw.evaluate(async (u) => (await chrome.tabs.query({})).find((t) => t.url === u)?.id, page.url());
  if (tabId === undefined) throw new Error(`no tab for ${url}`);
  return { page, tabId };
}

/** Whether a content script answers in the tab's top frame (the service worker's own question to the page). */
export async function scriptAnswers(h: Harness, tabId: number): Promise<boolean> {
  const sw = await h.serviceWorker();
  return sw.evaluate(async (id) => {
    try {
      const r = (await chrome.tabs.sendMessage(id, { type: 'page:read', payload: {} }, { frameId: 0 })) as { ok?: boolean } | undefined;
      return r?.ok === true;
    } catch {
      return false;
    }
  }, tabId);
}

/** Everything the service worker holds about the tab's task: its answer to the panel and the stored reading. */
export async function seenByService(h: Harness, tabId: number): Promise<string> {
  const state = await h.call<PanelState>('panel:get', { tabId });
  const sw = await h.serviceWorker();
  const stored = await sw.evaluate((id) => chrome.storage.session.get(`task:${id}`), tabId);
  return JSON.stringify({ state, stored });
}
