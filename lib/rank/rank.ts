// The ranker's two ways in: `rankMemory` (cards, trace and package for a task) and `scoreMemory` (the full order, for
// the bench). Each runs its pass over the candidates again until a pass reads no stand-in's text.
import type { RankRequest, RankResult } from './types';
import { prepare } from './candidates';
import { weigh, type ScoredMemory } from './weigh';
import { decide } from './decide';
import { TUNING, type Tuning } from './tuning';

const now = () => (typeof performance !== 'undefined' ? performance.now() : Date.now());

/**
 * Stages 1-4: query, hybrid retrieval, late hydration of the fused top candidates (plus what a guarantee may need),
 * hard filters, and the weighted factor score. Exposed so the bench can read the full order; the extension calls
 * `rankMemory`. Situated items whose text nothing read are stand-ins (no text or title).
 */
export async function scoreMemory(req: RankRequest, tuning: Tuning = TUNING): Promise<ScoredMemory> {
  const p = await prepare(req, tuning);
  for (;;) {
    const sm = p.candidates.pass(() => weigh(req, p, tuning));
    if (!(await p.candidates.readWanted())) return sm;
  }
}

/**
 * The ranker: cards for the panel, the context package, and a trace of every candidate. Pure: the same request gives
 * the same result (an `overrides` memo in it only saves repeating work). It waits only once, for the hydration.
 */
export async function rankMemory(req: RankRequest, tuning: Tuning = TUNING): Promise<RankResult> {
  const t0 = now();
  const p = await prepare(req, tuning);
  // Selection reads the texts of what it selects: a stand-in it reaches is read, and the ranking weighed again.
  for (;;) {
    const result = p.candidates.pass(() => decide(req, p, tuning));
    if (!(await p.candidates.readWanted())) return { ...result, tookMs: now() - t0 };
  }
}
