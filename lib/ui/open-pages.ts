import { browser } from 'wxt/browser';

/** Where the options page keeps its import controls: options.html#import. */
export const IMPORT_SECTION = 'import';

/** The options page at its import section (from the panel's welcome). */
export function openImport(): void {
  void browser.tabs.create({ url: browser.runtime.getURL(`/options.html#${IMPORT_SECTION}`) });
}

/** The browser's own page for changing extension shortcuts. */
export function openShortcutSettings(): void {
  const commands = browser.commands as typeof browser.commands & { openShortcutSettings?: () => Promise<void> };
  if (commands.openShortcutSettings) void commands.openShortcutSettings(); // Firefox
  else void browser.tabs.create({ url: 'chrome://extensions/shortcuts' });
}
