import { useEffect, useState } from 'preact/hooks';
import { callBackground } from '../messaging/rpc';

/**
 * The other texts a memory was given at the same time on another device (sync keeps both): each can be taken into
 * the editor, or all dropped to keep the current one. Shown as text, never HTML. Nothing shows while sync is off or
 * there is no other version.
 */
export function SyncVersions(props: { id: string; onUse: (text: string) => void }) {
  const [texts, setTexts] = useState<string[]>([]);
  useEffect(() => {
    let live = true;
    void callBackground('sync:revisions', { id: props.id })
      .then((r) => live && setTexts(r.texts))
      .catch(() => {});
    return () => void (live = false);
  }, [props.id]);
  if (!texts.length) return null;
  return (
    <div class="field sync-versions" data-testid="sync-versions">
      <p class="muted">Also written at the same time on another device:</p>
      {texts.map((t, i) => (
        <div key={i} class="sync-version">
          <p data-testid="sync-version-text">{t}</p>
          <button type="button" data-testid="sync-version-use" onClick={() => props.onUse(t)}>Use this version</button>
        </div>
      ))}
      <button type="button" data-testid="sync-versions-dismiss"
        onClick={() => void callBackground('sync:dismiss-revisions', { id: props.id }).then(() => setTexts([]))}>
        Keep the current text
      </button>
    </div>
  );
}
