import { useEffect, useState } from 'preact/hooks';
import type { ReadProgress } from '../../import/types';
import type { ImportJob } from '../../import/import-jobs';
import type { IndexingProgress } from '../../messaging/protocol';
import { callBackground } from '../../messaging/rpc';
import { useServicePush } from '../use-panel-state';

export interface ImportJobsView {
  /** Newest first. */
  jobs: ImportJob[];
  /** Read progress of the job being read, by job id. */
  reading: Record<string, ReadProgress>;
  indexing?: IndexingProgress;
  /** Asks the worker again (after starting a job, or when the page opens). */
  refresh(): void;
}

/**
 * Import jobs as the worker has them: asked once when the page opens (an import started elsewhere, or one that
 * ended while no page was open, shows at once), then kept up to date by the worker's pushes.
 */
export function useImportJobs(): ImportJobsView {
  const [jobs, setJobs] = useState<ImportJob[]>([]);
  const [reading, setReading] = useState<Record<string, ReadProgress>>({});
  const [indexing, setIndexing] = useState<IndexingProgress>();
  const refresh = () =>
    void callBackground('import:status', {}).then(
      (s) => {
        setJobs(s.jobs);
        setIndexing(s.indexing);
      },
      () => undefined, // the worker is starting: its pushes follow
    );
  useEffect(refresh, []);
  useServicePush((push) => {
    if (push.type === 'import') {
      const job = push.job;
      setJobs((all) => [job, ...all.filter((j) => j.id !== job.id)].sort((a, b) => b.createdAt - a.createdAt));
      setReading(({ [job.id]: _was, ...rest }) => (push.progress && job.state === 'reading' ? { ...rest, [job.id]: push.progress } : rest));
    }
    if (push.type === 'indexing') setIndexing(push.progress.done >= push.progress.total ? undefined : push.progress);
  });
  return { jobs, reading, indexing, refresh };
}
