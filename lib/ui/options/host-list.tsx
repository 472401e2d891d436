import { useState } from 'preact/hooks';
import { normalizeHost } from '../../settings/settings';

/** An editable list of hostnames (excluded sites, capture sites). */
export function HostList(props: { id: string; label: string; hosts: string[]; onChange: (hosts: string[]) => void; placeholder: string }) {
  const [draft, setDraft] = useState('');
  const [err, setErr] = useState('');
  const add = (e: Event) => {
    e.preventDefault();
    const h = normalizeHost(draft);
    if (!h) return setErr(`“${draft}” is not a site name.`);
    setErr('');
    setDraft('');
    if (!props.hosts.includes(h)) props.onChange([...props.hosts, h]);
  };
  return (
    <div class="host-list" data-testid={props.id}>
      <form class="inline" onSubmit={add}>
        <input aria-label={props.label} data-testid={`${props.id}-input`} placeholder={props.placeholder} value={draft}
          onInput={(e) => setDraft((e.target as HTMLInputElement).value)} />
        <button type="submit" data-testid={`${props.id}-add`}>Add</button>
      </form>
      {err ? <p class="error" role="alert">{err}</p> : null}
      <ul class="chips">
        {props.hosts.map((h) => (
          <li key={h} class="chip" data-host={h}>
            {h}
            <button aria-label={`Remove ${h}`} onClick={() => props.onChange(props.hosts.filter((x) => x !== h))}>×</button>
          </li>
        ))}
        {!props.hosts.length ? <li class="muted">None.</li> : null}
      </ul>
    </div>
  );
}
