import { useEffect, useState } from 'preact/hooks';
import { browser } from 'wxt/browser';
import { hostOfPattern, isRemovable, readablePatterns } from '../service/site-access';

/**
 * The sites Backstory may read, from the browser's own record of granted permissions. Sites the user allowed can be
 * taken back here; the built-in ones (the sites with adapters) are changed in the browser's extension settings.
 */
export function SiteAccessList() {
  const [origins, setOrigins] = useState<string[]>();
  const [error, setError] = useState('');
  const required = (browser.runtime.getManifest() as { host_permissions?: string[] }).host_permissions ?? [];

  useEffect(() => {
    const load = () => void browser.permissions.getAll().then((p) => setOrigins(readablePatterns(p.origins)), (e: Error) => setError(e.message));
    load();
    browser.permissions.onAdded.addListener(load);
    browser.permissions.onRemoved.addListener(load);
    return () => {
      browser.permissions.onAdded.removeListener(load);
      browser.permissions.onRemoved.removeListener(load);
    };
  }, []);

  const revoke = (pattern: string) => {
    setError('');
    browser.permissions.remove({ origins: [pattern] }).then(
      (removed) => !removed && setError(`The browser kept access to ${hostOfPattern(pattern)}.`),
      (e: Error) => setError(e.message),
    );
  };

  return (
    <div data-testid="site-access">
      {origins === undefined ? <p class="muted">Loading…</p> : null}
      {origins?.length === 0 ? <p class="muted" data-testid="site-access-none">No site: Backstory reads no page until you allow one from the side panel.</p> : null}
      <ul class="host-list-items">
        {(origins ?? []).map((o) => (
          <li key={o} data-testid="site-access-item" data-origin={o}>
            <span>{hostOfPattern(o)}</span> <span class="muted small">{o}</span>{' '}
            {isRemovable(o, required) ? (
              <button data-testid="site-access-remove" onClick={() => revoke(o)} aria-label={`Stop reading ${hostOfPattern(o)}`}>Remove</button>
            ) : (
              <span class="muted small">built in; change it in your browser’s extension settings</span>
            )}
          </li>
        ))}
      </ul>
      {error ? <p class="error" role="alert" data-testid="site-access-error">{error}</p> : null}
    </div>
  );
}
