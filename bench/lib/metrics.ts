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

/** 1 when every relevant id is in the top k (LongMemEval's recall_all), else 0. */
export function recallAllAt(ranked: string[], relevant: Set<string>, k: number): number {
  if (!relevant.size) return 0;
  const top = new Set(ranked.slice(0, k));
  for (const id of relevant) if (!top.has(id)) return 0;
  return 1;
}

/** 1 when some relevant id is in the top k (recall_any), else 0. */
export function recallAnyAt(ranked: string[], relevant: Set<string>, k: number): number {
  return ranked.slice(0, k).some((id) => relevant.has(id)) ? 1 : 0;
}

/**
 * A ranked list of items turned into a ranked list of what they belong to (a session), each at the place of its
 * first item: session-level metrics read this list.
 */
export function firstOfEach(ranked: string[], groupOf: (id: string) => string | undefined): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const id of ranked) {
    const g = groupOf(id);
    if (g === undefined || seen.has(g)) continue;
    seen.add(g);
    out.push(g);
  }
  return out;
}

export interface AllAnyStats {
  recall_all5: number;
  recall_all10: number;
  recall_any5: number;
  recall_any10: number;
  ndcg10: number;
}

/** Means of recall_all / recall_any at 5 and 10 and nDCG@10 over questions. */
export class AllAnyTally {
  private sums = { recall_all5: 0, recall_all10: 0, recall_any5: 0, recall_any10: 0, ndcg10: 0 };
  private n = 0;
  add(ranked: string[], relevant: Set<string>): void {
    const s = this.sums;
    s.recall_all5 += recallAllAt(ranked, relevant, 5);
    s.recall_all10 += recallAllAt(ranked, relevant, 10);
    s.recall_any5 += recallAnyAt(ranked, relevant, 5);
    s.recall_any10 += recallAnyAt(ranked, relevant, 10);
    s.ndcg10 += ndcgAt(ranked, relevant, 10);
    this.n++;
  }
  stats(): AllAnyStats {
    const n = this.n || 1;
    const r = (x: number) => Math.round((x / n) * 1000) / 1000;
    const s = this.sums;
    return { recall_all5: r(s.recall_all5), recall_all10: r(s.recall_all10), recall_any5: r(s.recall_any5), recall_any10: r(s.recall_any10), ndcg10: r(s.ndcg10) };
  }
}
