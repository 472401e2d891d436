import { readFileSync } from 'node:fs';
import { launchFirefoxExtension } from './test/e2e/firefox-harness';
const t0 = Date.now();
const lap = (s: string, x: unknown = '') => console.log(((Date.now() - t0) / 1000).toFixed(1), s, typeof x === 'string' ? x : JSON.stringify(x));
const h = await launchFirefoxExtension();
lap('launched', h.version);
try {
  lap('import', await h.call('memory:import', { fileName: 'memory.json', content: readFileSync('demo/memory.json', 'utf8') }));
  const { page, tabId } = await h.openPage('/demo/compose.html');
  lap('page', tabId);
  const panel = await h.openPanel(tabId);
  lap('panel');
  await page.bringToFront();
  await page.click('#body');
  await page.keyboard.press('End');
  await page.keyboard.type(' ');
  for (let i = 0; i < 300; i++) {
    const st = await panel.evaluate(() => document.querySelector('[data-testid="status"]')?.getAttribute('data-state'));
    const ids = await panel.$$eval('[data-testid="card"]', (els) => els.map((e) => e.getAttribute('data-id')));
    if (i % 10 === 0 || st === 'found') lap('state', { st, ids });
    if (st === 'found' && ids[0] === 'demo-budget-decision') break;
    await new Promise((r) => setTimeout(r, 200));
  }
  lap('model', await h.call('model:status', {}));
  lap('chrome', await h.chrome('return { sidebar: typeof SidebarController, open: SidebarController.isOpen, tabs: gBrowser.tabs.length }'));
  // shortcut key
  await page.bringToFront();
  await page.click('#body');
  await page.keyboard.down('Alt'); await page.keyboard.down('Shift'); await page.keyboard.press('KeyB'); await page.keyboard.up('Shift'); await page.keyboard.up('Alt');
  await new Promise((r) => setTimeout(r, 1500));
  lap('after key', await h.chrome('return { open: SidebarController.isOpen, id: SidebarController.currentID, url: SidebarController.browser?.contentDocument?.getElementById("webext-panels-browser")?.currentURI?.spec }'));
} finally {
  await h.close();
}
