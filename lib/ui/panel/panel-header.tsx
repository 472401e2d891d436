import type { Ref } from 'preact';
import { browser } from 'wxt/browser';
import type { PanelState, PanelStatus } from '../../messaging/protocol';
import { ImportStatusLine } from '../import/import-status-line';
import { statusText } from './status-text';

export type PanelView = 'context' | 'memory';

/** Title, the Context / Memory tabs, the search box, the status line and model / indexing progress. */
export function PanelHeader(props: {
  view: PanelView;
  setView: (v: PanelView) => void;
  search: string;
  setSearch: (s: string) => void;
  searchRef: Ref<HTMLInputElement>;
  state: PanelState | undefined;
  status: PanelStatus;
  tabId: number | undefined;
}) {
  const { state, status, view } = props;
  const site = state?.task?.site;
  const onSearchKey = (e: KeyboardEvent) => {
    if (e.key === 'Escape' && props.search) {
      e.preventDefault();
      props.setSearch('');
    }
    if (e.key === 'ArrowDown') {
      e.preventDefault();
      document.querySelector<HTMLElement>('.cards [data-testid="card"]')?.focus();
    }
  };
  return (
    <header class="panel-head">
      <div class="title-row">
        <h1><img class="logo" src="/icons/32.png" alt="" width={20} height={20} />Backstory</h1>
        <div class="tabs" role="tablist" aria-label="Views">
          <button role="tab" data-testid="tab-context" aria-selected={view === 'context'} onClick={() => props.setView('context')}>Context</button>
          <button role="tab" data-testid="tab-memory" aria-selected={view === 'memory'} onClick={() => props.setView('memory')}>Memory</button>
        </div>
        <button class="icon" data-testid="open-options" title="Options" aria-label="Options" onClick={() => void browser.runtime.openOptionsPage()}>⚙</button>
      </div>
      <input
        ref={props.searchRef}
        data-testid="search"
        type="search"
        placeholder="Ask your memory…  ( / )"
        aria-label="Search your memory"
        value={props.search}
        onInput={(e) => props.setSearch((e.target as HTMLInputElement).value)}
        onKeyDown={onSearchKey}
      />
      <p data-testid="status" data-state={status} class={`status status-${status}`} role="status" aria-live="polite">
        <span class="dot" aria-hidden="true" />
        {statusText(state, props.tabId)}
        {site && (status === 'found' || status === 'empty') && !state?.search ? <span class="muted"> · {site}</span> : null}
      </p>
      {state?.model.state === 'loading' ? (
        <div class="progress-note" data-testid="model-status" data-state="loading">
          <span>
            Loading the on-device model{state.model.progress !== undefined ? ` (${Math.round(state.model.progress * 100)}%)` : ''}; word matching
            works meanwhile.
          </span>
          {state.model.progress !== undefined ? (
            <progress aria-label="Loading the model" max={1} value={state.model.progress} />
          ) : (
            <progress aria-label="Loading the model" />
          )}
        </div>
      ) : state?.model.state === 'failed' ? (
        <p class="progress-note" data-testid="model-status" data-state="failed">
          The on-device model did not load ({state.model.error ?? 'unknown error'}); ranking uses words only.
        </p>
      ) : null}
      <ImportStatusLine indexing={state?.indexing} />
    </header>
  );
}
