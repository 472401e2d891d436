import { DESTINATIONS } from '../core/destinations';
import { hostOf, onHost } from '../core/hosts';
import type { MemoryItem } from '../memory/types';
import { READING_LIMITS } from './reading-bounds';
import type { TaskReading } from './types';
import { personKey, personName } from '../memory/index/situation-keys';

const spaced = (s: string) => s.trim().toLowerCase().replace(/\s+/g, ' ');

const keyCache = new Map<string, readonly string[]>();

/**
 * Every key a person may be listed under ("Bob Smith <bob@x.com>" is both the address and the name). Memoised: the
 * ranker asks for the same few names once per candidate.
 */
export function personKeys(p: string): readonly string[] {
  let got = keyCache.get(p);
  if (got) return got;
  const keys = new Set<string>([personKey(p)]);
  const name = spaced(personName(p).replace(/"/g, ''));
  if (name && !name.includes('@')) keys.add(name);
  got = [...keys];
  // Only strings of a person's length are kept: ten thousand long ones a page made up would hold on to megabytes.
  if (p.length > READING_LIMITS.person) return got;
  if (keyCache.size > 10_000) keyCache.clear();
  keyCache.set(p, got);
  return got;
}

const peopleOfTask = new WeakMap<TaskReading, Set<string>>();

/** The keys of the people on the task (computed once per reading). */
export function taskPeopleKeys(task: TaskReading): Set<string> {
  let set = peopleOfTask.get(task);
  if (!set) peopleOfTask.set(task, (set = new Set((task.people ?? []).flatMap(personKeys))));
  return set;
}

/** Keys of the task's situation, in the form `MemoryView.situated` takes. */
export function taskSituationKeys(task: TaskReading): string[] {
  const keys: string[] = [];
  for (const p of task.people ?? []) for (const k of personKeys(p)) keys.push('person:' + k);
  if (task.site) keys.push('site:' + task.site.toLowerCase());
  if (task.url) keys.push('url:' + task.url);
  return keys;
}

export interface SituationMatch {
  /** In [0, 1]: URL 1, person 0.8, site 0.5 (the strongest tie wins, a second adds a little). */
  score: number;
  /** Plain words: "from this page", "about Bob", "for mail.google.com". */
  reasons: string[];
}

/** What most candidates match: nothing (shared, never changed). */
const NO_MATCH: SituationMatch = Object.freeze({ score: 0, reasons: Object.freeze([]) as unknown as string[] });

/**
 * The matches of one task, by the ties an item has (one map per page-and-site tie, keyed by the person named): a
 * person's thousands of notes share one answer, made once, and looking it up makes nothing.
 */
const matchesOfTask = new WeakMap<TaskReading, Map<string, SituationMatch>[]>();

export function situationMatch(item: MemoryItem, task: TaskReading): SituationMatch {
  // Runs for every candidate, most of which match nothing: no sort (the strongest tie and the number of ties are
  // all the score needs), and nothing made for an item that matches nothing.
  if (!task.url && !task.site && !item.people.length) return NO_MATCH;
  const onPage = !!task.url && !!item.source?.url && sameUrl(item.source.url, task.url);
  const person = item.people.length ? personOnTask(item, task) : undefined;
  const site = !task.site
    ? 0
    : keptFor(item, task.site)
      ? 2
      : item.source?.url && onHost(task.site, hostOf(item.source.url))
        ? 1
        : 0;
  if (!onPage && person === undefined && !site) return NO_MATCH;
  let byTies = matchesOfTask.get(task);
  if (!byTies) matchesOfTask.set(task, (byTies = Array.from({ length: 6 }, () => new Map())));
  const byPerson = byTies[(onPage ? 3 : 0) + site];
  let match = byPerson.get(person ?? '');
  if (!match) byPerson.set(person ?? '', (match = tiesMatch(onPage, person, site, task)));
  return match;
}

/** The score and reasons of the ties found (shared between items: frozen). */
function tiesMatch(onPage: boolean, person: string | undefined, site: number, task: TaskReading): SituationMatch {
  const reasons: string[] = [];
  let best = 0;
  if (onPage) {
    best = 1;
    reasons.push('saved from this page');
  }
  if (person !== undefined) {
    best = Math.max(best, 0.8);
    reasons.push(`about ${person}, who is ${DESTINATIONS[task.destination].onThis}`);
  }
  if (site === 2) {
    best = Math.max(best, 0.5);
    reasons.push(`kept for ${task.site}`);
  } else if (site === 1) {
    best = Math.max(best, 0.25);
    reasons.push(`saved on ${task.site}`);
  }
  return Object.freeze({ score: Math.min(1, best + 0.2 * (reasons.length - 1)), reasons: Object.freeze(reasons) as unknown as string[] });
}

/**
 * Explicitly tied to this situation, and so guaranteed a place: saved from this very page, about a person on it,
 * or scoped to this site. Merely captured somewhere on the same site only adds to the situation score.
 */
export function explicitlyTied(item: MemoryItem, task: TaskReading): boolean {
  if (task.url && item.source?.url && sameUrl(item.source.url, task.url)) return true;
  if (task.site && keptFor(item, task.site)) return true;
  return item.people.length > 0 && personOnTask(item, task) !== undefined;
}

// The two below run for thousands of candidates a ranking: loops, no closures.

/** The first of the item's people who is on the task. */
function personOnTask(item: MemoryItem, task: TaskReading): string | undefined {
  const taskPeople = taskPeopleKeys(task);
  if (!taskPeople.size) return undefined;
  for (const p of item.people) for (const k of personKeys(p)) if (taskPeople.has(k)) return p;
  return undefined;
}

/** Whether the item is kept for the task's site. */
function keptFor(item: MemoryItem, site: string): boolean {
  for (const s of item.sites) if (onHost(site, s)) return true;
  return false;
}

function sameUrl(a: string, b: string): boolean {
  const strip = (u: string) => u.replace(/#.*$/, '').replace(/\/$/, '');
  return strip(a) === strip(b);
}
