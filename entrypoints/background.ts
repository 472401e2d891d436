import { browser } from 'wxt/browser';
import { PANEL_PORT } from '../lib/messaging/protocol';
import { isExtensionPage } from '../lib/messaging/rpc';
import { BackstoryService } from '../lib/service/backstory-service';
import { installMenus, installToolbarButton, openPanel } from '../lib/service/browser-ui';

export default defineBackground(() => {
  const service = new BackstoryService();
  service.serve();
  void service.imports.resume(); // an import a stopped worker left unfinished goes on
  installMenus();
  installToolbarButton();
  browser.runtime.onConnect.addListener((port) => {
    if (port.name === PANEL_PORT && port.sender && isExtensionPage(port.sender)) service.connectPanel(port);
  });
  browser.contextMenus.onClicked.addListener((info, tab) => {
    if (info.menuItemId === 'remember-selection') void service.reportFailure(service.rememberSelection(info, tab));
    if (info.menuItemId === 'remember-page') void service.reportFailure(service.rememberPage(info, tab));
  });
  // Site access: the content script follows the sites the user allows (and takes back), across restarts too.
  browser.permissions.onAdded.addListener((p) => void service.sitesChanged({ added: p.origins ?? [] }));
  browser.permissions.onRemoved.addListener((p) => void service.sitesChanged({ removed: p.origins ?? [] }));
  void service.access.sync().catch(() => {});
  browser.commands.onCommand.addListener((command, tab) => {
    if (command === 'insert-top-card') void service.insertTopCard(tab);
    if (command === 'open-side-panel') void openPanel(tab);
  });
  // Memory first, then the model: panels get cards ranked by words as soon as memory is in, and semantic ones when
  // the model is ready (a second push). Loading the model alongside was slower to first cards: its session set-up
  // runs on this same thread and held up the memory load. Nothing depends on this finishing.
  void service.store.load().then(() => service.model.get()).then(() => service.indexInBackground());
});
