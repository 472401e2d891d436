import { browser, type Browser } from 'wxt/browser';

type ChromeSidePanel = {
  setPanelBehavior(o: { openPanelOnActionClick: boolean }): Promise<void>;
  open(o: { windowId?: number; tabId?: number }): Promise<void>;
};
/** Firefox's sidebar. open()/toggle() are only allowed from a user action's handler (click, shortcut), synchronously. */
type FirefoxSidebar = { open(): Promise<void>; toggle(): Promise<void> };

const sidePanel = (): ChromeSidePanel | undefined => (browser as unknown as { sidePanel?: ChromeSidePanel }).sidePanel;
const sidebar = (): FirefoxSidebar | undefined => (browser as unknown as { sidebarAction?: FirefoxSidebar }).sidebarAction;

/**
 * "Remember this" is offered on web pages only. A blob:, data:, file: or about:srcdoc document is whatever a page or a
 * download made it, with no site to scope what is saved to.
 */
export const MENU_DOCUMENTS = ['http://*/*', 'https://*/*'];

/** Context menu items (their ids are public: tests and tools dispatch them). Recreated on every start: menus survive, duplicates throw. */
export function installMenus(): void {
  browser.contextMenus.removeAll(() => {
    const documentUrlPatterns = MENU_DOCUMENTS;
    browser.contextMenus.create({ id: 'remember-selection', title: 'Remember this selection', contexts: ['selection'], documentUrlPatterns });
    browser.contextMenus.create({ id: 'remember-page', title: 'Remember this page', contexts: ['page', 'editable'], documentUrlPatterns });
    browser.contextMenus.create({ id: 'remember-link', title: 'Remember this link', contexts: ['link'], documentUrlPatterns });
  });
}

/**
 * The toolbar button opens the panel. Chrome does it itself once told to; Firefox has no such setting, so the click
 * toggles the sidebar (registered at start-up so that a click wakes the event page).
 */
export function installToolbarButton(): void {
  const chromePanel = sidePanel();
  if (chromePanel) {
    void chromePanel.setPanelBehavior({ openPanelOnActionClick: true }).catch(() => {});
    return;
  }
  const firefoxSidebar = sidebar();
  if (firefoxSidebar) browser.action.onClicked.addListener(() => void firefoxSidebar.toggle());
}

/** Opens the panel for a command. On Firefox the call must stay synchronous within the shortcut's handler. */
export async function openPanel(tab: Browser.tabs.Tab | undefined): Promise<void> {
  const chromePanel = sidePanel();
  if (chromePanel && tab?.windowId !== undefined) await chromePanel.open({ windowId: tab.windowId });
  else await sidebar()?.open();
}
