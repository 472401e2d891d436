import { useEffect, useState } from 'preact/hooks';
import { browser } from 'wxt/browser';
import { hostOfPattern, isRemovable, readablePatterns } from '../sites/site-access';
import { SYNC_ORIGINS_KEY, syncOrigins } from '../sites/sync-host';

/**
 * The sites Backstory may read, from the browser's own record of granted permissions. Sites the user allowed can be
 * taken back here; the built-in ones (the sites with adapters) are changed in the browser's extension settings.
 */
export function SiteAccessList() {
  const [origins, setOrigins] = useState<string[]>();
  const [forSync, setForSync] = useState<string[]>([]);
  const [error, setError] = useState('');
  const required = (browser.runtime.getManifest() as { host_permissions?: string[] }).host_permissions ?? [];

  useEffect(() => {
    const load = () =>
      void Promise.all([browser.permissions.getAll(), syncOrigins()]).then(([p, held]) => {
        setOrigins(readablePatterns(p.origins).filter((o) => !held.includes(o)));
        setForSync(held);
      }, (e: Error) => setError(e.message));
    const stored = (changes: Record<string, unknown>) => SYNC_ORIGINS_KEY in changes && load();
    load();
    browser.permissions.onAdded.addListener(load);
    browser.permissions.onRemoved.addListener(load);
    browser.storage.onChanged.addListener(stored);
    return () => {
      browser.permissions.onAdded.removeListener(load);
      browser.permissions.onRemoved.removeListener(load);
      browser.storage.onChanged.removeListener(stored);
    };
  }, []);

  const revoke = (pattern: string) => {
    setError('');
    browser.permissions.remove({ origins: [pattern] }).then(
      (removed) => !removed && setError(`The browser kept access to ${hostOfPattern(pattern)}.`),
      (e: Error) => setError(e.message),
    );
  };

  const mine = (origins ?? []).filter((o) => isRemovable(o, required));
  const builtIn = (origins ?? []).filter((o) => !isRemovable(o, required));
  /** "example.com" for https, "http://127.0.0.1" otherwise: the scheme matters, as each is a separate grant. */
  const label = (o: string) => (o.startsWith('https://') ? hostOfPattern(o) : o.replace(/\/\*$/, ''));
  const chip = (o: string, removable: boolean) => (
    <li key={o} class="chip" title={o} data-testid="site-access-item" data-origin={o} data-builtin={removable ? undefined : 'true'}>
      {label(o)}
      {removable ? (
        <button data-testid="site-access-remove" onClick={() => revoke(o)} aria-label={`Stop reading ${label(o)}`}>×</button>
      ) : null}
    </li>
  );

  return (
    <div data-testid="site-access">
      {origins === undefined ? <p class="muted">Loading…</p> : null}
      <p class="small">Allowed by you</p>
      <ul class="chips">
        {mine.map((o) => chip(o, true))}
        {origins && !mine.length ? <li class="muted" data-testid="site-access-none">None yet.</li> : null}
      </ul>
      <p class="small">Built in (change these in your browser’s extension settings, Site access)</p>
      <ul class="chips">
        {builtIn.map((o) => chip(o, false))}
        {origins && !builtIn.length ? <li class="muted">None: your browser holds them back.</li> : null}
      </ul>
      {forSync.length ? (
        <p class="small muted" data-testid="site-access-sync">
          Reached for sync only, its pages not read: {forSync.map(label).join(', ')}. Allow it in the side panel on one of its pages to read it too.
        </p>
      ) : null}
      {error ? <p class="error" role="alert" data-testid="site-access-error">{error}</p> : null}
    </div>
  );
}
