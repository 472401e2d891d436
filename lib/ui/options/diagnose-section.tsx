import { useState } from 'preact/hooks';
import type { SiteDiagnosis } from '../../messaging/protocol';
import { callBackground } from '../../messaging/rpc';

/** The report as plain text for a bug report: the host and the landmarks' names, nothing the page holds. */
export function diagnosisText(d: SiteDiagnosis): string {
  if (d.problem) return [d.site ? `Page: ${d.site}` : '', d.problem].filter(Boolean).join('\n');
  return [
    `Page: ${d.site ?? 'unknown'}`,
    `Site adapter: ${d.label ?? d.adapter ?? 'none'}`,
    `Found: ${d.found.length ? d.found.join(', ') : 'none'}`,
    `Missing: ${d.missing.length ? d.missing.join(', ') : 'none'}`,
    d.fieldOnly ? 'Reading: the focused field alone (none of the landmarks were found)' : 'Reading: the site’s own',
    d.at ? `Read at: ${new Date(d.at).toISOString()}` : '',
  ]
    .filter(Boolean)
    .join('\n');
}

/**
 * "Diagnose this page": what Backstory sees of the structure of the page the user was last on, to paste into a bug
 * report when a site is not read. Made and shown here; nothing is sent anywhere.
 */
export function DiagnoseSection() {
  const [report, setReport] = useState<string>();
  const [busy, setBusy] = useState(false);
  const run = async () => {
    setBusy(true);
    try {
      setReport(diagnosisText(await callBackground('site:diagnose', {})));
    } catch (e) {
      setReport(`Backstory could not look at the page: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section aria-labelledby="h-diagnose">
      <h2 id="h-diagnose">Diagnose this page</h2>
      <p class="muted">
        When Backstory does not read a site as it should: what it finds of the structure of the page you were last on (its
        landmarks, found and missing). Names only, none of your text; it stays here for you to copy into a bug report.
      </p>
      <button data-testid="diagnose-page" disabled={busy} onClick={() => void run()}>Diagnose this page</button>
      {report ? <pre class="diagnosis" data-testid="diagnose-report">{report}</pre> : null}
    </section>
  );
}
