import type { MemoryItem } from '../memory/types';
import type { TaskReading } from './types';
import { personKeys, siteMatches, hostOf, taskPeopleKeys } from './situation';

/** Why an item may not appear at all, in plain words; undefined when it may. Runs before any scoring. */
export function filterReason(item: MemoryItem, task: TaskReading, dismissed: Set<string>): string | undefined {
  if (item.archived) return 'Archived';
  if (item.needsReview) return `Held back until you confirm it: ${item.needsReview}`;
  if (item.excluded) return 'You marked it "never include"';
  if (dismissed.has(item.id)) return 'You dismissed it on this page';
  if (item.sites.length > 0 && !item.sites.some((s) => siteMatches(s, task.site || hostOf(task.url))))
    return `Only for ${item.sites.join(', ')}`;
  // An instruction that names people is a rule for writing to them; elsewhere it does not apply.
  // Evidence that names people is about them and stays available everywhere.
  if (item.kind === 'instruction' && item.people.length > 0) {
    const here = taskPeopleKeys(task);
    if (!item.people.some((p) => personKeys(p).some((k) => here.has(k))))
      return `Only when writing to ${item.people.join(', ')}`;
  }
  return undefined;
}

/** A global instruction applies everywhere: no site and no person scope. */
export function isGlobalInstruction(item: MemoryItem): boolean {
  return item.kind === 'instruction' && item.sites.length === 0 && item.people.length === 0;
}
