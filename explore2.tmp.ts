import { launchFirefoxExtension } from './test/e2e/firefox-harness';
const t0 = Date.now();
const lap = (s: string, x: unknown = '') => console.log(((Date.now() - t0) / 1000).toFixed(1), s, typeof x === 'string' ? x : JSON.stringify(x));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const h = await launchFirefoxExtension();
lap('launched', h.version);
try {
  const { page, tabId } = await h.openPage('/fixtures/article.html');
  await page.bringToFront();
  lap('sidebar', await h.chrome('return SidebarController.isOpen'));
  await h.chrome('SidebarController.hide(); return true');
  lap('sidebar after hide', await h.chrome('return SidebarController.isOpen'));
  lap('button', await h.chrome(`const ids = [...document.querySelectorAll('[id*="backstory"]')].map(e => e.id + ':' + e.localName); return ids`));
  lap('click', await h.chrome(`const id = 'backstory_backstory_extension-browser-action'; const w = CustomizableUI.getWidget(id); CustomizableUI.addWidgetToArea(id, CustomizableUI.AREA_NAVBAR); const b = document.getElementById(id); if (!b) return ['none', w?.areaType]; const btn = b.querySelector('.unified-extensions-item-action-button'); btn.click(); return ['clicked', btn?.localName, w?.areaType]`));
  await sleep(1000);
  lap('sidebar after click', await h.chrome('return SidebarController.isOpen'));
  await h.chrome('SidebarController.hide(); return true');
  await page.bringToFront();
  await page.click('h1');
  lap('key', await h.chrome(`const ks = document.getElementById('ext-keyset-id-backstory_backstory_extension'); const keys = [...ks.children].map(k => [k.getAttribute('key'), k.getAttribute('modifiers')]); const k = [...ks.children].find(k => k.getAttribute('key') === 'B'); k.doCommand(); return keys`));
  await sleep(1000);
  lap('sidebar after key', await h.chrome('return SidebarController.isOpen'));
  // select + right click
  const box = await page.evaluate(() => {
    const p = document.querySelector('#backoff')!;
    const range = document.createRange();
    range.selectNodeContents(p);
    getSelection()!.removeAllRanges();
    getSelection()!.addRange(range);
    const r = p.getBoundingClientRect();
    return { x: r.x + 20, y: r.y + r.height / 2, sel: getSelection()!.toString().slice(0, 40) };
  });
  lap('sel', box);
  await page.mouse.click(box.x, box.y, { button: 'right' });
  await sleep(800);
  lap('menu', await h.chrome(`const m = document.getElementById('contentAreaContextMenu'); return { state: m.state, items: [...m.querySelectorAll('[id*="backstory"]')].map(e => e.id + ':' + e.hidden) }`));
  const before = (await h.call<{ items: unknown[] }>('memory:list', {})).items.length;
  lap('activate', await h.chrome(`const m = document.getElementById('contentAreaContextMenu'); const it = document.getElementById('backstory_backstory_extension-menuitem-_remember-selection'); if (!it) return 'none'; m.activateItem(it); return 'ok'`));
  for (let i = 0; i < 100; i++) { const n = (await h.call<{ items: unknown[] }>('memory:list', {})).items; if (n.length > before) { lap('saved', n); break; } await sleep(300); }
} finally {
  await h.close();
}
