// A record of something settled: the newer of two on one subject replaces the older (lib/rank/supersede.ts).
const DECISION = /\b(decided|decision|agreed|settled on|going with|we(?:'ll| will) go with|chose|approved|signed off on|final (?:call|answer|numbers?))\b/i;

/**
 * Whether a text records a decision, by the words it opens with (an item does when it is evidence and its text
 * does). Known for every item without its text (the index notes it while the text is at hand, and the pack keeps
 * it): a ranking asks it of candidates whose text it never reads.
 */
export function textReadsAsDecision(text: string): boolean {
  return DECISION.test(text.slice(0, 1000));
}
