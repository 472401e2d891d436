import { useEffect, useState } from 'preact/hooks';
import { browser } from 'wxt/browser';
import { callBackground } from '../../messaging/rpc';
import type { SyncConnectPlace, SyncStatus } from '../../messaging/protocol';
import { syncOrigins } from '../../sites/sync-host';
import { keepPickedFolder, pickSyncFolder, reconnectFolder } from '../../sync/folder-pick';
import { webdavOrigin } from '../../sync/webdav-origin';
import { syncStatusText } from './sync-status-text';
import { useServicePush } from '../use-panel-state';

/** What crosses devices and what stays, for the user deciding whether to connect. */
const WHAT_SYNCS =
  'Synced: every memory with its settings (pins, never include, scope, held for review), the ranking weights, learning and the capture switch. ' +
  'Each device keeps its own: the model and its index, the folder or server login, which sites it may read (the list is offered to each device once), and caches.';

/**
 * Sync across the user's devices through a folder their own sync client carries, or a WebDAV folder: only ciphertext
 * is written there (docs/sync.md). The recovery key is shown once, when a new synced memory is made.
 */
export function SyncSection() {
  const [status, setStatus] = useState<SyncStatus>();
  const [url, setUrl] = useState('');
  const [user, setUser] = useState('');
  const [password, setPassword] = useState('');
  const [passphrase, setPassphrase] = useState('');
  const [folder, setFolder] = useState<string>();
  const [recoveryKey, setRecoveryKey] = useState<string>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const [loginUser, setLoginUser] = useState<string>();
  const [loginPassword, setLoginPassword] = useState('');
  const firefox = import.meta.env.BROWSER === 'firefox';
  const folders = !firefox && typeof (globalThis as { showDirectoryPicker?: unknown }).showDirectoryPicker === 'function';

  const refresh = () => void callBackground('sync:status', {}).then(setStatus).catch(() => {});
  useEffect(refresh, []);
  useServicePush((p) => {
    if (p.type === 'sync') setStatus(p.status);
  });

  const connect = async (place: SyncConnectPlace, readsHost = false) => {
    setError(undefined);
    setBusy(true);
    try {
      const got = await callBackground('sync:connect', { place, passphrase, readsHost });
      setStatus(got.status);
      if (got.recoveryKey) setRecoveryKey(got.recoveryKey);
      setPassword('');
      setPassphrase('');
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };

  const onConnect = () => {
    if (!passphrase) return setError('Enter the passphrase of the synced memory (or choose a new one).');
    if (folder) return void connect({ kind: 'folder' });
    const origin = webdavOrigin(url);
    if (!origin.ok) return setError(origin.error);
    // Asked here, inside the click: the browser grants a permission only in answer to the user's gesture.
    // Whether Backstory reads the server's site already, asked before the grant (the browser answers in order) and
    // awaited after it: a site the user reads stays read; one granted for sync alone is not read.
    const readsHost = Promise.all([browser.permissions.contains({ origins: [origin.pattern] }), syncOrigins()])
      .then(([had, held]) => had && !held.includes(origin.pattern), () => false);
    void browser.permissions.request({ origins: [origin.pattern] }).then(async (granted) => {
      if (!granted) return setError(`Backstory needs your permission to reach ${origin.host} to sync there.`);
      void connect({ kind: 'webdav', url: origin.url, user, password }, await readsHost);
    });
  };

  /** A new app password (or user) for the same server and folder: the device stays the one it is. */
  const onLogin = async (user: string) => {
    setError(undefined);
    setBusy(true);
    try {
      setStatus(await callBackground('sync:login', { user, password: loginPassword }));
      setLoginPassword('');
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };

  const onPickFolder = () => {
    setError(undefined);
    void pickSyncFolder()
      .then(async (handle) => {
        if (!handle) return;
        await keepPickedFolder(handle);
        setFolder(handle.name);
      })
      .catch((e: unknown) => setError(e instanceof Error ? e.message : String(e)));
  };

  const onReconnect = () => {
    void reconnectFolder()
      .then((ok) => (ok ? callBackground('sync:now', {}).then(setStatus) : setError('The browser did not give Backstory the folder back. Choose it again.')))
      .catch((e: unknown) => setError(e instanceof Error ? e.message : String(e)));
  };

  const on = status && status.state !== 'off';
  return (
    <section aria-labelledby="h-sync" data-testid="sync">
      <h2 id="h-sync">Sync across your devices</h2>
      <p class="muted">
        Backstory writes your memory, encrypted with your passphrase, to a folder you already sync (Google Drive, Dropbox, OneDrive, iCloud Drive or
        Syncthing on this computer) or to a WebDAV folder (Nextcloud, ownCloud, a NAS). Only ciphertext leaves this device, and only to that place.
      </p>
      <p data-testid="sync-status" data-state={status?.state ?? 'off'} role="status">{syncStatusText(status)}</p>
      {status?.reconnect ? (
        <button type="button" data-testid="sync-reconnect" onClick={onReconnect}>Reconnect folder</button>
      ) : null}
      {recoveryKey ? (
        <div class="recovery" role="alert">
          <p>Your recovery key opens the synced memory if you forget the passphrase. It is shown only now: write it down or keep it in a password manager.</p>
          <p><code data-testid="sync-recovery-key">{recoveryKey}</code></p>
          <button type="button" onClick={() => setRecoveryKey(undefined)}>I have kept it</button>
        </div>
      ) : null}
      {on ? (
        <p>
          <button type="button" data-testid="sync-now" disabled={status.state === 'syncing'} onClick={() => void callBackground('sync:now', {}).then(setStatus)}>Sync now</button>{' '}
          <button type="button" data-testid="sync-disconnect" onClick={() => void callBackground('sync:disconnect', {}).then(setStatus)}>Disconnect</button>
        </p>
      ) : null}
      {on && status.place?.kind === 'webdav' ? (
        <details data-testid="sync-login" open={status.state === 'error' && /password/.test(status.problem ?? '')}>
          <summary>Change the app password</summary>
          <form onSubmit={(e) => (e.preventDefault(), void onLogin(loginUser ?? (status.place?.kind === 'webdav' ? status.place.user : '')))}>
            <label class="field">User <input type="text" autocomplete="username" data-testid="sync-login-user" value={loginUser ?? status.place.user} onInput={(e) => setLoginUser((e.target as HTMLInputElement).value)} /></label>
            <label class="field">App password <input type="password" autocomplete="current-password" data-testid="sync-login-password" value={loginPassword} onInput={(e) => setLoginPassword((e.target as HTMLInputElement).value)} /></label>
            <button type="submit" data-testid="sync-login-save" disabled={busy || !loginPassword}>Save</button>
          </form>
        </details>
      ) : null}
      {on ? null : (
        <form onSubmit={(e) => (e.preventDefault(), onConnect())}>
          <fieldset>
            <legend>WebDAV folder</legend>
            <label class="field">Folder URL <input type="url" data-testid="sync-webdav-url" placeholder="https://cloud.example.com/remote.php/dav/files/me/Backstory/" value={url} onInput={(e) => (setUrl((e.target as HTMLInputElement).value), setFolder(undefined))} /></label>
            <label class="field">User <input type="text" autocomplete="username" data-testid="sync-webdav-user" value={user} onInput={(e) => setUser((e.target as HTMLInputElement).value)} /></label>
            <label class="field">App password <input type="password" autocomplete="current-password" data-testid="sync-webdav-password" value={password} onInput={(e) => setPassword((e.target as HTMLInputElement).value)} /></label>
          </fieldset>
          {folders ? (
            <p>
              Or a folder on this computer: <button type="button" data-testid="sync-folder" onClick={onPickFolder}>Choose folder…</button>
              {folder ? <span> {folder}</span> : null}
            </p>
          ) : (
            <p class="muted">{firefox ? 'Firefox does not let extensions use a folder on this computer: sync through WebDAV here.' : 'This browser cannot give Backstory a folder: sync through WebDAV.'}</p>
          )}
          <label class="field">Passphrase <input type="password" autocomplete="new-password" data-testid="sync-passphrase" value={passphrase} onInput={(e) => setPassphrase((e.target as HTMLInputElement).value)} /></label>
          <p class="muted">If the place already holds a synced memory, its passphrase (or recovery key) joins it; otherwise a new one is made there with this passphrase.</p>
          <button type="submit" data-testid="sync-connect" disabled={busy}>{busy ? 'Connecting…' : 'Connect'}</button>
        </form>
      )}
      {error ? <p class="error" role="alert" data-testid="sync-error">{error}</p> : null}
      <p class="muted">{WHAT_SYNCS}</p>
    </section>
  );
}
