import { hostOf, siteKey } from '../core/hosts';
import type { MemoryItem } from '../memory/types';
import type { RankedCard, TraceEntry, TraceStage } from '../rank/types';
import { searchText } from '../memory/index/item-text';
import { writtenWords } from '../memory/index/tokenize';

const DAY = 86_400_000;

/** "today", "yesterday", "3 days old"-style age of a time. */
export function age(ms: number, now = Date.now()): string {
  const d = Math.floor((now - ms) / DAY);
  if (d < 1) return 'today';
  if (d < 2) return 'yesterday';
  if (d < 60) return `${d} days ago`;
  if (d < 730) return `${Math.floor(d / 30)} months ago`;
  return `${Math.floor(d / 365)} years ago`;
}


/** Only web pages may be opened from a card (never javascript:, data: or file: URLs taken from memory). */
export function safeUrl(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : undefined;
  } catch {
    return undefined;
  }
}

export function splitList(s: string): string[] {
  return Array.from(new Set(s.split(/[,;\n]/).map((x) => x.trim()).filter(Boolean)));
}

const quote = (w: string) => `“${w}”`;

function andList(xs: string[]): string {
  if (xs.length <= 1) return xs.join('');
  return `${xs.slice(0, -1).join(', ')} and ${xs[xs.length - 1]}`;
}

/**
 * The card's reasons in one plain line: "matches “budget” and “Q3”; about this recipient; pinned; 3 days old".
 * Built from the ranker's factors and guarantees; the ranker's own lines are shown under it.
 */
export function plainWhy(card: RankedCard, taskPeople: string[] = [], now = Date.now()): string {
  const parts: string[] = [];
  const words = writtenWords(card.matched, searchText(card.item)).filter((w) => w.length > 1).slice(0, 4);
  if (words.length) parts.push(`matches ${andList(words.map(quote))}`);
  else if (card.factors.semantic >= 0.3) parts.push('similar in meaning');
  const lower = (s: string) => s.toLowerCase();
  const here = taskPeople.map(lower).join(' ');
  const about = card.item.people.some((p) => {
    const email = p.match(/[^\s<>]+@[^\s<>]+/)?.[0];
    const name = lower(p.replace(/<[^>]*>/g, '').trim());
    return (email && here.includes(lower(email))) || (name && here.includes(name));
  });
  if (about) parts.push('about this recipient');
  else if (card.factors.situation > 0) parts.push('tied to this page or site');
  if (card.item.pinned) parts.push('pinned');
  if (card.guaranteed === 'instruction' || (card.kind === 'instruction' && !card.guaranteed)) parts.push('a standing instruction');
  if (card.factors.continuity > 0) parts.push('used earlier here');
  parts.push(`${age(card.item.createdAt, now).replace(' ago', ' old')}`.replace(/^today old$/, 'saved today').replace(/^yesterday old$/, '1 day old'));
  return parts.join('; ');
}

export const STAGE_TEXT: Record<TraceStage, string> = {
  filter: 'filtered out',
  guarantee: 'guaranteed',
  threshold: 'below the relevance bar',
  budget: 'over the token budget',
  redundancy: 'repeats a card already shown',
  selected: 'selected',
  limit: 'past the card limit',
};

export function stageText(e: TraceEntry): string {
  return e.stage ? STAGE_TEXT[e.stage] : e.included ? 'selected' : 'left out';
}

/** Where an item came from, for a card's meta line: site, page title. */
export function sourceLine(it: MemoryItem): string {
  const host = siteKey(hostOf(it.source.url)) || it.sites[0] || '';
  const title = it.source.title && it.source.title !== host ? it.source.title : '';
  return [host, title].filter(Boolean).join(' — ');
}
