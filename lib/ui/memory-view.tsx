import { useEffect, useMemo, useState } from 'preact/hooks';
import type { MemoryItem, MemoryKind, MemoryPatch } from '../memory/types';
import { callBackground } from '../messaging/rpc';
import { Snippet } from './card';
import { age, hostOf, safeUrl, sourceLine } from './format';
import { ItemEditor } from './item-editor';

export interface MemoryFilter {
  text: string;
  kind: '' | MemoryKind;
  site: string;
  person: string;
  tag: string;
}

const EMPTY: MemoryFilter = { text: '', kind: '', site: '', person: '', tag: '' };

function sitesOf(it: MemoryItem): string[] {
  const h = hostOf(it.source.url);
  return Array.from(new Set([...it.sites, ...(h ? [h] : [])]));
}

export function matchesFilter(it: MemoryItem, f: MemoryFilter): boolean {
  if (f.kind && it.kind !== f.kind) return false;
  if (f.site && !sitesOf(it).includes(f.site)) return false;
  if (f.person && !it.people.includes(f.person)) return false;
  if (f.tag && !it.tags.includes(f.tag)) return false;
  const q = f.text.trim().toLowerCase();
  if (q) {
    const hay = `${it.title}\n${it.text}\n${it.tags.join(' ')}\n${it.people.join(' ')}\n${it.source.title ?? ''}`.toLowerCase();
    if (!q.split(/\s+/).every((w) => hay.includes(w))) return false;
  }
  return true;
}

const uniqSorted = (xs: string[]) => Array.from(new Set(xs)).sort((a, b) => a.localeCompare(b));

/** Browse, filter, edit and delete memory. `version` changes whenever the panel learns memory changed. */
export function MemoryView(props: { version: number; onDelete: (it: MemoryItem) => void; onError: (msg: string) => void }) {
  const [items, setItems] = useState<MemoryItem[]>();
  const [filter, setFilter] = useState<MemoryFilter>(EMPTY);
  const [editing, setEditing] = useState<string>();
  const [adding, setAdding] = useState(false);

  const reload = () => void callBackground('memory:list', {}).then((r) => setItems(r.items), (e: Error) => props.onError(e.message));
  useEffect(reload, [props.version]);

  const facets = useMemo(() => {
    const all = items ?? [];
    return {
      sites: uniqSorted(all.flatMap(sitesOf)),
      people: uniqSorted(all.flatMap((i) => i.people)),
      tags: uniqSorted(all.flatMap((i) => i.tags)),
    };
  }, [items]);
  const shown = (items ?? []).filter((it) => matchesFilter(it, filter));

  const update = async (id: string, patch: MemoryPatch) => {
    try {
      await callBackground('memory:update', { id, patch });
      setEditing(undefined);
      reload();
    } catch (e) {
      props.onError((e as Error).message);
    }
  };

  const select = (key: 'site' | 'person' | 'tag', label: string, options: string[]) => (
    <label class="filter">
      <span class="sr-only">{label}</span>
      <select data-testid={`memory-filter-${key}`} value={filter[key]} aria-label={`Filter by ${label}`}
        onChange={(e) => setFilter({ ...filter, [key]: (e.target as HTMLSelectElement).value })}>
        <option value="">Any {label}</option>
        {options.map((o) => <option key={o} value={o}>{o}</option>)}
      </select>
    </label>
  );

  return (
    <section class="memory" data-testid="memory-view" aria-label="Your memory">
      <div class="filters">
        <input type="search" data-testid="memory-filter-text" placeholder="Filter memory…" aria-label="Filter memory by words" value={filter.text}
          onInput={(e) => setFilter({ ...filter, text: (e.target as HTMLInputElement).value })} />
        <label class="filter">
          <span class="sr-only">kind</span>
          <select data-testid="memory-filter-kind" value={filter.kind} aria-label="Filter by kind"
            onChange={(e) => setFilter({ ...filter, kind: (e.target as HTMLSelectElement).value as MemoryFilter['kind'] })}>
            <option value="">Any kind</option>
            <option value="evidence">Evidence</option>
            <option value="instruction">Instruction</option>
          </select>
        </label>
        {select('site', 'site', facets.sites)}
        {select('person', 'person', facets.people)}
        {select('tag', 'tag', facets.tags)}
      </div>
      <div class="memory-bar">
        <span class="muted" data-testid="memory-count" role="status">
          {items ? `${shown.length} of ${items.length} ${items.length === 1 ? 'memory' : 'memories'}` : 'Loading…'}
        </span>
        <button data-testid="memory-new" onClick={() => setAdding(!adding)} aria-expanded={adding}>New note</button>
      </div>
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
      <ul class="memory-list">
        {shown.map((it) => {
          const url = safeUrl(it.source.url);
          return (
            <li key={it.id} class="memory-item" data-testid="memory-item" data-id={it.id} data-kind={it.kind}>
              <div class="card-top">
                <span class={`badge badge-${it.kind}`}>{it.kind}</span>
                <strong class="card-title">{it.title || it.text.slice(0, 60)}</strong>
                {it.pinned ? <span class="pin" title="Always included">●</span> : null}
                {it.excluded ? <span class="tag" title="Never included">never</span> : null}
              </div>
              {it.needsReview ? (
                <p class="held" role="note" data-testid="memory-held">
                  Held back from suggestions: {it.needsReview}.{' '}
                  <button data-testid="memory-confirm" onClick={() => void update(it.id, { needsReview: '' })}>Use it anyway</button>
                </p>
              ) : null}
              {editing === it.id ? (
                <ItemEditor
                  showText
                  initial={{ title: it.title, text: it.text, kind: it.kind, people: it.people, tags: it.tags, sites: it.sites, scope: it.scope }}
                  onCancel={() => setEditing(undefined)}
                  onSave={(v) => update(it.id, v)}
                />
              ) : (
                <Snippet text={it.text} matched={filter.text.split(/\s+/).filter(Boolean)} max={200} />
              )}
              <div class="meta muted">
                {[sourceLine(it), it.people.join(', '), it.tags.map((t) => `#${t}`).join(' '), age(it.createdAt)].filter(Boolean).join(' · ')}
              </div>
              <div class="actions">
                <button data-testid="memory-edit" onClick={() => setEditing(editing === it.id ? undefined : it.id)}>Edit</button>
                <button data-testid="memory-pin" aria-pressed={it.pinned} onClick={() => void update(it.id, { pinned: !it.pinned })}>
                  {it.pinned ? 'Unpin' : 'Pin'}
                </button>
                {url ? <a class="button" href={url} target="_blank" rel="noopener noreferrer">Source</a> : null}
                <button data-testid="memory-delete" class="danger" onClick={() => {
                  setItems((xs) => xs?.filter((x) => x.id !== it.id));
                  props.onDelete(it);
                }}>Delete</button>
              </div>
            </li>
          );
        })}
      </ul>
      {items && !shown.length ? <p class="muted" data-testid="memory-none">{items.length ? 'Nothing matches these filters.' : 'Your memory is empty. Select text on a page and choose “Remember this selection”, or import notes in the options.'}</p> : null}
    </section>
  );
}
