import { useEffect, useState } from 'preact/hooks';
import type { LearningReport } from '../learn/learning';
import { callBackground } from '../messaging/rpc';

/**
 * What Backstory learned from the cards you use, in plain words, with one click to turn it off and one to go back
 * to the defaults. Everything here stays on the device.
 */
export function LearningSection() {
  const [report, setReport] = useState<LearningReport>();
  const [error, setError] = useState('');
  const run = (p: Promise<LearningReport>) => p.then(setReport, (e: Error) => setError(e.message));
  useEffect(() => void run(callBackground('learning:status', {})), []);
  if (!report) return error ? <p class="error">{error}</p> : null;
  const waiting = report.pairs < report.needed;
  return (
    <section aria-labelledby="h-learning" data-testid="learning" data-enabled={String(report.enabled)}>
      <h2 id="h-learning">Learning from what you use</h2>
      <p class="muted">
        Inserting, copying or dragging a card, and “Not useful”, teach Backstory which factors matter to you, per site
        where you give it enough to go on. It learns on this device only, within a third and three times each weight.
      </p>
      {!report.enabled ? (
        <p data-testid="learning-state">Learning is off: cards are ranked by the weights above alone.</p>
      ) : waiting ? (
        <p data-testid="learning-state">
          Not enough feedback yet ({report.pairs} of {report.needed} comparisons from {report.events} {report.events === 1 ? 'use' : 'uses'}): ranking uses the weights above.
        </p>
      ) : report.lines.length ? (
        <ul data-testid="learning-state">
          {report.lines.map((l) => <li key={l} data-testid="learning-line">Learned: {l}</li>)}
        </ul>
      ) : (
        <p data-testid="learning-state">Your feedback ({report.events} uses) agrees with the weights above: nothing changed.</p>
      )}
      <div class="actions">
        <button data-testid="learning-toggle" aria-pressed={report.enabled} onClick={() => void run(callBackground('learning:set', { enabled: !report.enabled }))}>
          {report.enabled ? 'Turn learning off' : 'Turn learning on'}
        </button>
        <button data-testid="learning-reset" disabled={!report.events} onClick={() => void run(callBackground('learning:set', { reset: true }))}>
          Reset to defaults
        </button>
      </div>
      {error ? <p class="error" role="alert">{error}</p> : null}
    </section>
  );
}
