import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { MemoryKind, MemoryPatch, MemoryScope } from '../memory/types';
import { guessScope } from '../memory/scope-guess';
import { ScopeField } from './scope-field';
import { splitList } from './format';
import { SyncVersions } from './sync-versions';

export interface EditorValues {
  title: string;
  text: string;
  kind: MemoryKind;
  people: string[];
  tags: string[];
  sites: string[];
  /** The item's scope (instructions); reported back only when the user changes it. */
  scope?: MemoryScope;
}

let seq = 0;

/**
 * The one form for a memory's fields: editing a card, the memory view, the quick edit after "Remember this", and a
 * new note. Enter in a one-line field saves, Escape cancels. Text fields are plain inputs; nothing is rendered as HTML.
 */
export function ItemEditor(props: {
  initial: EditorValues;
  showText?: boolean;
  saveLabel?: string;
  onSave: (patch: MemoryPatch & EditorValues) => void | Promise<void>;
  onCancel: () => void;
  cancelLabel?: string;
  autoFocus?: 'title' | 'text';
  /** The memory edited, when it is stored: its other versions from sync, if any, show beside the text. */
  itemId?: string;
}) {
  const [v, setV] = useState(props.initial);
  const [people, setPeople] = useState(props.initial.people.join(', '));
  const [tags, setTags] = useState(props.initial.tags.join(', '));
  const [sites, setSites] = useState(props.initial.sites.join(', '));
  const [busy, setBusy] = useState(false);
  const id = useRef(`ed${++seq}`).current;
  const first = useRef<HTMLInputElement & HTMLTextAreaElement>(null);
  // Focus the first field as the editor mounts, not after paint: a late focus (useEffect waits for a frame, and a
  // panel in a background tab may get none for a while) would pull the caret out of a field the user already
  // clicked into, and what they typed next would land in the title.
  useLayoutEffect(() => {
    if (!first.current?.form?.contains(document.activeElement)) first.current?.focus();
  }, []);

  const save = async (e?: Event) => {
    e?.preventDefault();
    if (props.showText && !v.text.trim()) return;
    setBusy(true);
    try {
      await props.onSave({ ...v, title: v.title.trim(), people: splitList(people), tags: splitList(tags), sites: splitList(sites) });
    } finally {
      setBusy(false);
    }
  };
  const onKey = (e: KeyboardEvent) => {
    if (e.key === 'Escape') {
      e.stopPropagation();
      props.onCancel();
    }
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) void save(e);
  };
  const field = (name: string, label: string, value: string, set: (s: string) => void, hint?: string, ref?: typeof first) => (
    <div class="field">
      <label for={`${id}-${name}`}>{label}</label>
      <input id={`${id}-${name}`} ref={ref} data-testid={`edit-${name}`} value={value} placeholder={hint}
        onInput={(e) => set((e.target as HTMLInputElement).value)} />
    </div>
  );
  return (
    <form class="editor" onSubmit={save} onKeyDown={onKey} data-testid="editor">
      {field('title', 'Title', v.title, (title) => setV({ ...v, title }), undefined, props.autoFocus !== 'text' ? first : undefined)}
      {props.showText ? (
        <div class="field">
          <label for={`${id}-text`}>Text</label>
          <textarea id={`${id}-text`} ref={props.autoFocus === 'text' ? first : undefined} data-testid="edit-text" rows={4} value={v.text}
            onInput={(e) => setV({ ...v, text: (e.target as HTMLTextAreaElement).value })} />
        </div>
      ) : null}
      {props.showText && props.itemId ? <SyncVersions id={props.itemId} onUse={(text) => setV({ ...v, text })} /> : null}
      {v.kind === 'instruction' ? (
        <ScopeField id={id} initial={props.initial.scope ?? guessScope({ text: v.text, title: v.title })} onChange={(scope) => setV({ ...v, scope })} />
      ) : null}
      <fieldset class="field kind-field">
        <legend>Kind</legend>
        {(['evidence', 'instruction'] as const).map((k) => (
          <label key={k} class="radio">
            <input type="radio" name={`${id}-kind`} data-testid={`edit-kind-${k}`} checked={v.kind === k} onChange={() => setV({ ...v, kind: k })} />
            {k === 'evidence' ? 'Evidence (facts)' : 'Instruction (how to write)'}
          </label>
        ))}
      </fieldset>
      {field('people', 'People', people, setPeople, 'names or emails, comma separated')}
      {field('tags', 'Tags', tags, setTags, 'comma separated')}
      {field('sites', 'Sites', sites, setSites, 'only on these sites, e.g. mail.google.com')}
      <div class="actions">
        <button type="submit" class="primary" data-testid="edit-save" disabled={busy}>{props.saveLabel ?? 'Save'}</button>
        <button type="button" data-testid="edit-cancel" onClick={props.onCancel}>{props.cancelLabel ?? 'Cancel'}</button>
      </div>
    </form>
  );
}
