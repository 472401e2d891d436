/**
 * The chat assistants as the live sites are today, through the built extension: the content script on the real
 * hostnames (fixture pages served by the router) reads the conversation the panel ranks on, and a card goes into
 * Grok's and Microsoft 365 Copilot's prompt exactly once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { launchExtension, type Harness } from './harness';
import { openTab } from './tab-probes';
import { buildFixtures } from './fixtures/build';
import { routeFixtures } from './fixtures/editors/serve';
import { SITE_MAP, SITE_URLS } from './fixtures/sites/pages';
import type { PanelState } from '../../lib/messaging/protocol';
import type { InsertOutcome } from '../../lib/insert/index';

const ITEMS = [
  { id: 'replica', text: 'Postgres replica settings: wal_keep_size is 2 GB on the replicas; the nightly batch still runs on the primary' },
  { id: 'kafka', text: 'Kafka consumer group rebalancing storms on the ingest cluster: pin the partition assignment' },
  { id: 'priya', text: 'Priya keeps the switch inventory and the floor plan of the network' },
  { id: 'lease', text: 'Lease overlap: plan one week between the old lease and the new lease' },
  { id: 'proof', text: 'Sourdough cold proof: 12 to 16 hours in the fridge at 4 degrees before baking' },
  { id: 'signatory', text: 'Vendor contract renewals are signed on our side by Dana Ortiz, head of procurement' },
  { id: 'radiators', text: 'Radiator output at a low flow temperature: oversize the radiators about twice' },
  { id: 'grundfos', text: 'Grundfos circulator datasheet: model Alpha2 on the boiler loop' },
];
const PROOF_TEXT = ITEMS.find((i) => i.id === 'proof')!.text;
const SIGNATORY_TEXT = ITEMS.find((i) => i.id === 'signatory')!.text;
let h: Harness;

beforeAll(async () => {
  await buildFixtures();
  h = await launchExtension();
  await routeFixtures(h.context, SITE_MAP);
  await h.seed(ITEMS);
});
afterAll(async () => {
  await h?.close();
});

type Item = { text: string; tags: string[]; thread?: { id: string } };
const memory = async () => (await h.call<{ items: Item[] }>('memory:list', {})).items;
const state = (tabId: number) => h.call<PanelState>('panel:get', { tabId });
/** The ids of the cards the panel shows, best first. */
const cards = (panel: Page) => panel.locator('[data-testid="card"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-id')));

describe('what the panel ranks on', () => {
  it('Claude today: the cards come from the reply, not from the status line or the opened thinking block', async () => {
    const { page, tabId } = await openTab(h, SITE_URLS.claudeStatus, '[data-testid="chat-input"][contenteditable="true"]');
    await expect.poll(async () => (await state(tabId)).task?.adapter, { timeout: 30_000 }).toBe('claude');
    const panel = await h.openPanel(tabId);
    await expect.poll(() => cards(panel), { timeout: 30_000 }).toContain('replica');
    // The thinking block names Kafka consumer groups on the ingest cluster; the conversation does not.
    expect(await cards(panel)).not.toContain('kafka');
    await panel.close();
    await page.close();
  });

  it('a virtualised transcript scrolled up: the cards still follow the latest turns, kept from when they were on screen', async () => {
    const { page, tabId } = await openTab(h, SITE_URLS.chatgptVirtual, '#prompt-textarea[contenteditable="true"]');
    const panel = await h.openPanel(tabId);
    await expect.poll(async () => (await cards(panel))[0], { timeout: 30_000 }).toBe('priya');
    await page.evaluate(() => (window as any).__virtual.scrollUp());
    // A fresh reading after the scroll (the user types): what it ranks on is still Priya's turn, not the lease's.
    await page.click('#prompt-textarea');
    await page.keyboard.type('Anything else?');
    await expect.poll(async () => (await state(tabId)).task?.ask, { timeout: 30_000 }).toBe('Anything else?');
    await expect.poll(() => cards(panel), { timeout: 30_000 }).toContain('priya');
    const now = await cards(panel);
    expect(now.indexOf('priya'), JSON.stringify(now)).toBeLessThan(now.includes('lease') ? now.indexOf('lease') : Infinity);
    await panel.close();
    await page.close();
  });

  it('Perplexity: the cards come from the answers, not from the reasoning steps that share their selector', async () => {
    const { page, tabId } = await openTab(h, SITE_URLS.perplexitySteps, '#ask-input');
    await expect.poll(async () => (await state(tabId)).task?.adapter, { timeout: 30_000 }).toBe('perplexity');
    const panel = await h.openPanel(tabId);
    await expect.poll(() => cards(panel), { timeout: 30_000 }).toContain('radiators');
    // The last reasoning step names the Grundfos circulator datasheet; no answer does.
    expect(await cards(panel)).not.toContain('grundfos');
    await panel.close();
    await page.close();
  });
});

describe('new assistants: reading and insertion', () => {
  it('Grok: the conversation is ranked on, and a card goes into its ProseMirror prompt once', async () => {
    const prompt = '[data-testid="chat-input"] [contenteditable="true"]';
    const { page, tabId } = await openTab(h, SITE_URLS.grok, prompt);
    const panel = await h.openPanel(tabId);
    await page.click(prompt);
    await page.keyboard.type('And for the cold proof: ');
    await expect.poll(async () => (await state(tabId)).task?.adapter, { timeout: 30_000 }).toBe('grok');
    await expect.poll(async () => (await state(tabId)).task?.ask, { timeout: 30_000 }).toBe('And for the cold proof:');
    await expect.poll(async () => (await cards(panel))[0], { timeout: 30_000 }).toBe('proof');
    const outcome = await h.call<InsertOutcome>('card:insert', { tabId, id: 'proof' });
    expect(outcome).toMatchObject({ ok: true, editor: 'prosemirror' });
    const model: string = await page.evaluate(() => (window as any).__fixture.text());
    expect(model.split(PROOF_TEXT).length - 1).toBe(1);
    expect(model).toBe(`And for the cold proof: ${PROOF_TEXT}`);
    await panel.close();
    await page.close();
  });

  it('Microsoft 365 Copilot: the conversation is ranked on, and a card goes into its Lexical prompt once', async () => {
    const prompt = '#m365-chat-editor-target-element[data-lexical-editor="true"]';
    const { page, tabId } = await openTab(h, SITE_URLS.m365Copilot, prompt);
    const panel = await h.openPanel(tabId);
    await page.click(prompt);
    await page.keyboard.type('Put the signatory in the letter: ');
    await expect.poll(async () => (await state(tabId)).task?.adapter, { timeout: 30_000 }).toBe('m365-copilot');
    await expect.poll(async () => (await state(tabId)).task?.ask, { timeout: 30_000 }).toBe('Put the signatory in the letter:');
    await expect.poll(async () => (await cards(panel))[0], { timeout: 30_000 }).toBe('signatory');
    const outcome = await h.call<InsertOutcome>('card:insert', { tabId, id: 'signatory' });
    expect(outcome).toMatchObject({ ok: true, editor: 'lexical' });
    const model: string = await page.evaluate(() => (window as any).__fixture.text());
    expect(model.split(SIGNATORY_TEXT).length - 1).toBe(1);
    expect(model).toBe(`Put the signatory in the letter: ${SIGNATORY_TEXT}`);
    await panel.close();
    await page.close();
  });
});

describe('sent-message capture on the new assistants and Gem chats', () => {
  const cases = [
    ['Grok', SITE_URLS.grok, '[data-testid="chat-input"] [contenteditable="true"]', 'button[type="submit"]', 'grok.com', 'grok:9a8b7c'],
    ['Gemini, in a Gem chat', SITE_URLS.geminiGem, 'rich-textarea .ql-editor', 'button.send-button', 'gemini.google.com', 'gemini:7c8d9e'],
    ['Microsoft 365 Copilot (its send button labelled "Enviar")', SITE_URLS.m365Copilot, '#m365-chat-editor-target-element[data-lexical-editor="true"]', '.fai-SendButton', 'm365.cloud.microsoft', 'm365-copilot:AAQk42'],
  ] as const;
  for (const [name, url, prompt, send, site, thread] of cases) {
    it(`${name}: a message typed and sent with the site's own button is remembered in its conversation`, async () => {
      await h.call('settings:set', { patch: { capture: { sent: true, sites: [site] } } });
      try {
        const { page } = await openTab(h, url, prompt);
        const text = `Remember this for ${site}: the proof box is in the garage`;
        await page.click(prompt);
        await page.keyboard.type(text);
        await page.click(send);
        await expect.poll(async () => (await memory()).find((i) => i.text === text), { timeout: 30_000 }).toMatchObject({ tags: ['sent', site], thread: { id: thread } });
        await page.close();
      } finally {
        await h.call('settings:set', { patch: { capture: { sent: false } } });
      }
    });
  }
});
