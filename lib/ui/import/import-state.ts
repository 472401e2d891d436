import type { ImportJob } from '../../import/import-jobs';
import { hasOutcome } from './import-text';

/** The job at work now, if any (jobs run one at a time; a queued one waits behind it). */
export function activeJob(jobs: ImportJob[]): ImportJob | undefined {
  const working = jobs.filter((j) => j.state === 'reading' || j.state === 'committing' || j.state === 'indexing' || j.state === 'queued');
  return working.find((j) => j.state !== 'queued') ?? working.at(-1);
}

/** The newest job with an outcome the user has not dismissed. */
export function lastOutcome(jobs: ImportJob[]): ImportJob | undefined {
  return jobs.find((j) => hasOutcome(j) && !j.dismissed);
}
