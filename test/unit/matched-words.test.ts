// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { h, render } from 'preact';
import type { MemoryItem } from '../../lib/memory/types';
import { countTokens } from '../../lib/memory/tokens';
import { arrayMemoryView } from '../../lib/memory/index/memory-index';
import { rankMemory } from '../../lib/rank/rank';
import type { TaskReading } from '../../lib/rank/types';
import { Snippet } from '../../lib/ui/card';
import { plainWhy } from '../../lib/ui/format';
import { RANK_SETTINGS as SETTINGS } from './rank-fixtures';

/** What *Why?* says a card shares with the task: the card's own words, never the ranker's stems. */
const NOW = Date.UTC(2026, 5, 1);
const TEXT = 'Retry the upload with an example backoff: wait 30 s, then retries double. Ana’s examples are in the runbook.';
const NOTE: MemoryItem = {
  id: 'retry', text: TEXT, title: '', kind: 'evidence', tags: [], people: [], sites: [], pinned: false,
  createdAt: NOW, updatedAt: NOW, source: {}, tokens: countTokens(TEXT),
};

async function topCard() {
  const task: TaskReading = { url: 'https://example.com/', title: 'Page', site: 'example.com', adapter: 'generic', destination: 'documents', field: { text: 'How many retries does the example say?', kind: 'textarea' }, at: NOW };
  const r = await rankMemory({ task, memory: arrayMemoryView([NOTE], new Map()), settings: SETTINGS, queryVectors: [], now: NOW });
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
});
