import type { Page } from 'playwright-core';
import { launchExtension, waitFor } from '../../test/e2e/harness';
import { memoryFileChunks } from '../../lib/memory/memory-file';
import type { Conversation } from './locomo-data';

/**
 * The side panel's own cards for each question, in the built extension in headless Chromium: the conversation's
 * memory file is picked on the options page's import input (read, committed and indexed by the service worker as a
 * user's import is), each question is typed into the panel's search box, and the cards are read from the panel's
 * DOM once the ranking for that question has arrived. A fresh profile per conversation, so each question ranks
 * its own conversation only.
 */
export interface PanelRun {
  /** Card ids in screen order, per question, in the conversation's question order. */
  cards: string[][];
  /** Questions whose DOM cards did not match the ranking pushed to the panel within the wait (read as shown). */
  mismatched: number;
  importMs: number;
  indexMs: number;
}

type Job = { fileNames: string[]; state: string; counts?: { added: number }; error?: string };

/** Installed before the panel's scripts run: every ranked state the worker pushes, with its search text. */
const RECORD_STATES = `(() => {
  const w = window;
  w.__states = [];
  const rt = chrome.runtime;
  const connect = rt.connect.bind(rt);
  rt.connect = (...args) => {
    const port = connect(...args);
    port.onMessage.addListener((m) => {
      if (m && m.type === 'state') w.__states.push({ search: m.state.search || '', status: m.state.status, ids: (m.state.cards || []).map((c) => c.item.id) });
    });
    return port;
  };
})()`;

async function ask(panel: Page, question: string): Promise<{ ids: string[]; matched: boolean }> {
  const q = question.trim();
  await panel.evaluate(() => ((window as unknown as { __states: unknown[] }).__states = []));
  await panel.locator('[data-testid="search"]').fill(q);
  const pushed = await panel.waitForFunction(
    (text) => {
      const states = (window as unknown as { __states: { search: string; status: string; ids: string[] }[] }).__states;
      const last = states.filter((s) => s.search === text).at(-1);
      return last && (last.status === 'found' || last.status === 'empty') ? last.ids : false;
    },
    q,
    { timeout: 60_000, polling: 50 },
  );
  const want = (await pushed.jsonValue()) as string[];
  const domIds = () => panel.evaluate(() => [...document.querySelectorAll('[data-testid="card"]')].map((c) => c.getAttribute('data-id') ?? ''));
  const end = Date.now() + 5_000;
  let ids = await domIds();
  while (ids.join('\n') !== want.join('\n') && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 50));
    ids = await domIds();
  }
  return { ids, matched: ids.join('\n') === want.join('\n') };
}

export async function panelCards(conv: Conversation, log: (s: string) => void): Promise<PanelRun> {
  const h = await launchExtension();
  try {
    const options = await h.context.newPage();
    await options.goto(`chrome-extension://${h.extensionId}/options.html`);
    const file = `${conv.id}.json`;
    const t0 = Date.now();
    await options.locator('[data-testid="import-file"]').setInputFiles([{ name: file, mimeType: 'application/json', buffer: Buffer.from([...memoryFileChunks(conv.items)].join('')) }]);
    let job: Job | undefined;
    await waitFor(
      async () => !!(job = (await h.call<{ jobs: Job[] }>('import:status', {})).jobs.find((j) => j.fileNames.includes(file) && ['indexing', 'done', 'failed'].includes(j.state))),
      `the import of ${file}`,
      300_000,
    );
    if (!job) throw new Error(`${file}: no import job`);
    if (job.state === 'failed' || job.counts?.added !== conv.items.length) throw new Error(`${file}: ${job.error ?? `${job.counts?.added ?? 0} of ${conv.items.length} turns imported`}`);
    const importMs = Date.now() - t0;
    await waitFor(
      async () => {
        const [s, st] = await Promise.all([h.call<{ indexing?: unknown }>('import:status', {}), h.call<{ unembedded: number }>('model:status', {})]);
        return !s.indexing && st.unembedded === 0;
      },
      `the indexing of ${file}`,
      1_800_000,
    );
    const indexMs = Date.now() - t0 - importMs;
    log(`${conv.id}: ${conv.items.length} turns imported in ${(importMs / 1000).toFixed(1)} s, indexed in ${(indexMs / 1000).toFixed(1)} s`);
    await options.close();

    const { tabId } = await h.openPage('/fixtures/textarea.html');
    const panel = await h.context.newPage();
    await panel.addInitScript(RECORD_STATES);
    await panel.goto(`chrome-extension://${h.extensionId}/sidepanel.html?tab=${tabId}`);
    await panel.locator('[data-testid="search"]').waitFor();
    const cards: string[][] = [];
    let mismatched = 0;
    for (const [i, q] of conv.questions.entries()) {
      const r = await ask(panel, q.question);
      cards.push(r.ids);
      if (!r.matched) mismatched++;
      if (i % 25 === 0) log(`${conv.id}: question ${i + 1} of ${conv.questions.length}`);
    }
    return { cards, mismatched, importMs, indexMs };
  } finally {
    await h.close();
  }
}
