import type { LexicalIndex } from '../memory/index/lexical-index';
import { terms, words } from '../memory/index/tokenize';

/**
 * Ids of the indexed items holding every word of `text` (as the ranker's index stems it); the last word, while it
 * is still being typed (no space after it), also matches any word it starts. Undefined when the text names no word
 * the index keeps (empty, or only stop words): no word constraint then. Reads postings only, never item text.
 */
export function itemsWithWords(index: LexicalIndex, text: string): Set<string> | undefined {
  const ws = words(text);
  if (!ws.length) return undefined;
  const typing = !/[^\p{L}\p{N}]$/u.test(text);
  let out: Set<string> | undefined;
  for (const [i, w] of ws.entries()) {
    const exact = terms(w);
    const prefix = typing && i === ws.length - 1 && w.length >= 2 ? w : '';
    if (!exact.length && !prefix) continue; // a stop word: the index does not keep it
    const ids = itemsHoldingAny(index, prefix ? new Set([...exact, ...index.termsStartingWith(prefix)]) : exact);
    out = out ? intersect(out, ids) : ids;
    if (!out.size) break;
  }
  return out;
}

/** Ids of the items holding any of `terms`, from the index's postings alone. */
function itemsHoldingAny(index: LexicalIndex, terms: Iterable<string>): Set<string> {
  const out = new Set<string>();
  for (const t of terms) for (const id of index.holders(t)) out.add(id);
  return out;
}

function intersect(a: Set<string>, b: Set<string>): Set<string> {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  const out = new Set<string>();
  for (const id of small) if (large.has(id)) out.add(id);
  return out;
}

/** The same test for an item the index does not hold (held back for review): every word in its title or text. */
export function textHasWords(haystack: string, text: string): boolean {
  const hay = haystack.toLowerCase();
  return words(text).every((w) => hay.includes(w));
}
