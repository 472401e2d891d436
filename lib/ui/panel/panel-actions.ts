import type { MemoryItem, MemoryPatch } from '../../memory/types';
import { callBackground } from '../../messaging/rpc';
import { inputFromItem } from '../../memory/item-input';
import type { Toast } from './toast';
import { displayTitle } from '../../core/items';

/** What the panel does to memory and the page, reporting in a toast; `changed` tells the panel memory changed. */
export function panelActions(opts: { tabId: number | undefined; search: string; show: (t: Toast) => void; fail: (e: unknown) => void; changed: () => void }) {
  const { tabId, show, fail, changed } = opts;
  const search = () => opts.search.trim() || undefined;
  return {
    /** Inserts a card: the passages it shows of a long item, or (none given) the whole item. */
    async insert(id: string, passages?: number[]) {
      if (tabId === undefined) return;
      try {
        const out = await callBackground('card:insert', { tabId, id, ...(passages ? { passages } : {}) });
        show(out.ok ? { text: 'Inserted.' } : { text: out.hint ?? 'Could not insert here.', error: true });
      } catch (e) {
        fail(e);
      }
    },
    async insertAll(ids: string[]) {
      if (tabId === undefined) return;
      try {
        const out = await callBackground('package:insert', { tabId, ids, search: search() });
        show(out.ok ? { text: `Inserted ${ids.length} ${ids.length === 1 ? 'card' : 'cards'}.` } : { text: out.hint ?? 'Could not insert here.', error: true });
      } catch (e) {
        fail(e);
      }
    },
    /** Deletes one memory, with Undo in the toast. */
    async remove(item: MemoryItem) {
      try {
        const { removed } = await callBackground('memory:delete', { ids: [item.id] });
        changed();
        show({
          text: `Deleted “${displayTitle(item, 40)}”.`,
          undo: async () => {
            await callBackground('memory:add', { items: removed.map(inputFromItem), restore: true });
            changed();
            show({ text: 'Restored.' });
          },
        });
      } catch (e) {
        fail(e);
      }
    },
    async update(id: string, patch: MemoryPatch): Promise<MemoryItem | undefined> {
      try {
        const { item } = await callBackground('memory:update', { id, patch });
        changed();
        return item;
      } catch (e) {
        fail(e);
        return undefined;
      }
    },
  };
}

export type PanelActions = ReturnType<typeof panelActions>;
