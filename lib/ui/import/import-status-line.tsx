import type { IndexingProgress } from '../../messaging/protocol';
import { callBackground } from '../../messaging/rpc';
import { activeJob, lastOutcome } from './import-state';
import { indexingText, outcomeText, trustQuestion, workingText } from './import-text';
import { browser } from 'wxt/browser';
import { useImportJobs } from './use-import-jobs';

/**
 * The side panel's line about imports: the one at work (reading, saving) and the background indexing with its
 * estimate, then the last outcome until dismissed (also when the import ended while no panel was open).
 */
export function ImportStatusLine(props: { indexing?: IndexingProgress }) {
  const view = useImportJobs();
  // The worker's pushes first (they are the newest); the ranking's copy for a panel opened mid-run.
  const indexing = view.indexing ?? props.indexing;
  const active = activeJob(view.jobs);
  const outcome = lastOutcome(view.jobs);
  const asking = view.jobs.find((j) => j.state === 'confirm');
  return (
    <>
      {active && active.state !== 'indexing' ? (
        <div class="progress-note" role="status" data-testid="import-progress" data-state={active.state}>
          <span>{workingText(active, view.reading[active.id])}</span>
        </div>
      ) : null}
      {asking ? (
        <div class="progress-note" role="status" data-testid="import-progress" data-state="confirm">
          <span>{trustQuestion(asking)} Answer on the options page.</span>{' '}
          <button class="link" data-testid="import-trust-open" onClick={() => void browser.runtime.openOptionsPage()}>
            Open options
          </button>
        </div>
      ) : null}
      {indexing && indexing.done < indexing.total ? (
        <div class="progress-note" data-testid="indexing">
          <span>{indexingText(indexing)}</span>
          <progress max={indexing.total} value={indexing.done} aria-label="Indexing progress" />
        </div>
      ) : null}
      {outcome ? (
        <p class={`progress-note ${outcome.state === 'failed' ? 'error' : ''}`} role={outcome.state === 'failed' ? 'alert' : 'status'}>
          <span data-testid="import-outcome" data-state={outcome.state}>{outcomeText(outcome)}</span>{' '}
          <button class="link" data-testid="import-outcome-dismiss" onClick={() => void callBackground('import:dismiss', { jobId: outcome.id }).then(view.refresh)}>
            Dismiss
          </button>
        </p>
      ) : null}
    </>
  );
}
