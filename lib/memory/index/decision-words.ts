import type { MemoryItem } from '../types';

// A record of something settled: the newer of two on one subject replaces the older (lib/rank/supersede.ts).
const DECISION = /\b(decided|decision|agreed|settled on|going with|we(?:'ll| will) go with|chose|approved|signed off on|final (?:call|answer|numbers?))\b/i;

/**
 * Whether the item records a decision, by the words its text opens with. Known for every item without its text
 * (the index notes it while the text is at hand): a ranking asks it of candidates whose text it never reads.
 */
export function readsAsDecision(item: Pick<MemoryItem, 'kind' | 'text'>): boolean {
  return item.kind === 'evidence' && DECISION.test(item.text.slice(0, 1000));
}
