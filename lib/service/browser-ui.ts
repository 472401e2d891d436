import { browser, type Browser } from 'wxt/browser';

/** Context menu items (ids fixed by CONTRACT.md). Recreated on every start: menus survive, duplicates throw. */
export function installMenus(): void {
  browser.contextMenus.removeAll(() => {
    browser.contextMenus.create({ id: 'remember-selection', title: 'Remember this selection', contexts: ['selection'] });
    browser.contextMenus.create({ id: 'remember-page', title: 'Remember this page', contexts: ['page', 'editable'] });
    browser.contextMenus.create({ id: 'remember-link', title: 'Remember this link', contexts: ['link'] });
  });
  // Chrome: the toolbar button opens the side panel.
  const sidePanel = (browser as unknown as { sidePanel?: { setPanelBehavior(o: { openPanelOnActionClick: boolean }): Promise<void> } }).sidePanel;
  void sidePanel?.setPanelBehavior({ openPanelOnActionClick: true }).catch(() => {});
}

export async function openPanel(tab: Browser.tabs.Tab | undefined): Promise<void> {
  const sidePanel = (browser as unknown as { sidePanel?: { open(o: { windowId?: number; tabId?: number }): Promise<void> } }).sidePanel;
  if (sidePanel && tab?.windowId !== undefined) await sidePanel.open({ windowId: tab.windowId });
  else await (browser as unknown as { sidebarAction?: { open(): Promise<void> } }).sidebarAction?.open();
}
