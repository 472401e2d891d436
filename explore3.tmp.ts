import { readFileSync } from 'node:fs';
import { launchFirefoxExtension } from './test/e2e/firefox-harness';
const t0 = Date.now();
const lap = (s: string, x: unknown = '') => console.log(((Date.now() - t0) / 1000).toFixed(1), s, typeof x === 'string' ? x : JSON.stringify(x).slice(0, 300));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const h = await launchFirefoxExtension();
try {
  lap('import', await h.call('memory:import', { fileName: 'memory.json', content: readFileSync('demo/memory.json', 'utf8') }));
  const { page, tabId } = await h.openPage('/demo/chat.html');
  await page.bringToFront();
  await page.click('#prompt');
  await page.keyboard.press('End');
  await page.keyboard.type(' ');
  lap('value', await page.$eval('#prompt', (e) => [(e as HTMLTextAreaElement).value, document.activeElement?.id, document.hasFocus()]));
  for (let i = 0; i < 10; i++) {
    const s = await h.call<any>('panel:get', { tabId });
    lap('state', { status: s.status, task: s.task, cards: s.cards.map((c: any) => c.item.id) });
    await sleep(500);
  }
  const panel = await h.openPanel(tabId);
  await sleep(2000);
  const s = await h.call<any>('panel:get', { tabId });
  lap('state after panel', { status: s.status, task: s.task, cards: s.cards.map((c: any) => c.item.id) });
} finally {
  await h.close();
}
