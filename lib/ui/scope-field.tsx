import { useState } from 'preact/hooks';
import { DESTINATION_NAMES, DESTINATIONS } from '../core/destinations';
import type { MemoryItem, MemoryScope, ScopeKind } from '../memory/types';
import { describeScope, scopeOf } from '../rank/scope';
import { splitList } from './format';

const ORIGIN: Record<MemoryScope['set'], string> = {
  guess: 'guessed from its words',
  user: 'set by you',
  source: 'limited to where it came from',
};

/** Where an instruction applies, on its card: "When the task mentions “code” · guessed from its words". */
export function ScopeChip({ item }: { item: MemoryItem }) {
  if (item.kind !== 'instruction') return null;
  const scope = scopeOf(item);
  return (
    <span class={`scope scope-${scope.set}`} data-testid="card-scope" data-scope={scope.kind} title={`Applies: ${describeScope(scope)} (${ORIGIN[scope.set]})`}>
      {describeScope(scope)}
      {scope.set === 'source' ? <span class="muted"> · {ORIGIN.source}</span> : null}
    </span>
  );
}

const KINDS: [ScopeKind, string][] = [
  ['everywhere', 'Everywhere'],
  ['destination', 'In a kind of destination'],
  ['sites', 'On sites'],
  ['people', 'When writing to or about people'],
  ['subject', 'When the task is about a subject'],
];
const HINT: Partial<Record<ScopeKind, string>> = {
  sites: 'hostnames, e.g. mail.google.com',
  people: 'names or emails, comma separated',
  subject: 'what the task is about, e.g. vendor contract renewals',
};

/**
 * The scope of an instruction in an editor. It reports a scope only once the user changes it (set: 'user'); until
 * then the item keeps the scope it was given when saved.
 */
export function ScopeField(props: { id: string; initial: MemoryScope; onChange: (s: MemoryScope) => void }) {
  const [scope, setScope] = useState(props.initial);
  const [text, setText] = useState(props.initial.kind === 'destination' ? '' : props.initial.values.join(', '));
  const change = (next: Omit<MemoryScope, 'set'>) => {
    const s: MemoryScope = { ...next, set: 'user' };
    setScope(s);
    // An incomplete choice (a kind with nothing named yet) is not reported: saving keeps the earlier scope.
    if (s.kind === 'everywhere' || s.values.length) props.onChange(s);
  };
  return (
    <fieldset class="field scope-field" data-testid="edit-scope">
      <legend>Applies</legend>
      <select id={`${props.id}-scope`} data-testid="edit-scope-kind" aria-label="Where this instruction applies" value={scope.kind}
        onChange={(e) => {
          const kind = (e.target as HTMLSelectElement).value as ScopeKind;
          change({ kind, values: kind === 'destination' ? ['chat'] : kind === 'everywhere' ? [] : splitList(text) });
        }}>
        {KINDS.map(([k, label]) => <option key={k} value={k}>{label}</option>)}
      </select>
      {scope.kind === 'destination' ? (
        DESTINATION_NAMES.map((d) => (
          <label key={d} class="radio">
            <input type="checkbox" data-testid={`edit-scope-${d}`} checked={scope.values.includes(d)}
              onChange={(e) => {
                const on = (e.target as HTMLInputElement).checked;
                change({ kind: 'destination', values: on ? [...scope.values, d] : scope.values.filter((x) => x !== d) });
              }} />
            {DESTINATIONS[d].label}
          </label>
        ))
      ) : scope.kind !== 'everywhere' ? (
        <input data-testid="edit-scope-values" aria-label={HINT[scope.kind]} placeholder={HINT[scope.kind]} value={text}
          onInput={(e) => {
            const t = (e.target as HTMLInputElement).value;
            setText(t);
            change({ kind: scope.kind, values: splitList(t) });
          }} />
      ) : null}
      <p class="muted" data-testid="edit-scope-origin">Applies {describeScope(scope).replace(/^./, (c) => c.toLowerCase())} · {ORIGIN[scope.set]}</p>
    </fieldset>
  );
}
