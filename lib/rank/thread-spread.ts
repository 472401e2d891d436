import type { Scored } from './score';

/**
 * A match's neighbours do not crowd the top: a candidate whose thread neighbour within `reach` places is already
 * ranked above it is discounted by `share` (per such neighbour, compounding), and the order is rebuilt greedily.
 * A reply inherits the words of the turn it answers, and that turn's neighbours inherit them too; discounted, they
 * follow the match instead of filling the first places before other conversations' own matches. Items in no thread
 * are never discounted. `ranked` must be sorted best first; it is reordered in place and the discounted scores kept.
 */
export function spreadThreads(ranked: Scored[], share: number, reach: number): void {
  if (!(share > 0) || ranked.length < 2) return;
  const placed = new Map<string, number[]>();
  const rest = ranked.slice();
  const out: Scored[] = [];
  const factor = 1 - share;
  const above = (s: Scored): number => {
    const t = s.item.thread;
    const seqs = t && placed.get(t.id);
    if (!seqs) return 0;
    let n = 0;
    for (const q of seqs) if (Math.abs(q - t.seq) <= reach) n++;
    return n;
  };
  while (rest.length) {
    let best = 0;
    let bestScore = -Infinity;
    for (let i = 0; i < rest.length; i++) {
      const s = rest[i];
      // `rest` stays in score order and discounts only lower scores: nothing further down can beat an undiscounted one.
      if (s.score <= bestScore) break;
      const n = above(s);
      const adj = n ? s.score * Math.pow(factor, n) : s.score;
      if (adj > bestScore) {
        bestScore = adj;
        best = i;
      }
    }
    const [s] = rest.splice(best, 1);
    const n = above(s);
    if (n) {
      s.score = bestScore;
      s.threadAbove = n;
    }
    const t = s.item.thread;
    if (t) {
      const seqs = placed.get(t.id);
      if (seqs) seqs.push(t.seq);
      else placed.set(t.id, [t.seq]);
    }
    out.push(s);
  }
  for (let i = 0; i < out.length; i++) ranked[i] = out[i];
}
