// The lexical pass of retrieval: BM25 over the ask's weighted terms (with its people, phrases and dates), widened by
// pseudo-relevance feedback, and the score an ideal match would get.
import type { LexicalHit, LexicalSearcher } from '../memory/index/memory-view';
import type { QueryPlan } from './query';
import type { Tuning } from './tuning';
import { PERSON_PREFIX, DATE_PREFIX } from '../memory/index/tokenize';

export interface LexicalPass {
  /** BM25 hits of the weighted query (with its expansion), best first. */
  hits: LexicalHit[];
  byId: Map<string, LexicalHit>;
  /** The score an ideal match of the plain query terms would get (each weighted as in the search). */
  ideal: number;
  /** Terms added by pseudo-relevance feedback, in the order found and as a set. */
  expansion: string[];
  expanded: Set<string>;
  /** Terms of the query held by half the items or more (`LexicalSearcher.telling`), which the echo does not count; none when every word of the ask is one (a memory on one topic). */
  untelling: Set<string>;
}

/**
 * Documents the rarer word of a phrase may be held by for the phrase to be looked for: counting a pair reads the
 * sequence of every document holding both. Two words most of a large memory holds ("next week" in years of meeting
 * notes) share tens of thousands (25 ms at 100k synthetic items, against well under 1 ms for most phrases), and are the
 * words that tell its items apart least. LoCoMo's and LongMemEval's memories are far below it: every phrase counts.
 */
export const PHRASE_LOOK_LIMIT = 10_000;

/** Whether both words of a phrase are held by more than `PHRASE_LOOK_LIMIT` documents. */
function tooCommon(index: LexicalSearcher, phrase: string): boolean {
  const sp = phrase.indexOf(' ');
  return index.documentsHolding(phrase.slice(0, sp)) > PHRASE_LOOK_LIMIT && index.documentsHolding(phrase.slice(sp + 1)) > PHRASE_LOOK_LIMIT;
}

/** Lexical: BM25 with weighted terms, normalised by the score an ideal match would get. */
export function lexicalPass(index: LexicalSearcher, plan: QueryPlan, t: Tuning): LexicalPass {
  let expansion: string[] = [];
  const untelling = new Set<string>();
  // Each term weighs as much as it tells items apart (`LexicalSearcher.telling`).
  const weigh = (term: string, w: number) => {
    const share = index.telling(term);
    if (share <= 0) untelling.add(term);
    return w * Math.max(t.tellingFloor, share);
  };
  const asked = new Map<string, number>();
  for (const [term, w] of plan.terms) asked.set(term, weigh(term, w));
  // An ask whose every word memory holds is held by most of it (a memory on one topic): they are all it has to
  // tell items apart by, so the echo counts them all.
  const oneTopic = ![...asked.keys()].some((term) => index.hasTerm(term) && !untelling.has(term));
  const q = new Map(asked);
  // Words of the ask that name someone in memory also look for items by or about that person.
  if (t.personWeight > 0)
    for (const [term, w] of plan.terms)
      if (index.hasTerm(PERSON_PREFIX + term)) q.set(PERSON_PREFIX + term, weigh(PERSON_PREFIX + term, w * t.personWeight));
  // Two words of the ask side by side in an item: the same thing named, not just the same words (unless counting
  // the pair would read too many items: `PHRASE_LOOK_LIMIT`).
  if (t.phraseWeight > 0)
    for (const ph of plan.phrases) if (!tooCommon(index, ph) && index.hasTerm(ph)) q.set(ph, weigh(ph, t.phraseWeight));
  // Dates the ask names look for items dated then.
  if (t.dateWeight > 0) for (const d of plan.dates) if (index.hasTerm(d)) q.set(d, weigh(d, t.dateWeight));
  if (oneTopic) untelling.clear();
  let hits = index.search(q, t.lexicalLimit);
  if (t.prfDocs > 0 && t.prfTerms > 0 && hits.length >= 2) {
    // Feedback documents are the best lexical hits (choosing them by fused relevance measured worse on LoCoMo).
    const topLex = hits.slice(0, t.prfDocs).map((h) => h.id);
    const fb = feedbackTerms(index, topLex, q, t);
    if (fb.length) {
      for (const [term, w] of fb) q.set(term, w);
      expansion = fb.map(([term]) => term);
      hits = index.search(q, t.lexicalLimit);
    }
  }
  const ideal = index.idealScore(asked) || 1;
  const byId = new Map<string, LexicalHit>();
  for (const h of hits) byId.set(h.id, h);
  return { hits, byId, ideal, expansion, expanded: new Set(expansion), untelling };
}

/** Terms of the top documents that the query lacks, weighted by how typical they are of those documents. */
function feedbackTerms(index: LexicalSearcher, top: string[], query: Map<string, number>, t: Tuning) {
  const gain = new Map<string, number>();
  for (const id of top) {
    const tf = index.termsOf(id);
    if (!tf) continue;
    let len = 0;
    for (const n of tf.values()) len += n;
    for (const [term, n] of tf) {
      if (query.has(term) || term.startsWith(DATE_PREFIX)) continue;
      const idf = index.idf(term);
      gain.set(term, (gain.get(term) ?? 0) + (n / len) * idf);
    }
  }
  // A term must recur in at least two of the top documents' worth of mass to be trusted; otherwise it is one
  // document's noise.
  const sorted = [...gain].sort((a, b) => b[1] - a[1]).slice(0, t.prfTerms);
  const best = sorted[0]?.[1] ?? 0;
  return sorted.map(([term, g]) => [term, (t.prfWeight * g) / (best || 1)] as const);
}
