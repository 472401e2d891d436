import { WEIGHT_NAMES, type WeightName } from '../../rank/types';
import { DEFAULT_SETTINGS } from '../../settings/defaults';
import type { Settings, SettingsPatch } from '../../settings/types';
import { RankPreview } from './rank-preview';

const WEIGHT_HELP: Record<WeightName, string> = {
  semantic: 'Meaning matches (on-device model)',
  lexical: 'Same words',
  recency: 'Newer or recently used',
  priority: 'Pinned and emphasised',
  continuity: 'Used with what is on screen',
  situation: 'This site, person or page',
};

/** One slider per ranking weight, a reset, and the live preview beside them. */
export function WeightsSection(props: { settings: Settings | undefined; save: (patch: SettingsPatch, delay?: number) => void }) {
  const { settings, save } = props;
  return (
    <section aria-labelledby="h-rank">
      <h2 id="h-rank">Ranking</h2>
      <div class="rank-grid">
        <div>
          {settings
            ? WEIGHT_NAMES.map((name) => (
                <label class="weight-row" key={name}>
                  <span title={WEIGHT_HELP[name]}>{name}</span>
                  <input
                    type="range" min="0" max="1" step="0.01"
                    data-weight={name}
                    aria-label={`${name} weight: ${WEIGHT_HELP[name]}`}
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
