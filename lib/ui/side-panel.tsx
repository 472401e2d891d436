import { useEffect, useRef, useState } from 'preact/hooks';
import { browser } from 'wxt/browser';
import type { MemoryItem } from '../memory/types';
import type { PanelPush } from '../messaging/protocol';
import { callBackground } from '../messaging/rpc';
import { MemoryBrowser } from './memory/memory-browser';
import { ContextView } from './panel/context-view';
import { panelActions } from './panel/panel-actions';
import { PanelHeader, type PanelView } from './panel/panel-header';
import { SyncLine } from './panel/sync-line';
import { PhraseOfferBar } from './panel/phrase-offer';
import { QuickEdit } from './panel/quick-edit';
import { setSitePaused } from './panel/site-pause';
import { ToastSlot, useToast } from './panel/toast';
import { usePanelState, useWatchedTab } from './use-panel-state';

/** The side panel: header, the quick edit after a capture, the Context or Memory tab, footer and toast. */
export function SidePanel() {
  const tabId = useWatchedTab();
  const [search, setSearch] = useState('');
  const [view, setView] = useState<PanelView>('context');
  const [captured, setCaptured] = useState<MemoryItem>();
  const [memVersion, setMemVersion] = useState(0);
  const [phraseVersion, setPhraseVersion] = useState(0);
  const searchRef = useRef<HTMLInputElement>(null);
  const { toast, show, fail, close } = useToast();
  const changed = () => setMemVersion((v) => v + 1);

  const onPush = (push: PanelPush) => {
    if (push.type === 'captured') {
      setCaptured(push.item);
      changed();
    }
    if (push.type === 'problem') show({ text: push.message, error: true });
    if (push.type === 'phrase-offer') setPhraseVersion((v) => v + 1);
    if (push.type === 'indexing' && push.progress.done >= push.progress.total) changed();
  };
  const state = usePanelState(tabId, search, onPush);
  const status = tabId === undefined ? 'watching' : (state?.status ?? 'watching');
  const actions = panelActions({ tabId, search, show, fail, changed });

  useEffect(() => {
    void callBackground('capture:recent', {}).then((r) => r.item && setCaptured(r.item), () => {});
  }, []);
  // Memory size changes (a save elsewhere, an import) refresh the memory view.
  const lastSize = useRef<number | undefined>(undefined);
  useEffect(() => {
    if (state && lastSize.current !== undefined && state.memorySize !== lastSize.current) changed();
    if (state) lastSize.current = state.memorySize;
  }, [state?.memorySize]);

  // '/' focuses the search box from anywhere, as in most apps.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const t = e.target as HTMLElement;
      if (e.key === '/' && !/^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName) && !t.isContentEditable) {
        e.preventDefault();
        searchRef.current?.focus();
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);

  /** "Allow on <host>": the browser asks the user; it must be called straight from the click (a user gesture). */
  const allowSite = (host: string, pattern: string) => {
    browser.permissions.request({ origins: [pattern] }).then(async (granted) => {
      if (granted) await callBackground('sites:allowed', { pattern });
      show(granted ? { text: `Allowed on ${host}. Backstory reads this site’s pages from now on.` } : { text: `Not allowed on ${host}; nothing was read.` });
    }, fail);
  };
  const closeQuickEdit = (item: MemoryItem) => {
    void callBackground('capture:dismiss', { id: item.id });
    setCaptured(undefined);
  };
  /** The quick edit's "Use it anyway": a capture held back as a possible secret joins suggestions. */
  const confirmHeld = async (item: MemoryItem) => {
    const saved = await actions.update(item.id, { needsReview: '' });
    if (!saved) return;
    setCaptured((c) => (c?.id === saved.id ? saved : c));
    show({ text: 'It will be suggested from now on.' });
  };

  const site = state?.task?.site;

  return (
    <main class="panel">
      <PanelHeader view={view} setView={setView} search={search} setSearch={setSearch} searchRef={searchRef} state={state} status={status}
        tabId={tabId} />

      <SyncLine />

      {captured ? (
        <QuickEdit
          item={captured}
          onClose={() => closeQuickEdit(captured)}
          onConfirmHeld={() => void confirmHeld(captured)}
          onDelete={() => {
            closeQuickEdit(captured);
            void actions.remove(captured);
          }}
          onSave={async (patch) => {
            await actions.update(captured.id, patch);
            closeQuickEdit(captured);
            show({ text: 'Saved.' });
          }}
          onMerged={(kept) => {
            closeQuickEdit(captured);
            changed();
            show({ text: `Merged into “${kept.title}”.` });
          }}
          onError={fail}
        />
      ) : null}

      <PhraseOfferBar
        version={phraseVersion}
        onSaved={(item) => {
          changed();
          show({ text: `Saved “${item.text}” as an instruction for chat assistants.` });
        }}
        onError={fail}
      />

      {view === 'memory' ? (
        <MemoryBrowser version={memVersion} onDelete={(it) => void actions.remove(it)} show={show} onError={(m) => show({ text: m, error: true })} />
      ) : (
        <ContextView state={state} status={status} tabId={tabId} search={search} actions={actions} show={show} fail={fail}
          onAllow={allowSite} onTurnOn={(s) => void setSitePaused(s, false)} />
      )}

      <footer class="muted foot">
        <span>{state ? `${state.memorySize} ${state.memorySize === 1 ? 'memory' : 'memories'}` : ''}</span>
        {site && !state?.paused ? (
          <button class="link" data-testid="site-toggle" onClick={() => void setSitePaused(site, true).then(() => show({ text: `Backstory is now off on ${site}.` }))}>
            Turn off on {site}
          </button>
        ) : null}
      </footer>

      <ToastSlot toast={toast} onClose={close} onError={fail} />
    </main>
  );
}
