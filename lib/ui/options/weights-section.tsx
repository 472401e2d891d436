import { FACTORS, FACTOR_NAMES } from '../../core/factors';
import { DEFAULT_SETTINGS } from '../../settings/defaults';
import type { Settings, SettingsPatch } from '../../settings/types';
import { RankPreview } from './rank-preview';

/** One slider per ranking weight, a reset, and the live preview beside them. */
export function WeightsSection(props: { settings: Settings | undefined; save: (patch: SettingsPatch, delay?: number) => void }) {
  const { settings, save } = props;
  return (
    <section aria-labelledby="h-rank">
      <h2 id="h-rank">Ranking</h2>
      <div class="rank-grid">
        <div>
          {settings
            ? FACTOR_NAMES.map((name) => (
                <label class="weight-row" key={name}>
                  <span title={FACTORS[name].help}>{name}</span>
                  <input
                    type="range" min="0" max="1" step="0.01"
                    data-weight={name}
                    aria-label={`${name} weight: ${FACTORS[name].help}`}
                    value={settings.rank.weights[name]}
                    onInput={(e) => save({ rank: { weights: { ...settings.rank.weights, [name]: Number((e.target as HTMLInputElement).value) } } }, 250)}
                  />
                  <span class="num">{settings.rank.weights[name].toFixed(2)}</span>
                </label>
              ))
            : 'Loading…'}
          {settings ? (
            <button data-testid="weights-reset" onClick={() => save({ rank: { weights: { ...DEFAULT_SETTINGS.weights } } })}>Reset weights</button>
          ) : null}
        </div>
        {settings ? <RankPreview settings={settings.rank} /> : null}
      </div>
    </section>
  );
}
