import type { ServiceStatus } from '../../messaging/protocol';

export type ModelInfo = ServiceStatus;

/** Which model ranks, whether it is ready, and how much memory waits to be indexed. */
export function ModelSection({ model }: { model: ModelInfo | undefined }) {
  return (
    <section aria-labelledby="h-model">
      <h2 id="h-model">Model</h2>
      <p data-testid="model-state" data-state={model?.state ?? 'idle'}>
        all-MiniLM-L6-v2 (on device):{' '}
        {model?.state === 'ready' ? `ready, running on ${model.backend ?? 'WASM'}` : model?.state === 'loading' ? 'loading…' : model?.state === 'failed' ? `failed (${model.error ?? 'unknown'}); word matching only` : 'loads on first use'}
        {model ? ` · ${model.memorySize} memories${model.unembedded ? `, ${model.unembedded} waiting to be indexed` : ''}` : ''}
        {model?.indexProblem ? <span class="error" data-testid="index-problem"> · {model.indexProblem}</span> : null}
      </p>
    </section>
  );
}
