import type { MemoryItem, MemoryPatch } from '../../memory/types';
import { Snippet } from '../card';
import { age, safeUrl, sourceLine } from '../format';
import { ItemEditor } from '../item-editor';
import { displayTitle } from '../../core/items';

/** One memory in the browser: kind, title, a two-line snippet, where it came from, and what can be done with it. */
export function MemoryRow(props: {
  item: MemoryItem;
  words: string[];
  editing: boolean;
  setEditing: (on: boolean) => void;
  update: (patch: MemoryPatch) => Promise<void>;
  onDelete: () => void;
  onThread?: () => void;
}) {
  const { item: it } = props;
  const url = safeUrl(it.source.url);
  return (
    <article class="memory-item" data-testid="memory-item" data-id={it.id} data-kind={it.kind}>
      <div class="card-top">
        <span class={`badge badge-${it.kind}`}>{it.kind}</span>
        <strong class="card-title">{displayTitle(it)}</strong>
        {it.pinned ? <span class="pin" title="Always included">●</span> : null}
        {it.excluded ? <span class="tag" title="Never included">never</span> : null}
      </div>
      {it.needsReview ? (
        <p class="held" role="note" data-testid="memory-held">
          Held back from suggestions: {it.needsReview}.{' '}
          <button data-testid="memory-confirm" onClick={() => void props.update({ needsReview: '' })}>Use it anyway</button>
        </p>
      ) : null}
      {props.editing ? (
        <ItemEditor
          showText
          itemId={it.id}
          initial={{ title: it.title, text: it.text, kind: it.kind, people: it.people, tags: it.tags, sites: it.sites, scope: it.scope }}
          onCancel={() => props.setEditing(false)}
          onSave={(v) => props.update(v)}
        />
      ) : it.needsReview ? null : (
        <Snippet text={it.text} matched={props.words} max={200} />
      )}
      <div class="meta muted">
        {[sourceLine(it), it.people.join(', '), it.tags.map((t) => `#${t}`).join(' '), age(it.createdAt)].filter(Boolean).join(' · ')}
      </div>
      <div class="actions">
        <button data-testid="memory-edit" onClick={() => props.setEditing(!props.editing)} aria-pressed={props.editing}>Edit</button>
        <button data-testid="memory-pin" aria-pressed={it.pinned} onClick={() => void props.update({ pinned: !it.pinned })}>
          {it.pinned ? 'Unpin' : 'Pin'}
        </button>
        {url ? <a class="button" href={url} target="_blank" rel="noopener noreferrer">Source</a> : null}
        {props.onThread ? (
          <button data-testid="memory-thread" onClick={props.onThread} title="Show the whole conversation or thread">Thread</button>
        ) : null}
        <button data-testid="memory-delete" class="danger" onClick={props.onDelete}>Delete</button>
      </div>
    </article>
  );
}
