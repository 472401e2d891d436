import { useState } from 'preact/hooks';
import demoMemory from '../../demo/memory.json';
import { IMPORT_FORMATS, type ImportFormat } from '../core/import-formats';
import { callBackground } from '../messaging/rpc';
import { openImport, openShortcutSettings } from './open-pages';
import { Keys, useShortcuts } from './shortcuts';

/** The ways to fill an empty memory, each with the formats it stands for: how to get each file is theirs. */
const SOURCES: { id: string; label: string; formats: ImportFormat[] }[] = [
  { id: 'chatgpt', label: 'a ChatGPT export', formats: ['chatgpt'] },
  { id: 'claude', label: 'a Claude export', formats: ['claude'] },
  { id: 'mail', label: 'mail', formats: ['mbox', 'eml'] },
  { id: 'notes', label: 'a notes folder', formats: ['markdown', 'notion'] },
];

const howToGet = (formats: ImportFormat[]) => formats.map((f) => IMPORT_FORMATS[f].how).join(' ');

/** What an empty memory shows instead of a blank panel: what Backstory does and the ways to fill it. */
export function Welcome(props: { onError(message: string): void }) {
  const shortcuts = useShortcuts();
  const [loading, setLoading] = useState(false);
  const key = (name: string) => shortcuts.find((s) => s.name === name)?.shortcut ?? '';
  const tryDemo = async () => {
    setLoading(true);
    try {
      await callBackground('memory:import', { fileName: 'demo-memory.json', content: JSON.stringify(demoMemory) });
    } catch (e) {
      props.onError(e instanceof Error ? e.message : String(e));
    } finally {
      setLoading(false);
    }
  };
  return (
    <section class="welcome" data-testid="welcome" aria-labelledby="welcome-title">
      <h2 id="welcome-title">Your memory is empty</h2>
      <p class="welcome-lead">
        Backstory keeps what you already wrote down — notes, past chats, mail — on this device, and brings the right piece
        to whatever you are writing now.
      </p>
      <h3>Fill it with what you have</h3>
      <ul class="welcome-ways">
        {SOURCES.map((s) => (
          <li key={s.id} data-testid="welcome-source" data-source={s.id}>
            <button data-testid={`welcome-import-${s.id}`} onClick={openImport} aria-describedby={`how-${s.id}`}>Import {s.label}</button>
            <span class="muted small" id={`how-${s.id}`}>{howToGet(s.formats)}</span>
          </li>
        ))}
        <li>
          <button class="primary" data-testid="welcome-demo" disabled={loading} onClick={() => void tryDemo()}>
            {loading ? 'Loading the demo memory…' : 'Try the demo memory'}
          </button>
          <span class="muted small">Seven sample notes and instructions to see how it works; delete them from the Memory tab.</span>
        </li>
        <li>
          <strong class="small">Remember as you go</strong>
          <span class="muted small">Select text on any page, right-click, and choose “Remember this selection”.</span>
        </li>
      </ul>
      <h3>Shortcuts</h3>
      <dl class="shortcut-keys" data-testid="welcome-shortcuts">
        <dt><Keys combo={key('insert-top-card')} /></dt>
        <dd>inserts the top card into the field you are writing in</dd>
        <dt><Keys combo={key('open-side-panel')} /></dt>
        <dd>opens this panel</dd>
      </dl>
      <button class="link small" data-testid="welcome-shortcut-settings" onClick={openShortcutSettings}>Change the shortcuts</button>
    </section>
  );
}
