import type { SyncStatus } from '../../messaging/protocol';

/** "Synced 2 minutes ago · 3 devices", or what is wrong and what to do. */
export function syncStatusText(s: SyncStatus | undefined, now = Date.now()): string {
  if (!s || s.state === 'off') return 'Sync is off: this memory is only on this device.';
  if (s.state === 'error') return s.problem ?? 'Sync stopped on a problem.';
  if (s.state === 'syncing') return s.progress && s.progress.total ? `Syncing… ${s.progress.done.toLocaleString()} of ${s.progress.total.toLocaleString()} memories` : 'Syncing…';
  const devices = s.devices && s.devices > 1 ? ` · ${s.devices} devices` : ' · only this device so far';
  const problem = s.problem ? ` · ${s.problem}` : '';
  const versions = s.revisions ? ` · ${s.revisions === 1 ? '1 memory has' : `${s.revisions} memories have`} two versions from edits on two devices: edit it in Memory to choose` : '';
  return `Synced ${s.lastSyncedAt ? ago(now - s.lastSyncedAt) : 'just now'}${devices}${versions}${problem}`;
}

function ago(ms: number): string {
  const min = Math.round(ms / 60_000);
  if (min < 1) return 'just now';
  if (min < 60) return `${min} minute${min === 1 ? '' : 's'} ago`;
  const h = Math.round(min / 60);
  if (h < 48) return `${h} hour${h === 1 ? '' : 's'} ago`;
  return `${Math.round(h / 24)} days ago`;
}
