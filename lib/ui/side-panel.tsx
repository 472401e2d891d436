import { useState } from 'preact/hooks';
import type { PanelState } from '../messaging/protocol';
import { callBackground } from '../messaging/rpc';
import { Card } from './card';
import { usePanelState, useWatchedTab } from './use-panel-state';

const STATUS_TEXT: Record<PanelState['status'], string> = {
  watching: 'Watching this page — click into a field and start writing.',
  searching: 'Searching your memory…',
  found: 'Relevant background',
  empty: 'Nothing in your memory is relevant here yet.',
  error: 'Something went wrong',
};

function modelNote(state: PanelState): string | null {
  if (state.model.state === 'loading') return 'Loading the on-device model…';
  if (state.model.state === 'failed') return `The on-device model did not load (${state.model.error ?? 'unknown error'}); ranking uses words only.`;
  return null;
}

export function SidePanel() {
  const tabId = useWatchedTab();
  const [search, setSearch] = useState('');
  const [notice, setNotice] = useState<string>();
  const state = usePanelState(tabId, search);
  const status = state?.status ?? 'watching';
  const evidence = state?.cards.filter((c) => c.kind === 'evidence') ?? [];
  const instructions = state?.cards.filter((c) => c.kind === 'instruction') ?? [];

  const insert = async (id: string) => {
    if (tabId === undefined) return;
    try {
      const out = await callBackground('card:insert', { tabId, id });
      setNotice(out.ok ? 'Inserted.' : (out.hint ?? 'Could not insert here.'));
    } catch (e) {
      setNotice((e as Error).message.includes('Receiving end') ? 'Reload the page so Backstory can reach it.' : (e as Error).message);
    }
  };

  return (
    <main class="panel">
      <header class="panel-head">
        <h1>Backstory</h1>
        <input
          data-testid="search"
          type="search"
          placeholder="Ask your memory…"
          aria-label="Search your memory"
          value={search}
          onInput={(e) => setSearch((e.target as HTMLInputElement).value)}
        />
        <p data-testid="status" data-state={status} class={`status status-${status}`} role="status" aria-live="polite">
          {status === 'error' && state?.error ? `${STATUS_TEXT.error}: ${state.error}` : STATUS_TEXT[status]}
          {state?.task?.site && status !== 'watching' ? <span class="muted"> · {state.task.site}</span> : null}
        </p>
        {state && modelNote(state) ? <p class="model-note">{modelNote(state)}</p> : null}
        {notice ? <p class="notice" role="alert" onClick={() => setNotice(undefined)}>{notice}</p> : null}
      </header>
      {status === 'empty' ? (
        <section data-testid="empty-state" class="empty">
          <p>Nothing in your memory clears the relevance bar for this task.</p>
          <p class="muted">Select text on any page and choose “Remember this selection”, or import notes from the options page.</p>
        </section>
      ) : null}
      <ol class="cards" aria-label="Ranked context">
        {state?.cards.map((card, i) => (
          <Card key={card.item.id} card={card} rank={i + 1} onInsert={() => insert(card.item.id)} tabId={tabId} />
        ))}
      </ol>
      <footer class="muted foot">
        {state ? `${state.memorySize} memories` : ''} · {instructions.length} instructions · {evidence.length} evidence
      </footer>
    </main>
  );
}
