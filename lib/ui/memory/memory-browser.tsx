import { useEffect, useRef, useState } from 'preact/hooks';
import type { MemoryFacets, MemoryFilter, MemoryPage } from '../../memory-browse/memory-query';
import type { MemoryItem, MemoryPatch } from '../../memory/types';
import { callBackground } from '../../messaging/rpc';
import { ItemEditor } from '../item-editor';
import type { Toast } from '../panel/toast';
import { MemoryFilters } from './memory-filters';
import { MemoryRow } from './memory-row';
import { importLabel } from './source-labels';
import { VirtualList } from './virtual-list';

/** Items asked of the worker at a time. */
const PAGE = 50;
/** Height of one row in the list, px (theme.css `.memory-item` is drawn to fit it). */
export const ROW_HEIGHT = 140;

type Summary = Pick<MemoryPage, 'total' | 'size' | 'thread'>;

/**
 * Browse, filter, edit and delete memory, quick at 100k items: the worker answers one filtered page at a time
 * (`memory:query`) and only the rows on screen are drawn. `version` changes whenever the panel learns memory changed.
 */
export function MemoryBrowser(props: { version: number; onDelete: (it: MemoryItem) => void; show: (t: Toast) => void; onError: (msg: string) => void }) {
  const [filter, setFilter] = useState<MemoryFilter>({});
  const [summary, setSummary] = useState<Summary>();
  const [facets, setFacets] = useState<MemoryFacets>();
  const [editing, setEditing] = useState<string>();
  const [adding, setAdding] = useState(false);
  const [confirmImport, setConfirmImport] = useState(false);
  const [reloads, setReloads] = useState(0);
  const [, redraw] = useState(0);
  const pages = useRef(new Map<number, MemoryItem[]>());
  const asking = useRef(new Set<number>());
  /** Answers to an older filter or memory are dropped. */
  const gen = useRef(0);
  const range = useRef<[number, number]>([0, 0]);
  const facetsAt = useRef<string>('');
  const filterKey = JSON.stringify(filter);
  const lastFilterKey = useRef(filterKey);

  const ask = (page: number, f: MemoryFilter, g: number, withFacets = false) => {
    asking.current.add(page);
    callBackground('memory:query', { filter: f, offset: page * PAGE, limit: PAGE, facets: withFacets }).then(
      (r) => {
        if (g !== gen.current) return;
        asking.current.delete(page);
        pages.current.set(page, r.items);
        setSummary({ total: r.total, size: r.size, thread: r.thread });
        if (r.facets) setFacets(r.facets);
        redraw((x) => x + 1);
      },
      (e: Error) => {
        if (g !== gen.current) return;
        asking.current.delete(page);
        props.onError(e.message);
      },
    );
  };

  useEffect(() => {
    const g = ++gen.current;
    const newFilter = lastFilterKey.current !== filterKey;
    lastFilterKey.current = filterKey;
    // A new filter starts at the top; memory that changed under the same filter keeps its place and is read again.
    const [first, last] = newFilter ? [0, 0] : range.current;
    const keep = new Map<number, MemoryItem[]>();
    if (!newFilter) for (const [p, items] of pages.current) if (p >= Math.floor(first / PAGE) && p <= Math.floor(last / PAGE)) keep.set(p, items);
    pages.current = keep;
    asking.current = new Set();
    const memKey = `${props.version}:${reloads}`;
    for (let p = Math.floor(first / PAGE); p <= Math.floor(last / PAGE); p++) ask(p, filter, g, p === Math.floor(first / PAGE) && facetsAt.current !== memKey);
    facetsAt.current = memKey;
  }, [filterKey, props.version, reloads]);

  const onRange = (first: number, last: number) => {
    range.current = [first, last];
    for (let p = Math.floor(first / PAGE); p <= Math.floor(last / PAGE); p++) if (!pages.current.has(p) && !asking.current.has(p)) ask(p, filter, gen.current);
  };
  const itemAt = (i: number) => pages.current.get(Math.floor(i / PAGE))?.[i % PAGE];
  const reload = () => setReloads((n) => n + 1);

  const update = async (id: string, patch: MemoryPatch) => {
    try {
      await callBackground('memory:update', { id, patch });
      setEditing(undefined);
      reload();
    } catch (e) {
      props.onError((e as Error).message);
    }
  };

  let editingIndex: number | undefined;
  if (editing) for (const [p, items] of pages.current) {
    const k = items.findIndex((it) => it.id === editing);
    if (k >= 0) editingIndex = p * PAGE + k;
  }

  const chosenImport = filter.importId ? facets?.imports.find((i) => i.id === filter.importId) : undefined;
  const deleteImport = async (importId: string, label: string) => {
    setConfirmImport(false);
    try {
      const { removed } = await callBackground('memory:removeImport', { importId });
      setFilter({ ...filter, importId: undefined });
      reload();
      props.show({
        text: `Deleted ${removed.toLocaleString()} ${removed === 1 ? 'memory' : 'memories'} (${label}).`,
        undo: async () => {
          const { restored } = await callBackground('memory:restoreImport', { importId });
          reload();
          props.show({ text: `Restored ${restored.toLocaleString()} ${restored === 1 ? 'memory' : 'memories'}; they are found by their words now and by meaning once indexed.` });
        },
      });
    } catch (e) {
      props.onError((e as Error).message);
    }
  };

  const words = (filter.text ?? '').split(/\s+/).filter(Boolean);
  const total = summary?.total ?? 0;
  return (
    <section class="memory" data-testid="memory-view" aria-label="Your memory">
      <MemoryFilters filter={filter} setFilter={setFilter} facets={facets} threadTitle={summary?.thread?.title} />
      <div class="memory-bar">
        <span class="muted" data-testid="memory-count" role="status">
          {summary ? `${total.toLocaleString()} of ${summary.size.toLocaleString()} ${summary.size === 1 ? 'memory' : 'memories'}` : 'Loading…'}
        </span>
        {chosenImport ? (
          <button class="danger" data-testid="memory-delete-import" onClick={() => setConfirmImport(true)}>Delete this import…</button>
        ) : null}
        <button data-testid="memory-new" onClick={() => setAdding(!adding)} aria-expanded={adding}>New note</button>
      </div>
      {chosenImport && confirmImport ? (
        <div class="popover" role="alertdialog" aria-label="Confirm deleting an import" data-testid="memory-delete-import-box">
          <p><strong>Delete all {chosenImport.count.toLocaleString()} memories of this import?</strong> {importLabel(chosenImport)}. You can undo it for a
            couple of minutes; after that, import the file again to bring them back.</p>
          <button class="danger primary" data-testid="memory-delete-import-confirm" onClick={() => void deleteImport(chosenImport.id, importLabel(chosenImport))}>
            Delete {chosenImport.count.toLocaleString()} memories
          </button>{' '}
          <button data-testid="memory-delete-import-cancel" onClick={() => setConfirmImport(false)}>Cancel</button>
        </div>
      ) : null}
      {adding ? (
        <ItemEditor
          showText
          autoFocus="text"
          saveLabel="Save note"
          initial={{ title: '', text: '', kind: 'evidence', people: [], tags: [], sites: [] }}
          onCancel={() => setAdding(false)}
          onSave={async (v) => {
            try {
              await callBackground('memory:add', { items: [v] });
              setAdding(false);
              reload();
            } catch (e) {
              props.onError((e as Error).message);
            }
          }}
        />
      ) : null}
      <VirtualList
        count={total}
        rowHeight={ROW_HEIGHT}
        expanded={editingIndex}
        height="max(280px, calc(100vh - 260px))"
        label="Memories, newest first"
        resetKey={filterKey}
        onRange={onRange}
        row={(i) => {
          const it = itemAt(i);
          if (!it) return <div class="memory-item memory-loading" aria-busy="true"><span class="muted">Loading…</span></div>;
          return (
            <MemoryRow
              item={it}
              words={words}
              editing={editing === it.id}
              setEditing={(on) => setEditing(on ? it.id : undefined)}
              update={(patch) => update(it.id, patch)}
              onDelete={() => props.onDelete(it)}
              onThread={it.thread && !filter.threadId ? () => setFilter({ ...filter, threadId: it.thread!.id, text: '' }) : undefined}
            />
          );
        }}
      />
      {summary && !total ? (
        <p class="muted" data-testid="memory-none">
          {summary.size ? 'Nothing matches these filters.' : 'Your memory is empty. Select text on a page and choose “Remember this selection”, or import notes in the options.'}
        </p>
      ) : null}
    </section>
  );
}
