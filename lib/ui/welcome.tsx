import { useState } from 'preact/hooks';
import demoMemory from '../../demo/memory.json';
import { callBackground } from '../messaging/rpc';
import { openImport, openShortcutSettings } from './open-pages';
import { Keys, useShortcuts } from './shortcuts';

/** The ways to fill an empty memory, each with how to get the file. */
const SOURCES: { id: string; label: string; how: string }[] = [
  { id: 'chatgpt', label: 'a ChatGPT export', how: 'In ChatGPT: Settings → Data controls → Export data. A download link arrives by email; import the zip as it is.' },
  { id: 'claude', label: 'a Claude export', how: 'In Claude: Settings → Privacy → Export data. A download link arrives by email; import the zip as it is.' },
  { id: 'mail', label: 'mail', how: 'Gmail: takeout.google.com → Mail gives an .mbox file. Other mail apps export a mailbox as .mbox or save messages as .eml.' },
  { id: 'notes', label: 'a notes folder', how: 'Pick an Obsidian vault or any folder of Markdown notes. Notion: Settings → Export → Markdown & CSV, then import the zip.' },
];

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
            <span class="muted small" id={`how-${s.id}`}>{s.how}</span>
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
