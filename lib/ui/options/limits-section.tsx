import { useState } from 'preact/hooks';
import type { Settings, SettingsPatch } from '../../settings/types';

type NumberKey = 'budgetTokens' | 'halfLifeDays' | 'maxCards' | 'threshold';

/** Half-life, token budget, card limit and relevance bar as number fields, saved when a field's change fires. */
export function LimitsSection(props: { settings: Settings; save: (patch: SettingsPatch) => void }) {
  const { settings, save } = props;
  // What is typed into a number field until its change fires: any re-render meanwhile (a status push, another
  // page's change) would otherwise put the saved value back into the field, and the typed one would never be saved.
  const [drafts, setDrafts] = useState<Partial<Record<NumberKey, string>>>({});
  const num = (key: NumberKey, label: string, min: number, max: number, step: number, help: string) => (
    <label class="weight-row">
      <span title={help}>{label}</span>
      <input type="number" min={min} max={max} step={step} data-setting={key} value={drafts[key] ?? settings.rank[key]} aria-describedby={`help-${key}`}
        onInput={(e) => setDrafts((d) => ({ ...d, [key]: (e.target as HTMLInputElement).value }))}
        onChange={(e) => {
          const v = Number((e.target as HTMLInputElement).value);
          setDrafts(({ [key]: _done, ...rest }) => rest);
          if (Number.isFinite(v)) save({ rank: { [key]: v } });
        }} />
      <span class="muted small" id={`help-${key}`}>{help}</span>
    </label>
  );
  return (
    <section aria-labelledby="h-limits">
      <h2 id="h-limits">Recency, budget and caps</h2>
      {num('halfLifeDays', 'Half-life (days)', 0.5, 3650, 0.5, 'A memory this old counts half as recent.')}
      {num('budgetTokens', 'Token budget', 50, 20000, 50, 'Most tokens “insert all” adds.')}
      {num('maxCards', 'Max cards', 1, 50, 1, 'Most note cards the panel shows; one-line cards count as half (up to half as many again). The instructions that apply come on top, within their share of the budget.')}
      {num('threshold', 'Relevance bar', 0, 1, 0.01, 'Below this a card is not shown.')}
    </section>
  );
}
