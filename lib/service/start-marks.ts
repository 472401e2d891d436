// Marks a worker's start leaves in its performance timeline (relative to the worker's own start), which
// `npm run bench:perf` reads after each cold start: how long until it answers messages, and until memory is in.

/** Every listener is installed: messages and ports are answered from here on. */
export const LISTENING_MARK = 'backstory:listening';
/** Memory is loaded (the index pack or the tables, and the token table): rankings can run. */
export const MEMORY_LOADED_MARK = 'backstory:memory-loaded';
/**
 * A ranking (lib/service/ranking.ts: a tab's, a package's, the options page's preview): the ranker's own time
 * (`rankLearned`, the query's embedding excluded), its detail whether it ranked by meaning too. The first
 * `RANKINGS_MEASURED` of a worker's life are kept: the first against the next.
 */
export const RANKED_MEASURE = 'backstory:ranked';
const RANKINGS_MEASURED = 20;
let measured = 0;

/** Measures a ranking begun at `start` (`performance.now()`) as `RANKED_MEASURE`. */
export function measureRanking(start: number, semantic: boolean): void {
  if (measured < RANKINGS_MEASURED && typeof performance.measure === 'function') {
    measured++;
    performance.measure(RANKED_MEASURE, { start, end: performance.now(), detail: { semantic } });
  }
}
