import { useState } from 'preact/hooks';
import type { MemoryItem } from '../../memory/types';
import { callBackground } from '../../messaging/rpc';
import { displayTitle } from '../../core/items';

/** How many of the newest memories the picker offers. */
const PICKER_SIZE = 500;

export type FlagLists = { pinned: MemoryItem[]; excluded: MemoryItem[]; recent: MemoryItem[] };

/** The always-include and never-include items, and the newest memories to pick more from. */
export async function loadFlagLists(): Promise<FlagLists> {
  const page = (filter: { pinned?: boolean; excluded?: boolean }) => callBackground('memory:query', { filter, offset: 0, limit: PICKER_SIZE }).then((r) => r.items);
  const [pinned, excluded, recent] = await Promise.all([page({ pinned: true }), page({ excluded: true }), page({})]);
  return { pinned, excluded, recent };
}

/** Items marked always-include (pinned) or never-include (excluded), with a picker to add more. */
export function FlaggedItems(props: { id: string; items: MemoryItem[]; all: MemoryItem[]; flag: 'pinned' | 'excluded'; onChanged: () => void }) {
  const [pick, setPick] = useState('');
  const set = async (id: string, on: boolean) => {
    const patch = props.flag === 'pinned' ? { pinned: on, ...(on ? { excluded: false } : {}) } : { excluded: on, ...(on ? { pinned: false } : {}) };
    await callBackground('memory:update', { id, patch });
    props.onChanged();
  };
  const candidates = props.all.filter((i) => !i[props.flag]);
  return (
    <div data-testid={props.id}>
      <ul class="item-flags">
        {props.items.map((it) => (
          <li key={it.id} data-id={it.id}>
            <span class={`badge badge-${it.kind}`}>{it.kind}</span> {displayTitle(it)}
            <button aria-label={`Remove ${it.title}`} onClick={() => void set(it.id, false)}>Remove</button>
          </li>
        ))}
        {!props.items.length ? <li class="muted">None.</li> : null}
      </ul>
      <form class="inline" onSubmit={(e) => {
        e.preventDefault();
        if (pick) void set(pick, true).then(() => setPick(''));
      }}>
        <select data-testid={`${props.id}-pick`} value={pick} aria-label="Choose a memory" onChange={(e) => setPick((e.target as HTMLSelectElement).value)}>
          <option value="">Choose a memory…</option>
          {candidates.map((it) => <option key={it.id} value={it.id}>{displayTitle(it, 80)}</option>)}
        </select>
        <button type="submit" data-testid={`${props.id}-add`} disabled={!pick}>Add</button>
      </form>
    </div>
  );
}
