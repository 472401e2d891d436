import type { Page } from 'playwright-core';
import type { Harness } from './harness';

/** Selects the element `selector` matches on `page` and saves it as "Remember this" does from the context menu. */
export async function rememberSelection(h: Harness, page: Page, tabId: number, selector: string): Promise<string> {
  await page.evaluate((sel) => {
    const range = document.createRange();
    range.selectNodeContents(document.querySelector(sel)!);
    getSelection()!.removeAllRanges();
    getSelection()!.addRange(range);
  }, selector);
  const selectionText = await page.evaluate(() => getSelection()!.toString());
  await h.contextMenu({ menuItemId: 'remember-selection', selectionText, pageUrl: page.url(), frameId: 0, editable: false }, tabId);
  return selectionText;
}
