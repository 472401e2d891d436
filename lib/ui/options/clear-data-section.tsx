import { useState } from 'preact/hooks';
import { callBackground } from '../../messaging/rpc';

/** "Clear all data", behind a confirmation that says how many memories go. */
export function ClearDataSection(props: { count: number; onCleared: () => void }) {
  const [confirm, setConfirm] = useState(false);
  return (
    <section aria-labelledby="h-danger" class="danger-zone">
      <h2 id="h-danger">Clear all data</h2>
      {confirm ? (
        <div role="alertdialog" aria-label="Confirm deleting all memories" data-testid="clear-confirm-box">
          <p><strong>Delete all {props.count} memories?</strong> This cannot be undone. Export first if you want a copy.</p>
          <button class="danger primary" data-testid="clear-confirm" onClick={() => void callBackground('memory:clear', {}).then(() => {
            setConfirm(false);
            props.onCleared();
          })}>Delete everything</button>{' '}
          <button data-testid="clear-cancel" onClick={() => setConfirm(false)}>Cancel</button>
        </div>
      ) : (
        <button class="danger" data-testid="clear-all" onClick={() => setConfirm(true)}>Clear all data…</button>
      )}
    </section>
  );
}
