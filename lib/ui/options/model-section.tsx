import { useEffect, useState } from 'preact/hooks';
import { browserGpu, chooseGpuAdapter, type EmbedBackendChoice } from '../../embed/gpu-adapter';
import type { ServiceStatus } from '../../messaging/protocol';
import type { Settings, SettingsPatch } from '../../settings/types';
import { backendName } from '../import/import-text';

export type ModelInfo = ServiceStatus;

const CHOICES: { value: EmbedBackendChoice; label: string }[] = [
  { value: 'auto', label: 'Automatic: WebGPU on a hardware GPU, WASM otherwise' },
  { value: 'wasm', label: 'WASM only' },
  { value: 'webgpu', label: 'WebGPU, also on a software adapter (slower than WASM; to check the WebGPU path)' },
];

/**
 * What indexes imports and why: the backend that indexed last, with the engine's own reason; before anything was
 * indexed, what this browser offers (the same check the indexing engine makes). Firefox indexes in its background
 * script, which has no WebGPU engine.
 */
function useIndexBackendText(model: ModelInfo | undefined, choice: EmbedBackendChoice): string {
  const [offer, setOffer] = useState<string>();
  const firefox = import.meta.env.BROWSER === 'firefox';
  useEffect(() => {
    if (firefox) return;
    let live = true;
    void chooseGpuAdapter(browserGpu(), choice).then((v) => live && setOffer(v.use ? `WebGPU (${v.reason})` : `WASM (${v.reason})`));
    return () => void (live = false);
  }, [choice]);
  if (firefox) return 'Imports are indexed on WASM (Firefox indexes in its background script, without WebGPU).';
  const last = model?.indexBackend && model.indexReason ? `Last indexed on ${backendName(model.indexBackend)} (${model.indexReason}). ` : '';
  return `${last}The next import is indexed on ${offer ?? '… (checking)'}.`;
}

/** Which model ranks, whether it is ready, how much memory waits to be indexed, and what indexes it. */
export function ModelSection({ model, settings, save }: { model: ModelInfo | undefined; settings: Settings; save: (patch: SettingsPatch) => void }) {
  const backendText = useIndexBackendText(model, settings.embed.backend);
  return (
    <section aria-labelledby="h-model">
      <h2 id="h-model">Model</h2>
      <p data-testid="model-status" data-state={model?.state ?? 'idle'}>
        all-MiniLM-L6-v2 (on device):{' '}
        {model?.state === 'ready' ? `ready, running on ${model.backend ?? 'WASM'}` : model?.state === 'loading' ? 'loading…' : model?.state === 'failed' ? `failed (${model.error ?? 'unknown'}); word matching only` : 'loads on first use'}
        {model ? ` · ${model.memorySize} memories${model.unembedded ? `, ${model.unembedded} waiting to be indexed` : ''}` : ''}
        {model?.indexProblem ? <span class="error" data-testid="index-problem"> · {model.indexProblem}</span> : null}
      </p>
      <p data-testid="index-backend">{backendText}</p>
      <fieldset>
        <legend>Index imports with</legend>
        {CHOICES.map((c) => (
          <label class="check" key={c.value}>
            <input type="radio" name="embed-backend" value={c.value} data-testid={`embed-backend-${c.value}`} checked={settings.embed.backend === c.value}
              onChange={() => save({ embed: { backend: c.value } })} />
            {c.label}
          </label>
        ))}
      </fieldset>
    </section>
  );
}
