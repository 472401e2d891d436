import { useEffect, useState } from 'preact/hooks';
import { browser } from 'wxt/browser';
import { openShortcutSettings } from './open-pages';

type Shortcut = { name: string; shortcut: string };

/** The two shortcuts as the browser has them now (the user may have changed them). */
export function useShortcuts(): Shortcut[] {
  const [list, setList] = useState<Shortcut[]>([
    { name: 'insert-top-card', shortcut: 'Alt+Shift+K' },
    { name: 'open-side-panel', shortcut: 'Alt+Shift+B' },
  ]);
  useEffect(() => {
    void browser.commands?.getAll().then(
      (all) => setList((l) => l.map((s) => ({ ...s, shortcut: all.find((c) => c.name === s.name)?.shortcut ?? s.shortcut }))),
      () => {},
    );
  }, []);
  return list;
}

export function Keys({ combo }: { combo: string }) {
  if (!combo) return <span class="muted">not set</span>;
  return <>{combo.split('+').map((k, i) => <span key={i}>{i ? '+' : null}<kbd>{k}</kbd></span>)}</>;
}

/** The options page's list of the two shortcuts, with the way to change them. */
export function ShortcutsSection() {
  const shortcuts = useShortcuts();
  const key = (name: string) => shortcuts.find((s) => s.name === name)?.shortcut ?? '';
  return (
    <section aria-labelledby="h-shortcuts" data-testid="shortcuts">
      <h2 id="h-shortcuts">Shortcuts</h2>
      <dl class="shortcut-keys">
        <dt><Keys combo={key('insert-top-card')} /></dt>
        <dd>inserts the top card into the field you are writing in</dd>
        <dt><Keys combo={key('open-side-panel')} /></dt>
        <dd>opens the side panel</dd>
      </dl>
      <button data-testid="shortcut-settings" onClick={openShortcutSettings}>Change the shortcuts…</button>
    </section>
  );
}
