import { useEffect, useState } from 'preact/hooks';
import { browser } from 'wxt/browser';
import { callBackground } from '../messaging/rpc';
import { suggestionPattern } from '../sites/site-suggestions';

/**
 * "Suggested by your other devices": sites the user allowed on another synced device. Nothing is granted without the
 * user: Allow asks the browser inside the click (a permission request needs the user's gesture), Dismiss stops the
 * suggestion on this device.
 */
export function SiteSuggestionList() {
  const [hosts, setHosts] = useState<string[]>([]);
  const [error, setError] = useState('');

  useEffect(() => {
    const load = () => void callBackground('sites:suggestions', {}).then((r) => setHosts(r.hosts), () => {});
    load();
    // A site allowed here (from this list or the panel) is no longer a suggestion.
    browser.permissions.onAdded.addListener(load);
    return () => browser.permissions.onAdded.removeListener(load);
  }, []);

  const allow = (host: string) => {
    setError('');
    browser.permissions.request({ origins: [suggestionPattern(host)] }).then(
      (granted) => {
        if (granted) setHosts((h) => h.filter((x) => x !== host));
        else setError(`Not allowed on ${host}; nothing was read.`);
      },
      (e: Error) => setError(e.message),
    );
  };
  const dismiss = (host: string) => {
    setError('');
    callBackground('sites:dismiss-suggestion', { host }).then((r) => setHosts(r.hosts), (e: Error) => setError(e.message));
  };

  if (!hosts.length && !error) return null;
  return (
    <div data-testid="site-suggestions">
      <p class="small">Suggested by your other devices</p>
      <ul class="chips">
        {hosts.map((host) => (
          <li key={host} class="chip" data-testid="site-suggestion" data-host={host}>
            {host}
            <button data-testid="site-suggestion-allow" onClick={() => allow(host)} aria-label={`Allow on ${host}`}>Allow</button>
            <button data-testid="site-suggestion-dismiss" onClick={() => dismiss(host)} aria-label={`Do not suggest ${host} again`}>Dismiss</button>
          </li>
        ))}
      </ul>
      {error ? <p class="error" role="alert" data-testid="site-suggestion-error">{error}</p> : null}
    </div>
  );
}
