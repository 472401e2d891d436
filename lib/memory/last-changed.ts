import type { MemoryItem } from './types';

/** When the item was last written: created or edited, whichever is later (0 when it carries neither). */
export function lastChanged(item: MemoryItem): number {
  return Math.max(item.createdAt || 0, item.updatedAt || 0);
}
