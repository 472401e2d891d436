import { useEffect, useRef, useState } from 'preact/hooks';
import { browser } from 'wxt/browser';
import type { MemoryItem, MemoryPatch } from '../memory/types';
import type { IndexingProgress, PanelPush, PanelState } from '../messaging/protocol';
import { callBackground } from '../messaging/rpc';
import type { RankedCard, TraceEntry } from '../rank/types';
import { Card, FactorBars } from './card';
import { stageText } from './format';
import { inputFromItem } from '../memory/normalize';
import { ItemEditor } from './item-editor';
import { DuplicateOffer } from './duplicate-offer';
import { MemoryView } from './memory-view';
import { Welcome } from './welcome';
import { usePanelState, useWatchedTab } from './use-panel-state';
import { ImportStatusLine } from './import/import-status-line';

type Toast = { text: string; undo?: () => Promise<void>; error?: boolean };
type PackageView = { text: string; tokens: number; ids: string[]; budget: number };

function statusText(state: PanelState | undefined, tabId: number | undefined): string {
  if (tabId === undefined) return 'No tab to watch — open a normal web page.';
  if (!state) return 'Watching this tab…';
  switch (state.status) {
    case 'watching':
      if (state.access) return 'Backstory can’t read this page';
      return state.paused ? `Off on ${state.paused.site}` : 'Watching — click into a field and start writing, or ask below.';
    case 'searching':
      return 'Searching your memory…';
    case 'found': {
      const n = state.cards.length;
      return `${n} ${n === 1 ? 'card' : 'cards'} ${state.search ? 'for your search' : 'for this task'}`;
    }
    case 'empty':
      return 'Nothing relevant in your memory';
    case 'error':
      return `Something went wrong: ${state.error ?? 'unknown error'}`;
  }
}

function firstName(person: string): string {
  const name = person.replace(/<[^>]*>/g, '').trim();
  return name || person.trim();
}

async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const ta = document.createElement('textarea');
    ta.value = text;
    ta.style.position = 'fixed';
    ta.style.opacity = '0';
    document.body.append(ta);
    ta.select();
    const ok = document.execCommand('copy');
    ta.remove();
    return ok;
  }
}

async function setSitePaused(site: string, paused: boolean): Promise<void> {
  await callBackground('site:pause', { site, paused });
}

/** Left-out candidates and why ("why not?"): every trace entry the ranker did not select. */
function WhyNot({ trace }: { trace: TraceEntry[] }) {
  const [q, setQ] = useState('');
  const out = trace.filter((e) => !e.included);
  if (!out.length) return null;
  const shown = out.filter((e) => !q.trim() || e.title.toLowerCase().includes(q.trim().toLowerCase())).slice(0, 40);
  return (
    <details class="why-not" data-testid="why-not">
      <summary>Why not? {out.length} left out</summary>
      {out.length > 6 ? (
        <input type="search" class="why-not-filter" placeholder="Find a memory…" aria-label="Find a left-out memory" value={q}
          onInput={(e) => setQ((e.target as HTMLInputElement).value)} />
      ) : null}
      <ul>
        {shown.map((e) => (
          <li key={e.id} data-testid="why-not-item" data-id={e.id} data-stage={e.stage ?? ''}>
            <strong>{e.title}</strong> <span class="stage">{stageText(e)}</span>
            <div class="muted">{e.reason}</div>
            {e.contributions ? <FactorBars values={e.contributions} label={`Score of ${e.title}`} /> : null}
          </li>
        ))}
      </ul>
    </details>
  );
}

function PackagePreview(props: { pkg: PackageView | undefined; count: number; canInsert: boolean; onInsert: () => void; open: boolean; setOpen: (o: boolean) => void }) {
  const pkg = props.pkg ?? { text: '', tokens: 0, ids: [], budget: 0 };
  const over = pkg.tokens > pkg.budget;
  return (
    <details class="package" data-testid="package" open={props.open} data-loading={props.pkg ? undefined : ''}
      onToggle={(e) => props.setOpen((e.currentTarget as HTMLDetailsElement).open)}>
      <summary>
        Package: {pkg.ids.length} of {props.count} {props.count === 1 ? 'card' : 'cards'} ·{' '}
        <span data-testid="package-tokens">{pkg.tokens}</span> / {pkg.budget} tokens
      </summary>
      <meter data-testid="package-meter" min={0} max={pkg.budget} low={pkg.budget * 0.75} high={pkg.budget * 0.95} optimum={0}
        value={pkg.tokens} aria-label={`${pkg.tokens} of ${pkg.budget} tokens`} class={over ? 'over' : ''} />
      <pre class="package-text" data-testid="package-text" tabIndex={0} aria-label="Package as it will be inserted">{props.pkg ? pkg.text || 'Nothing selected.' : 'Building…'}</pre>
      <button class="primary" data-testid="package-insert" disabled={!props.canInsert || !pkg.text} onClick={props.onInsert}>
        Insert all
      </button>
    </details>
  );
}

export function SidePanel() {
  const tabId = useWatchedTab();
  const [search, setSearch] = useState('');
  const [toast, setToast] = useState<Toast>();
  const [view, setView] = useState<'context' | 'memory'>('context');
  const [captured, setCaptured] = useState<MemoryItem>();
  const [indexing, setIndexing] = useState<IndexingProgress>();
  const [memVersion, setMemVersion] = useState(0);
  const [explicit, setExplicit] = useState<string[] | null>(null);
  const [pkgOverride, setPkgOverride] = useState<PackageView>();
  const [noteFor, setNoteFor] = useState<string>();
  const [pkgOpen, setPkgOpen] = useState(false);
  const searchRef = useRef<HTMLInputElement>(null);
  const listRef = useRef<HTMLOListElement>(null);
  const toastTimer = useRef<ReturnType<typeof setTimeout>>(undefined);

  const onPush = (push: PanelPush) => {
    if (push.type === 'captured') {
      setCaptured(push.item);
      setMemVersion((v) => v + 1);
    }
    if (push.type === 'problem') show({ text: push.message, error: true });
    if (push.type === 'indexing') {
      setIndexing(push.progress.done >= push.progress.total ? undefined : push.progress);
      if (push.progress.done >= push.progress.total) setMemVersion((v) => v + 1);
    }
  };
  const state = usePanelState(tabId, search, onPush);
  const status = tabId === undefined ? 'watching' : (state?.status ?? 'watching');
  const cards = state?.cards ?? [];
  const cardKey = cards.map((c) => c.item.id).join(',');

  useEffect(() => {
    void callBackground('capture:recent', {}).then((r) => r.item && setCaptured(r.item), () => {});
  }, []);
  // Memory size changes (a save elsewhere, an import) refresh the memory view.
  const lastSize = useRef<number | undefined>(undefined);
  useEffect(() => {
    if (state && lastSize.current !== undefined && state.memorySize !== lastSize.current) setMemVersion((v) => v + 1);
    if (state) lastSize.current = state.memorySize;
  }, [state?.memorySize]);
  // A new ranking resets a hand-picked package selection.
  useEffect(() => {
    setExplicit(null);
    setPkgOverride(undefined);
  }, [cardKey, tabId]);
  useEffect(() => {
    if (!explicit || tabId === undefined) return;
    let live = true;
    void callBackground('package:build', { tabId, ids: explicit, search: search.trim() || undefined }).then((p) => live && setPkgOverride(p), () => {});
    return () => {
      live = false;
    };
  }, [explicit, tabId]);

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

  const show = (t: Toast) => {
    setToast(t);
    clearTimeout(toastTimer.current);
    toastTimer.current = setTimeout(() => setToast(undefined), t.undo ? 10_000 : 4_000);
  };
  const fail = (e: unknown) => {
    const msg = e instanceof Error ? e.message : String(e);
    show({ text: msg.includes('Receiving end') ? 'Reload the page so Backstory can reach it.' : msg, error: true });
  };

  const insert = async (id: string) => {
    if (tabId === undefined) return;
    try {
      const out = await callBackground('card:insert', { tabId, id });
      show(out.ok ? { text: 'Inserted.' } : { text: out.hint ?? 'Could not insert here.', error: true });
    } catch (e) {
      fail(e);
    }
  };
  const insertAll = async (ids: string[]) => {
    if (tabId === undefined) return;
    try {
      const out = await callBackground('package:insert', { tabId, ids, search: search.trim() || undefined });
      show(out.ok ? { text: `Inserted ${ids.length} ${ids.length === 1 ? 'card' : 'cards'}.` } : { text: out.hint ?? 'Could not insert here.', error: true });
    } catch (e) {
      fail(e);
    }
  };
  const removeItem = async (item: MemoryItem) => {
    try {
      const { removed } = await callBackground('memory:delete', { ids: [item.id] });
      setMemVersion((v) => v + 1);
      show({
        text: `Deleted “${item.title || item.text.slice(0, 40)}”.`,
        undo: async () => {
          await callBackground('memory:add', { items: removed.map(inputFromItem) });
          setMemVersion((v) => v + 1);
          show({ text: 'Restored.' });
        },
      });
    } catch (e) {
      fail(e);
    }
  };
  const update = async (id: string, patch: MemoryPatch) => {
    try {
      await callBackground('memory:update', { id, patch });
      setMemVersion((v) => v + 1);
    } catch (e) {
      fail(e);
    }
  };

  /** "Allow on <host>": the browser asks the user; it must be called straight from the click (a user gesture). */
  const allowSite = (host: string, pattern: string) => {
    browser.permissions.request({ origins: [pattern] }).then(
      (granted) => show(granted ? { text: `Allowed on ${host}. Backstory reads this site’s pages from now on.` } : { text: `Not allowed on ${host}; nothing was read.` }),
      fail,
    );
  };
  /** The quick edit's "Use it anyway": a capture held back as a possible secret joins suggestions. */
  const confirmHeld = async (item: MemoryItem) => {
    try {
      const { item: saved } = await callBackground('memory:update', { id: item.id, patch: { needsReview: '' } });
      setMemVersion((v) => v + 1);
      setCaptured((c) => (c?.id === saved.id ? saved : c));
      show({ text: 'It will be suggested from now on.' });
    } catch (e) {
      fail(e);
    }
  };

  const selectedIds = explicit ?? state?.package?.ids ?? cards.map((c) => c.item.id);
  const pkg = explicit ? pkgOverride : state?.package;
  const traceById = new Map((state?.trace ?? []).map((e) => [e.id, e]));
  const taskPeople = state?.task?.people ?? [];

  /** A copy or drag is a use of the card: learning reads it against the cards shown (off when learning is). */
  const feedback = (card: RankedCard, action: 'copy' | 'drag') => {
    if (tabId !== undefined) void callBackground('feedback:record', { tabId, id: card.item.id, action }).catch(() => {});
  };
  const actionsFor = (card: RankedCard) => ({
    insert: () => void insert(card.item.id),
    copy: () => void copyText(card.item.text).then((ok) => {
      show(ok ? { text: 'Copied.' } : { text: 'Could not copy.', error: true });
      if (ok) feedback(card, 'copy');
    }),
    dragged: () => feedback(card, 'drag'),
    pin: () => void update(card.item.id, { pinned: !card.item.pinned }),
    dismiss: () => {
      if (tabId === undefined) return;
      void callBackground('card:dismiss', { tabId, id: card.item.id }).then(
        () => show({ text: 'Hidden on this page. It stays in your memory.' }),
        fail,
      );
    },
    remove: () => void removeItem(card.item),
    edit: (patch: MemoryPatch) => update(card.item.id, patch),
    toggleSelect: () => {
      const set = new Set(selectedIds);
      if (set.has(card.item.id)) set.delete(card.item.id);
      else set.add(card.item.id);
      setExplicit(cards.map((c) => c.item.id).filter((id) => set.has(id)));
    },
  });

  /** Arrow keys move between cards, Home/End jump; Enter on a card inserts it (handled by the card). */
  const onListKey = (e: KeyboardEvent) => {
    if (!['ArrowDown', 'ArrowUp', 'Home', 'End'].includes(e.key)) return;
    const t = e.target as HTMLElement;
    if (/^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName)) return;
    const els = Array.from(listRef.current?.querySelectorAll<HTMLElement>('[data-testid="card"]') ?? []);
    if (!els.length) return;
    const cur = els.findIndex((el) => el.contains(t));
    const next = e.key === 'Home' ? 0 : e.key === 'End' ? els.length - 1 : Math.min(els.length - 1, Math.max(0, cur + (e.key === 'ArrowDown' ? 1 : -1)));
    e.preventDefault();
    els[next].focus();
  };
  const onSearchKey = (e: KeyboardEvent) => {
    if (e.key === 'Escape' && search) {
      e.preventDefault();
      setSearch('');
    }
    if (e.key === 'ArrowDown') {
      e.preventDefault();
      listRef.current?.querySelector<HTMLElement>('[data-testid="card"]')?.focus();
    }
  };

  const site = state?.task?.site;
  const modelLoading = state?.model.state === 'loading';

  return (
    <main class="panel">
      <header class="panel-head">
        <div class="title-row">
          <h1><img class="logo" src="/icons/32.png" alt="" width={20} height={20} />Backstory</h1>
          <div class="tabs" role="tablist" aria-label="Views">
            <button role="tab" data-testid="tab-context" aria-selected={view === 'context'} onClick={() => setView('context')}>Context</button>
            <button role="tab" data-testid="tab-memory" aria-selected={view === 'memory'} onClick={() => setView('memory')}>Memory</button>
          </div>
          <button class="icon" data-testid="open-options" title="Options" aria-label="Options" onClick={() => void browser.runtime.openOptionsPage()}>⚙</button>
        </div>
        <input
          ref={searchRef}
          data-testid="search"
          type="search"
          placeholder="Ask your memory…  ( / )"
          aria-label="Search your memory"
          value={search}
          onInput={(e) => setSearch((e.target as HTMLInputElement).value)}
          onKeyDown={onSearchKey}
        />
        <p data-testid="status" data-state={status} class={`status status-${status}`} role="status" aria-live="polite">
          <span class="dot" aria-hidden="true" />
          {statusText(state, tabId)}
          {site && (status === 'found' || status === 'empty') && !state?.search ? <span class="muted"> · {site}</span> : null}
        </p>
        {modelLoading ? (
          <div class="progress-note" data-testid="model-status" data-state="loading">
            <span>
              Loading the on-device model{state?.model.progress !== undefined ? ` (${Math.round(state.model.progress * 100)}%)` : ''}; word matching
              works meanwhile.
            </span>
            {state?.model.progress !== undefined ? (
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
        <ImportStatusLine indexing={indexing ?? state?.indexing} />
      </header>

      {captured ? (
        <div class="popover" role="dialog" aria-label="Saved to memory" data-testid="quick-edit" data-id={captured.id}>
          <div class="popover-head">
            <strong>Saved to memory</strong>
            <button class="icon" data-testid="quick-edit-dismiss" aria-label="Dismiss" onClick={() => {
              void callBackground('capture:dismiss', { id: captured.id });
              setCaptured(undefined);
            }}>×</button>
          </div>
          <p class="muted snippet-small">{captured.text.slice(0, 140)}{captured.text.length > 140 ? '…' : ''}</p>
          {captured.needsReview ? (
            <p class="held" role="note" data-testid="quick-edit-held">
              Held back from suggestions: {captured.needsReview}.{' '}
              <button data-testid="quick-edit-confirm" onClick={() => void confirmHeld(captured)}>Use it anyway</button>{' '}
              <button class="danger" data-testid="quick-edit-delete" onClick={() => {
                void callBackground('capture:dismiss', { id: captured.id });
                setCaptured(undefined);
                void removeItem(captured);
              }}>Delete it</button>
            </p>
          ) : null}
          <DuplicateOffer item={captured} onError={fail} onMerged={(kept) => {
            void callBackground('capture:dismiss', { id: captured.id });
            setCaptured(undefined);
            setMemVersion((v) => v + 1);
            show({ text: `Merged into “${kept.title}”.` });
          }} />
          <ItemEditor
            key={captured.id}
            saveLabel="Save"
            cancelLabel="Done"
            initial={{ title: captured.title, text: captured.text, kind: captured.kind, people: captured.people, tags: captured.tags, sites: captured.sites, scope: captured.scope }}
            onCancel={() => {
              void callBackground('capture:dismiss', { id: captured.id });
              setCaptured(undefined);
            }}
            onSave={async ({ title, kind, people, tags, sites, scope }) => {
              await update(captured.id, { title, kind, people, tags, sites, ...(scope ? { scope } : {}) });
              void callBackground('capture:dismiss', { id: captured.id });
              setCaptured(undefined);
              show({ text: 'Saved.' });
            }}
          />
        </div>
      ) : null}

      {view === 'memory' ? (
        <MemoryView version={memVersion} onDelete={(it) => void removeItem(it)} onError={(m) => show({ text: m, error: true })} />
      ) : (
        <section aria-label="Context for this task">
          {state?.access ? (
            <div class="empty" data-testid="no-access" data-state={state.access.state}>
              <p><strong>Backstory can’t read this page.</strong></p>
              {state.access.state === 'ask' ? (
                <>
                  <p class="muted">It reads only the sites you allow, so nothing on {state.access.host} has been read. Search still works.</p>
                  <button class="primary" data-testid="allow-site" data-pattern={state.access.pattern}
                    onClick={() => state.access?.state === 'ask' && allowSite(state.access.host, state.access.pattern)}>
                    Allow on {state.access.host}
                  </button>
                </>
              ) : (
                <p class="muted">{state.access.reason} Search still works.</p>
              )}
            </div>
          ) : null}
          {state?.paused ? (
            <div class="empty" data-testid="paused">
              <p>Backstory is switched off on {state.paused.site}: it does not read this page. Search still works.</p>
              <button data-testid="site-toggle" onClick={() => void setSitePaused(state.paused!.site, false)}>Turn on for {state.paused.site}</button>
            </div>
          ) : null}
          {noteFor ? (
            // Kept apart from the offers it came from: a ranking pushed while the note is written (the page's task
            // read again without that recipient, say) must not unmount the form and lose what was typed.
            <div class="new-contact" key={`note-${noteFor}`} data-testid="new-contact-form">
              <p><strong>A note about {firstName(noteFor)}</strong></p>
              <ItemEditor
                showText
                autoFocus="text"
                saveLabel="Save note"
                initial={{ title: `About ${firstName(noteFor)}`, text: '', kind: 'evidence', people: [noteFor], tags: ['person'], sites: [] }}
                onCancel={() => setNoteFor(undefined)}
                onSave={async (v) => {
                  try {
                    await callBackground('memory:add', { items: [v] });
                    setNoteFor(undefined);
                    show({ text: `Saved a note about ${firstName(noteFor)}.` });
                  } catch (e) {
                    fail(e);
                  }
                }}
              />
            </div>
          ) : null}
          {(state?.unknownPeople ?? []).filter((p) => p !== noteFor).map((p) => (
            <div class="new-contact" key={p} data-testid="new-contact" data-person={p}>
              <span>No notes about <strong>{firstName(p)}</strong> yet.</span>
              <button data-testid="new-contact-add" onClick={() => setNoteFor(p)}>Save a note about {firstName(p)}</button>
            </div>
          ))}
          {state?.memorySize === 0 && !cards.length ? (
            // A first run (or a cleared memory) never opens on a blank panel: what Backstory does and how to fill it.
            status === 'empty' ? <div data-testid="empty-state"><Welcome onError={(m) => show({ text: m, error: true })} /></div>
              : <Welcome onError={(m) => show({ text: m, error: true })} />
          ) : status === 'empty' ? (
            <div data-testid="empty-state" class="empty">
              <p><strong>Nothing in your memory is relevant to this yet.</strong></p>
              <p class="muted">Try different words in the search box above, or save what you know: select text on any page and choose “Remember this selection”.</p>
            </div>
          ) : null}
          {cards.length ? (
            <PackagePreview pkg={pkg} count={cards.length} canInsert={tabId !== undefined} onInsert={() => void insertAll(selectedIds)}
              open={pkgOpen} setOpen={setPkgOpen} />
          ) : null}
          <ol class="cards" aria-label="Ranked context, best first" ref={listRef} onKeyDown={onListKey}>
            {cards.map((card, i) => (
              <Card
                key={card.item.id}
                card={card}
                rank={i + 1}
                trace={traceById.get(card.item.id)}
                taskPeople={taskPeople}
                selected={selectedIds.includes(card.item.id)}
                canAct={tabId !== undefined}
                actions={actionsFor(card)}
              />
            ))}
          </ol>
          {state?.trace.length ? <WhyNot trace={state.trace} /> : null}
        </section>
      )}

      <footer class="muted foot">
        <span>{state ? `${state.memorySize} ${state.memorySize === 1 ? 'memory' : 'memories'}` : ''}</span>
        {site && !state?.paused ? (
          <button class="link" data-testid="site-toggle" onClick={() => void setSitePaused(site, true).then(() => show({ text: `Backstory is now off on ${site}.` }))}>
            Turn off on {site}
          </button>
        ) : null}
      </footer>

      <div class="toast-slot" aria-live="polite">
        {toast ? (
          <div class={`toast${toast.error ? ' toast-error' : ''}`} role={toast.error ? 'alert' : 'status'} data-testid="toast">
            <span>{toast.text}</span>
            {toast.undo ? (
              <button data-testid="undo" onClick={() => {
                const undo = toast.undo!;
                setToast(undefined);
                void undo().catch(fail);
              }}>Undo</button>
            ) : null}
            <button class="icon" aria-label="Close" onClick={() => setToast(undefined)}>×</button>
          </div>
        ) : null}
      </div>
    </main>
  );
}
