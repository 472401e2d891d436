import { useEffect, useState } from 'preact/hooks';
import { browser } from 'wxt/browser';
import { callBackground } from '../../messaging/rpc';
import type { SyncStatus } from '../../messaging/protocol';
import { reconnectFolder } from '../../sync/folder-pick';
import { useServicePush } from '../use-panel-state';

/**
 * A sync problem in one line, where the user writes: what is wrong and the one thing to do (reconnect the folder,
 * or open the options). Nothing shows while sync is off or fine.
 */
export function SyncLine() {
  const [status, setStatus] = useState<SyncStatus>();
  useEffect(() => void callBackground('sync:status', {}).then(setStatus).catch(() => {}), []);
  useServicePush((p) => {
    if (p.type === 'sync') setStatus(p.status);
  });
  if (!status || (status.state !== 'error' && !status.reconnect)) return null;
  const reconnect = () =>
    void reconnectFolder().then((ok) => (ok ? callBackground('sync:now', {}).then(setStatus) : browser.runtime.openOptionsPage()));
  return (
    <p class="sync-line error" role="status" data-testid="sync-line">
      {status.problem ?? 'Sync stopped on a problem.'}{' '}
      {status.reconnect ? (
        <button type="button" data-testid="sync-reconnect" onClick={reconnect}>Reconnect folder</button>
      ) : (
        <button type="button" class="link" onClick={() => void browser.runtime.openOptionsPage()}>Sync options</button>
      )}
    </p>
  );
}
