// @vitest-environment happy-dom
import { describe, expect, it, vi } from 'vitest';
import { h, render } from 'preact';
import type { MemoryItem } from '../../lib/memory/types';
import { countTokens } from '../../lib/memory/tokens';
import { arrayMemoryView } from '../../lib/memory/index/memory-index';
import { rankMemory } from '../../lib/rank/rank';
import type { TaskReading, TraceEntry } from '../../lib/rank/types';
import { Snippet } from '../../lib/ui/card';
import { plainWhy } from '../../lib/ui/format';
import { RANK_SETTINGS as SETTINGS } from './rank-fixtures';
import { needsWords, writtenTerms } from '../../lib/rank/trace';
import { WhyNot } from '../../lib/ui/panel/why-not';
import { KeptTraces, panelTrace } from '../../lib/service/panel-trace';

// The worker's answer to `trace:words`, read from the memory the ranking used (as TabRanker.traceWords reads the store).
const asked: { id: string; terms: string[] }[][] = [];
// And to `trace:titles`: the titles of entries the ranking did not read.
const titled: string[][] = [];
const titlesOf = async (ids: string[]) => {
  titled.push(ids);
  return ids.map((id) => `Note about ${id}`);
};
// And to `trace:find`: the worker keeps each tab's full trace (what the panel was sent is its start) and searches it.
const kept = new KeptTraces();
vi.mock('../../lib/messaging/rpc', () => ({
  callBackground: async (type: string, req: { items: { id: string; terms: string[] }[]; ids: string[]; tabId: number; text: string }) => {
    if (type === 'trace:titles') return { titles: await titlesOf(req.ids) };
    if (type === 'trace:find') return kept.find(req.tabId, req.text, titlesOf);
    if (type !== 'trace:words') throw new Error(`unexpected ${type}`);
    asked.push(req.items);
    return { words: req.items.map((x) => writtenTerms(x.terms, x.id === NOTE.id ? NOTE : undefined)) };
  },
}));

/** What *Why?* says a card shares with the task: the card's own words, never the ranker's stems. */
const NOW = Date.UTC(2026, 5, 1);
const TEXT = 'Retry the upload with an example backoff: wait 30 s, then retries double. Ana’s examples are in the runbook.';
const NOTE: MemoryItem = {
  id: 'retry', text: TEXT, title: '', kind: 'evidence', tags: [], people: [], sites: [], pinned: false,
  createdAt: NOW, updatedAt: NOW, source: {}, tokens: countTokens(TEXT),
};

const TASK: TaskReading = { url: 'https://example.com/', title: 'Page', site: 'example.com', adapter: 'generic', destination: 'documents', field: { text: 'How many retries does the example say?', kind: 'textarea' }, at: NOW };

async function topCard() {
  const r = await rankMemory({ task: TASK, memory: arrayMemoryView([NOTE], new Map()), settings: SETTINGS, queryVectors: [], now: NOW });
  const card = r.cards[0];
  expect(card?.item.id).toBe('retry');
  return card;
}

describe('the words a card shares with the task', () => {
  it('Why? names them as the card writes them ("Retry", "example"), not as stems ("retri", "exampl")', async () => {
    const card = await topCard();
    expect(card.matched).toEqual(expect.arrayContaining(['retri', 'exampl']));
    const why = plainWhy(card, [], NOW);
    expect(why).toContain('“Retry”');
    expect(why).toContain('“example”');
    expect(why).not.toMatch(/“(retri|exampl)”/);
    const line = card.why.find((w) => w.startsWith('shares words'));
    expect(line).toMatch(/"Retry"/);
    expect(line).toMatch(/"example"/);
    expect(line).not.toMatch(/"(retri|exampl)"/);
  });

  it('the card marks every word that stands for a shared stem, "Retry" and "retries" alike, and nothing else', async () => {
    const card = await topCard();
    const host = document.createElement('div');
    render(h(Snippet, { text: card.item.text, matched: card.matched }), host);
    const marked = Array.from(host.querySelectorAll('mark')).map((m) => m.textContent);
    expect(marked).toEqual(['Retry', 'example', 'retries', 'examples']);
    // Marked as text: the snippet reads the same as the card.
    expect(host.textContent).toBe(TEXT);
  });

  it('Why not? names them as the left-out item writes them too, read when the list is open', async () => {
    // A budget too small for the note: it is left out, and its reason says what it shares.
    const r = await rankMemory({ task: TASK, memory: arrayMemoryView([NOTE], new Map()), settings: { ...SETTINGS, budgetTokens: 10 }, queryVectors: [], now: NOW });
    const left = r.trace.find((e) => e.id === NOTE.id)!;
    expect(left).toMatchObject({ included: false, stage: 'budget' });
    expect(needsWords(left)).toBe(true);
    const host = document.createElement('div');
    render(h(WhyNot, { trace: r.trace }), host);
    expect(asked).toHaveLength(0); // closed: nothing is read
    const details = host.querySelector('details')!;
    details.open = true;
    details.dispatchEvent(new Event('toggle'));
    await vi.waitFor(() => expect(host.querySelector('[data-testid="why-not-item"] .muted')?.textContent).toMatch(/shares words/));
    const reason = host.querySelector('[data-testid="why-not-item"] .muted')!.textContent!;
    expect(reason).toMatch(/^Did not fit the 10-token budget \(needs \d+, 10 left\)\. Score 0\.\d\d: .*shares words \(\+0\.\d\d\): /);
    expect(reason).toMatch(/"Retry"/);
    expect(reason).toMatch(/"example"/);
    expect(reason).not.toMatch(/"(retri|exampl)"/);
    expect(asked).toEqual([[{ id: NOTE.id, terms: left.notes!.terms }]]);
  });

  /** The panel as an update leaves it: the first entries left out, the count of all, and the worker keeping the rest. */
  const update = (tabId: number, seq: number, trace: TraceEntry[]) => {
    kept.keep(tabId, seq, trace);
    const sent = panelTrace(trace);
    return h(WhyNot, { trace: sent.trace, leftOut: sent.leftOut, tabId });
  };
  const listed = (host: HTMLElement) => [...host.querySelectorAll('[data-testid="why-not-item"]')].map((li) => li.getAttribute('data-id'));
  /** Opens the list, as a click on "Why not?" does. */
  const openList = (host: HTMLElement) => {
    const details = host.querySelector('details')!;
    details.open = true;
    details.dispatchEvent(new Event('toggle'));
  };
  /** Types into the list's search box. */
  const search = (host: HTMLElement, text: string) => {
    const box = host.querySelector<HTMLInputElement>('input[type="search"]')!;
    box.value = text;
    box.dispatchEvent(new Event('input'));
  };

  it('Why not? counts all left out, reads the titles of those it shows, and asks the worker to search the rest', async () => {
    titled.length = 0;
    const trace: TraceEntry[] = Array.from({ length: 60 }, (_, i) => ({ id: `n${i}`, title: '', untitled: true, included: false, decided: 'Beyond the 8 cards shown', stage: 'limit' }));
    const host = document.createElement('div');
    render(update(1, 1, trace), host);
    expect(host.querySelector('summary')?.textContent).toBe('Why not? 60 left out');
    expect(titled).toHaveLength(0); // closed: nothing is read
    openList(host);
    await vi.waitFor(() => expect(host.querySelector('[data-testid="why-not-item"] strong')?.textContent).toBe('Note about n0'));
    expect(titled).toEqual([trace.slice(0, 40).map((e) => e.id)]);
    expect(listed(host)).toEqual(trace.slice(0, 40).map((e) => e.id));
    // n57 was not sent: the worker searches the whole trace, reading the titles it had not read.
    search(host, 'n57');
    await vi.waitFor(() => expect(listed(host)).toEqual(['n57']));
    expect(titled[1]).toEqual(trace.map((e) => e.id));
    expect(host.querySelector('[data-testid="why-not-item"] strong')?.textContent).toBe('Note about n57');
  });

  it('Why not? searches what the update carried when the worker started again and keeps no trace', async () => {
    const trace: TraceEntry[] = ['Harbour picnic', 'Ferry times', 'Parking', 'Lunch menu', 'Office keys', 'Rota', 'Printer']
      .map((title, i) => ({ id: `t${i}`, title, included: false, decided: 'Not reached', stage: 'limit' }));
    const host = document.createElement('div');
    render(h(WhyNot, { trace, leftOut: trace.length, tabId: 99 }), host);
    openList(host);
    search(host, 'ferry');
    await vi.waitFor(() => expect(listed(host)).toEqual(['t1']));
    await new Promise((r) => setTimeout(r, 250)); // the worker's empty answer came and changed nothing
    expect(listed(host)).toEqual(['t1']);
  });

  it('Why not? searches again at each ranking, reading a title once, also when the trace holds thousands', async () => {
    titled.length = 0;
    const entry = (id: string): TraceEntry => ({ id, title: '', untitled: true, included: false, decided: 'Not reached', stage: 'limit' });
    const trace = Array.from({ length: 6000 }, (_, i) => entry(`p${i}`));
    const host = document.createElement('div');
    render(update(2, 1, trace), host);
    openList(host);
    search(host, 'p5999');
    await vi.waitFor(() => expect(host.querySelector('[data-testid="why-not-item"] strong')?.textContent).toBe('Note about p5999'));
    const read = titled.flat().length;
    // The worker read each title once; the panel, at most those it listed before the search answered.
    expect(read).toBeGreaterThanOrEqual(6000);
    expect(read).toBeLessThanOrEqual(6000 + 40);
    // The next keystroke's ranking: the same notes and one more, which the search finds.
    render(update(2, 2, [...trace, entry('new')]), host);
    search(host, 'new');
    await vi.waitFor(() => expect(listed(host)).toEqual(['new']));
    expect(titled.flat().length - read).toBe(1);
  });
});
