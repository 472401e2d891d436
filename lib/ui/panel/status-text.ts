import type { PanelState } from '../../messaging/protocol';

/** The panel's one-line status for a tab's state. */
export function statusText(state: PanelState | undefined, tabId: number | undefined): string {
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

/** "Dana" of "Dana Lee <dana@x.example>": how the panel names a person in its offers. */
export function firstName(person: string): string {
  const name = person.replace(/<[^>]*>/g, '').trim();
  return name || person.trim();
}
