import { useEffect, useState } from 'preact/hooks';
import { callBackground } from '../messaging/rpc';
import { WEIGHT_NAMES, type RankSettings, type WeightName } from '../rank/types';

const WEIGHT_HELP: Record<WeightName, string> = {
  semantic: 'Meaning matches (on-device model)',
  lexical: 'Same words',
  recency: 'Newer or recently used',
  priority: 'Pinned and emphasised',
  continuity: 'Used with what is on screen',
  situation: 'This site, person or page',
};

export function OptionsPage() {
  const [settings, setSettings] = useState<RankSettings>();
  const [message, setMessage] = useState<{ ok: boolean; text: string }>();

  useEffect(() => {
    void callBackground('settings:get', {}).then(setSettings);
  }, []);

  const save = async (next: RankSettings) => {
    setSettings(next);
    setSettings(await callBackground('settings:set', { settings: next }));
  };

  const onImport = async (e: Event) => {
    const input = e.target as HTMLInputElement;
    const files = Array.from(input.files ?? []);
    let added = 0;
    try {
      for (const file of files) {
        const content = await file.text();
        added += (await callBackground('memory:import', { fileName: file.name, content })).added;
      }
      setMessage({ ok: true, text: `Imported ${added} ${added === 1 ? 'memory' : 'memories'}.` });
    } catch (err) {
      setMessage({ ok: false, text: `Import failed: ${(err as Error).message} Nothing was changed.` });
    } finally {
      input.value = '';
    }
  };

  const onExport = async () => {
    const { content } = await callBackground('memory:export', {});
    const url = URL.createObjectURL(new Blob([content], { type: 'application/json' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = `backstory-memory-${new Date().toISOString().slice(0, 10)}.json`;
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  };

  return (
    <main class="options">
      <h1>Backstory options</h1>
      <section>
        <h2>Ranking weights</h2>
        {settings
          ? WEIGHT_NAMES.map((name) => (
              <label class="weight-row" key={name}>
                <span title={WEIGHT_HELP[name]}>{name}</span>
                <input
                  type="range"
                  min="0"
                  max="1"
                  step="0.01"
                  data-weight={name}
                  aria-label={`${name} weight: ${WEIGHT_HELP[name]}`}
                  value={settings.weights[name]}
                  onChange={(e) => void save({ ...settings, weights: { ...settings.weights, [name]: Number((e.target as HTMLInputElement).value) } })}
                />
                <span class="num">{settings.weights[name].toFixed(2)}</span>
              </label>
            ))
          : 'Loading…'}
      </section>
      {settings ? (
        <section>
          <h2>Budget</h2>
          <label class="weight-row">
            <span>Tokens</span>
            <input type="number" min="50" max="20000" data-setting="budgetTokens" value={settings.budgetTokens}
              onChange={(e) => void save({ ...settings, budgetTokens: Number((e.target as HTMLInputElement).value) })} />
            <span />
          </label>
          <label class="weight-row">
            <span>Half-life (days)</span>
            <input type="number" min="1" max="3650" data-setting="halfLifeDays" value={settings.halfLifeDays}
              onChange={(e) => void save({ ...settings, halfLifeDays: Number((e.target as HTMLInputElement).value) })} />
            <span />
          </label>
        </section>
      ) : null}
      <section>
        <h2>Import and export</h2>
        <p class="muted">A Backstory memory file (.json), Markdown notes (.md) or plain text (.txt). An import is all or nothing.</p>
        <input data-testid="import-file" type="file" multiple accept=".json,.md,.markdown,.txt,application/json,text/markdown,text/plain" onChange={onImport} />
        <button data-testid="export" onClick={onExport}>Export memory</button>
        {message ? <p data-testid="import-message" class={message.ok ? 'ok' : 'error'} role="status">{message.text}</p> : null}
      </section>
    </main>
  );
}
