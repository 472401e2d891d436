import type { IndexingProgress } from '../messaging/protocol';

/** How far back the rate is measured: long enough to smooth batch jitter, short enough to follow a change of pace. */
const WINDOW_MS = 30_000;
/** No estimate before this much work was timed (the first batches include the engines' warm-up). */
const MIN_SPAN_MS = 5_000;

/**
 * The time left of a background indexing run, from the rate of the last ~30 s. One estimate per run: a new run
 * (done back at 0, or a different total) starts a new one.
 */
export class IndexingEstimate {
  private samples: { at: number; done: number }[] = [];
  private total = -1;

  update(done: number, total: number, now = Date.now()): IndexingProgress {
    if (total !== this.total || done < (this.samples.at(-1)?.done ?? 0)) {
      this.samples = [];
      this.total = total;
    }
    this.samples.push({ at: now, done });
    while (this.samples.length > 2 && now - this.samples[1].at >= WINDOW_MS) this.samples.shift();
    const first = this.samples[0];
    const span = now - first.at;
    const rate = span >= MIN_SPAN_MS ? (done - first.done) / span : 0;
    return rate > 0 && done < total ? { done, total, etaMs: Math.round((total - done) / rate) } : { done, total };
  }
}
