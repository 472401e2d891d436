import { countTokens } from '../../lib/memory/tokens';
import { LexicalIndex } from '../../lib/memory/index/lexical-index';
import type { MemoryItem } from '../../lib/memory/types';
import type { Conversation } from './locomo-data';

/** Whitespace folded, so a text is found in a package whatever its line breaks became. */
const folded = (s: string) => s.replace(/\s+/g, ' ').trim().toLowerCase();

/** Share of the evidence texts found whole inside `pkg` (what Insert all puts in). */
export function evidenceShare(pkg: string, evidence: string[]): number {
  if (!evidence.length) return 0;
  const text = folded(pkg);
  let found = 0;
  for (const e of evidence) if (text.includes(folded(e))) found++;
  return found / evidence.length;
}

/**
 * Texts taken in order, each whole, as long as the running package stays within `budget` tokens; a text that does
 * not fit is skipped and the next tried. Not the product's package: a reference for it.
 */
export function packGreedy(texts: string[], budget: number): string {
  let out = '';
  let used = 0;
  for (const t of texts) {
    const line = `- ${t.replace(/\s+/g, ' ').trim()}\n`;
    const n = countTokens(line);
    if (used + n > budget) continue;
    out += line;
    used += n;
  }
  return out;
}

/**
 * A text split at line breaks into passages of at most about `maxTokens` (lines joined while they fit; a longer
 * line is one passage). The bench's reference splitter, for the "BM25 over passages" row.
 */
export function splitPassages(text: string, maxTokens: number): string[] {
  const out: string[] = [];
  let cur = '';
  let curTokens = 0;
  for (const line of text.split(/\n+/)) {
    if (!line.trim()) continue;
    const n = countTokens(line);
    if (cur && curTokens + n > maxTokens) {
      out.push(cur);
      cur = '';
      curTokens = 0;
    }
    cur = cur ? `${cur}\n${line}` : line;
    curTokens += n;
  }
  if (cur) out.push(cur);
  return out;
}

/** BM25 over the passages of every item, best passage first, packed greedily under the budget. */
export function bm25PassagePackage(items: MemoryItem[], question: string, budget: number, passageTokens = 200): string {
  const index = new LexicalIndex();
  const passages: string[] = [];
  for (const it of items)
    for (const p of splitPassages(it.text, passageTokens)) {
      index.add(String(passages.length), p);
      passages.push(p);
    }
  const hits = index.search(LexicalIndex.queryTerms(question), passages.length);
  return packGreedy(
    hits.map((h) => passages[Number(h.id)]),
    budget,
  );
}

/**
 * The conversation with each session one item: a document of its turns ("Speaker: text", one a line, captions kept),
 * dated by its first turn, in no thread. Questions then look for the sessions holding their evidence turns; the
 * evidence texts stay the turns' own.
 */
export function sessionsAsItems(conv: Conversation): Conversation {
  const sessions = new Map<string, MemoryItem[]>();
  for (const it of conv.items) {
    const key = it.thread?.id ?? it.id;
    if (!sessions.has(key)) sessions.set(key, []);
    sessions.get(key)!.push(it);
  }
  const sessionOf = new Map<string, string>();
  const items: MemoryItem[] = [];
  let n = 0;
  for (const [key, turns] of sessions) {
    n++;
    const text = turns.map((t) => `${t.title}: ${t.text}${t.aux ? ` ${t.aux}` : ''}`).join('\n');
    const people = [...new Set(turns.flatMap((t) => t.people))];
    for (const t of turns) sessionOf.set(t.id, key);
    const { thread: _thread, aux: _aux, ...first } = turns[0];
    items.push({ ...first, id: key, text, title: `${people.join(' and ')}, session ${n}`, people, tokens: countTokens(text) });
  }
  const questions = conv.questions.map((q) => ({ ...q, relevant: new Set([...q.relevant].map((id) => sessionOf.get(id)!)) }));
  return { ...conv, items, questions };
}
