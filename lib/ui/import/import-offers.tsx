import type { ImportJob } from '../../import/import-jobs';
import { callBackground } from '../../messaging/rpc';

/**
 * What an import found that is the user's to decide (ChatGPT custom instructions): never saved silently; each is
 * saved as an instruction or dismissed.
 */
export function ImportOffers(props: { jobs: ImportJob[]; onChanged: () => void }) {
  const offers = props.jobs.flatMap((job) => (job.state === 'indexing' || job.state === 'done' ? (job.offers ?? []).map((offer, index) => ({ job, offer, index })) : []));
  if (!offers.length) return null;
  const decide = (jobId: string, index: number, save: boolean) => void callBackground('import:offer', { jobId, index, save }).then(props.onChanged);
  return (
    <ul class="import-offers" aria-label="Found in the import">
      {offers.map(({ job, offer, index }) => (
        <li key={`${job.id}/${index}`} data-testid="import-offer">
          <strong>{offer.title}</strong> <span class="muted small">({offer.from})</span>
          <p class="offer-text">{offer.text}</p>
          <button data-testid="import-offer-save" onClick={() => decide(job.id, index, true)}>Save as instruction</button>{' '}
          <button data-testid="import-offer-dismiss" onClick={() => decide(job.id, index, false)}>Dismiss</button>
        </li>
      ))}
    </ul>
  );
}
