import type { MemoryItem } from '../memory/types';
import type { Reason, SubjectCloseness, TaskReading } from './types';
import { hostOf, onHost } from '../core/hosts';
import { scopeMismatch } from './scope';

/**
 * Why an item may not appear at all (words, or data `reasonText` puts in words); undefined when it may. Runs before
 * any scoring, for every candidate. `near`: how close the ask is in meaning to a rule's subject, where vectors are at hand.
 */
export function filterReason(item: MemoryItem, task: TaskReading, dismissed: Set<string>, near?: SubjectCloseness): Reason | undefined {
  if (item.archived) return 'Archived';
  if (item.needsReview) return `Held back until you confirm it: ${item.needsReview}`;
  if (item.excluded) return 'You marked it "never include"';
  if (dismissed.has(item.id)) return 'You dismissed it on this page';
  if (item.sites.length > 0 && !item.sites.some((s) => onHost(task.site || hostOf(task.url), s)))
    return { onlyFor: item.sites };
  // An instruction applies only within its scope (an instruction that names people is a rule for writing to them).
  // Evidence that names people is about them and stays available everywhere.
  return scopeMismatch(item, task, near);
}

/**
 * An instruction guaranteed from the newest-first list once its scope matched: one not tied to this situation by its
 * people or sites (those are guaranteed as tied items).
 */
export function isListedInstruction(item: MemoryItem): boolean {
  return item.kind === 'instruction' && item.sites.length === 0 && item.people.length === 0;
}
