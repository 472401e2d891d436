import type { MemoryFacets, MemoryFilter } from '../../memory-browse/memory-query';
import type { MemoryKind } from '../../memory/types';
import { formatName, importLabel } from './source-labels';

type ListKey = 'site' | 'person' | 'tag' | 'format' | 'importId';

/** The memory browser's filters: words, kind, site, person, tag, kind of file and import, and the thread shown. */
export function MemoryFilters(props: {
  filter: MemoryFilter;
  setFilter: (f: MemoryFilter) => void;
  facets: MemoryFacets | undefined;
  threadTitle?: string;
}) {
  const { filter, setFilter } = props;
  const facets = props.facets ?? { sites: [], people: [], tags: [], formats: [], imports: [] };
  const select = (key: ListKey, testid: string, label: string, options: { value: string; label: string }[]) => (
    <label class="filter">
      <span class="sr-only">{label}</span>
      <select data-testid={`memory-filter-${testid}`} value={filter[key] ?? ''} aria-label={`Filter by ${label}`}
        onChange={(e) => setFilter({ ...filter, [key]: (e.target as HTMLSelectElement).value || undefined })}>
        <option value="">Any {label}</option>
        {options.map((o) => <option key={o.value} value={o.value}>{o.label}</option>)}
      </select>
    </label>
  );
  const plain = (xs: string[]) => xs.map((x) => ({ value: x, label: x }));
  return (
    <div class="filters">
      <input type="search" data-testid="memory-filter-text" placeholder="Filter memory…" aria-label="Filter memory by words" value={filter.text ?? ''}
        onInput={(e) => setFilter({ ...filter, text: (e.target as HTMLInputElement).value })} />
      <label class="filter">
        <span class="sr-only">kind</span>
        <select data-testid="memory-filter-kind" value={filter.kind ?? ''} aria-label="Filter by kind"
          onChange={(e) => setFilter({ ...filter, kind: ((e.target as HTMLSelectElement).value || undefined) as MemoryKind | undefined })}>
          <option value="">Any kind</option>
          <option value="evidence">Evidence</option>
          <option value="instruction">Instruction</option>
        </select>
      </label>
      {select('site', 'site', 'site', plain(facets.sites))}
      {select('person', 'person', 'person', plain(facets.people))}
      {select('tag', 'tag', 'tag', plain(facets.tags))}
      {facets.formats.length ? select('format', 'format', 'source', facets.formats.map((f) => ({ value: f, label: formatName(f) }))) : null}
      {facets.imports.length ? select('importId', 'import', 'import', facets.imports.map((i) => ({ value: i.id, label: importLabel(i) }))) : null}
      {filter.threadId ? (
        <span class="chip" data-testid="memory-filter-thread" data-thread={filter.threadId}>
          Thread: {props.threadTitle || filter.threadId}
          <button aria-label="Show all threads" onClick={() => setFilter({ ...filter, threadId: undefined })}>×</button>
        </span>
      ) : null}
    </div>
  );
}
