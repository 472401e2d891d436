// `npm start`: build, open Chromium with Backstory loaded on the demo pages, seed sample memory on first run.
// `npm start -- --headless`: the same without a display; prints each demo page's ranked cards and writes a PNG of
// the side panel beside them. `npm start -- --empty`: a fresh profile with nothing in memory, as a first install
// looks (the panel's welcome).
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { launchExtension, ROOT, type Harness } from '../test/e2e/harness';
import type { PanelState } from '../lib/messaging/protocol';

const args = process.argv.slice(2);
const wantHeadless = args.includes('--headless');
const empty = args.includes('--empty');
const headless = wantHeadless || (!process.env.DISPLAY && !process.env.WAYLAND_DISPLAY);
if (headless && !wantHeadless) console.log('No display found: running headless (as with `npm start -- --headless`).');

if (!args.includes('--no-build')) {
  console.log('Building the extension…');
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
}

const DEMOS = [
  { name: 'compose', path: '/demo/compose.html', field: '#body' },
  { name: 'chat', path: '/demo/chat.html', field: '#prompt' },
];

async function seedOnFirstRun(h: Harness): Promise<void> {
  const { items } = await h.call<{ items: unknown[] }>('memory:list', {});
  if (items.length) return console.log(`Memory: ${items.length} items (kept from an earlier run).`);
  const file = readFileSync(join(ROOT, 'demo', 'memory.json'), 'utf8');
  const { added } = await h.call<{ added: number }>('memory:import', { fileName: 'memory.json', content: file });
  console.log(`Memory: seeded ${added} demo items.`);
}

/** Puts the caret at the end of the demo page's field, as a person starting to write would. */
async function focusField(page: Page, selector: string): Promise<void> {
  await page.locator(selector).click();
  await page.keyboard.press('Control+End');
  await page.keyboard.type(' ');
}

function printCards(name: string, state: PanelState): void {
  console.log(`\n${name}: ${state.status}${state.task ? ` — “${state.task.ask.trim().slice(0, 70)}”` : ''}`);
  state.cards.forEach((c, i) => {
    console.log(`  ${i + 1}. [${c.kind}] ${c.item.title}  (score ${c.score.toFixed(2)})`);
    if (c.why.length) console.log(`     why: ${c.why.join('; ')}`);
  });
  if (!state.cards.length) console.log('  (no cards)');
}

const profile = join(ROOT, '.cache', empty ? 'start-profile-empty' : 'start-profile');
// A first run every time: nothing kept from an earlier --empty run.
if (empty) rmSync(profile, { recursive: true, force: true });
// Chromium keeps an extension's installed service worker script in the profile and would run the previous build's
// worker; dropping that cache makes it load the fresh build. Memory (IndexedDB) and settings are kept.
rmSync(join(profile, 'Default', 'Service Worker'), { recursive: true, force: true });
// launchExtension allows the demo server's site (127.0.0.1) as a user would in chrome://extensions (Site access → Add a
// site, then the extension's own request finds it allowed), so the demo pages are read without a click.
const h = await launchExtension({ headless, userDataDir: profile, port: headless ? 0 : 5757 });
if (empty) console.log('Memory: empty (a first run); the side panel shows how to fill it.');
else await seedOnFirstRun(h);

if (headless && empty) {
  const outDir = join(ROOT, 'screenshots');
  mkdirSync(outDir, { recursive: true });
  const { page, tabId } = await h.openPage(DEMOS[0].path);
  const panel = await h.openPanel(tabId);
  await panel.setViewportSize({ width: 420, height: 900 });
  await panel.locator('[data-testid="welcome"]').waitFor({ timeout: 30_000 });
  console.log(`\n${(await panel.locator('.welcome-lead').innerText()).trim()}`);
  for (const way of await panel.locator('.welcome-ways li').allInnerTexts()) console.log(`  - ${way.replace(/\s*\n\s*/g, ': ')}`);
  const png = join(outDir, 'start-welcome-panel.png');
  await panel.screenshot({ path: png, fullPage: true });
  console.log(`  side panel: ${png}`);
  await page.close();
  await h.close();
} else if (headless) {
  const outDir = join(ROOT, 'screenshots');
  mkdirSync(outDir, { recursive: true });
  for (const demo of DEMOS) {
    const { page, tabId } = await h.openPage(demo.path);
    await focusField(page, demo.field);
    let state = await h.call<PanelState>('panel:get', { tabId });
    for (let i = 0; i < 50 && (state.status === 'watching' || state.status === 'searching'); i++) {
      await page.waitForTimeout(200);
      state = await h.call<PanelState>('panel:get', { tabId });
    }
    printCards(demo.name, state);
    const panel = await h.openPanel(tabId);
    await panel.setViewportSize({ width: 420, height: 900 });
    await panel.locator('[data-testid="status"][data-state="found"], [data-testid="status"][data-state="empty"]').waitFor({ timeout: 30_000 });
    const png = join(outDir, `start-${demo.name}-panel.png`);
    await panel.screenshot({ path: png, fullPage: true });
    console.log(`  side panel: ${png}`);
    await panel.close();
    await page.close();
  }
  await h.close();
} else {
  console.log(`Demo pages: ${h.origin}/demo/compose.html and ${h.origin}/demo/chat.html. Close the browser to stop.`);
  const pages: { page: Page; tabId: number }[] = [];
  for (const demo of DEMOS) {
    const opened = await h.openPage(demo.path);
    await focusField(opened.page, demo.field);
    pages.push(opened);
  }
  await pages[0].page.bringToFront();
  // Opening the real side panel needs a user gesture; an extension page's evaluate counts as one.
  const ext = await h.extensionPage();
  await ext.evaluate((tabId) => chrome.sidePanel.open({ tabId }), pages[0].tabId).catch(() => {});
  await ext.close();
  await new Promise<void>((resolve) => h.context.on('close', () => resolve()));
  await h.close().catch(() => {});
}
