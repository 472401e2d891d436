import type { RankSettings, TraceEntry } from '../../lib/rank/types';
import { traceReason } from '../../lib/rank/trace';

/** The ranking settings most ranking tests start from: the shipped weights' shape, an 800-token budget, 8 cards. */
export const RANK_SETTINGS: RankSettings = {
  weights: { semantic: 0.45, lexical: 0.35, recency: 0.08, priority: 0.06, continuity: 0.03, situation: 0.03 },
  halfLifeDays: 30,
  budgetTokens: 800,
  maxCards: 8,
  threshold: 0.2,
};

const TOPICS = ['garden', 'kitchen', 'budget', 'travel', 'wildlife', 'plumbing', 'library', 'bicycle'];

/** A long note: eight paragraphs of about 170 word pieces, each on its own topic; the fifth opens with the evidence. */
export function longNote(): string {
  return TOPICS.map((topic, p) => {
    const lines = Array.from({ length: 12 }, (_, i) => `The ${topic} notes, entry ${i}, cover ${topic} matters in some depth.`);
    if (p === 4) lines[0] = 'The zebra migration crossed the Mara river at dawn, watched by our guide Joseph.';
    return lines.join(' ');
  }).join('\n\n');
}

/** The reason the trace gives for candidate `id`, in the words the panel shows (undefined when it was not traced). */
export function reasonOf(trace: readonly TraceEntry[], id: string): string | undefined {
  const e = trace.find((x) => x.id === id);
  return e && traceReason(e);
}
