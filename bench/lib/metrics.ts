/** Retrieval metrics over one ranked list and a set of relevant ids (binary relevance). */
export function recallAt(ranked: string[], relevant: Set<string>, k: number): number {
  let hit = 0;
  for (const id of ranked.slice(0, k)) if (relevant.has(id)) hit++;
  return relevant.size ? hit / relevant.size : 0;
}

export function ndcgAt(ranked: string[], relevant: Set<string>, k: number): number {
  let dcg = 0;
  ranked.slice(0, k).forEach((id, i) => {
    if (relevant.has(id)) dcg += 1 / Math.log2(i + 2);
  });
  let ideal = 0;
  for (let i = 0; i < Math.min(k, relevant.size); i++) ideal += 1 / Math.log2(i + 2);
  return ideal ? dcg / ideal : 0;
}

export function reciprocalRank(ranked: string[], relevant: Set<string>): number {
  const i = ranked.findIndex((id) => relevant.has(id));
  return i < 0 ? 0 : 1 / (i + 1);
}

export function percentile(xs: number[], p: number): number {
  if (!xs.length) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}

export interface MethodStats {
  recall5: number;
  recall10: number;
  ndcg10: number;
  mrr: number;
  p50_ms: number;
  p95_ms: number;
}

export class Tally {
  private r5 = 0;
  private r10 = 0;
  private nd = 0;
  private rr = 0;
  private n = 0;
  private ms: number[] = [];
  add(ranked: string[], relevant: Set<string>, ms: number): void {
    this.r5 += recallAt(ranked, relevant, 5);
    this.r10 += recallAt(ranked, relevant, 10);
    this.nd += ndcgAt(ranked, relevant, 10);
    this.rr += reciprocalRank(ranked, relevant);
    this.n++;
    this.ms.push(ms);
  }
  stats(): MethodStats {
    const n = this.n || 1;
    const r = (x: number) => Math.round(x * 1000) / 1000;
    return {
      recall5: r(this.r5 / n),
      recall10: r(this.r10 / n),
      ndcg10: r(this.nd / n),
      mrr: r(this.rr / n),
      p50_ms: r(percentile(this.ms, 50)),
      p95_ms: r(percentile(this.ms, 95)),
    };
  }
}
