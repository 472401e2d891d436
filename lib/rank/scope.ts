import { DESTINATIONS, isDestination } from '../core/destinations';
import type { MemoryItem, MemoryScope } from '../memory/types';
import { guessScope, isBoundary } from '../memory/scope-guess';
import type { OutOfScope, TaskReading } from './types';
import { hostOf, onHost } from '../core/hosts';
import { personKeys, taskPeopleKeys } from './situation';
import { terms } from '../memory/index/tokenize';

const scopes = new WeakMap<MemoryItem, MemoryScope>();

/** The item's scope: the stored one, or (items saved before scopes existed) the guess from its text and source. */
export function scopeOf(item: MemoryItem): MemoryScope {
  if (item.scope) return item.scope;
  let s = scopes.get(item);
  if (!s) scopes.set(item, (s = guessScope(item)));
  return s;
}

// A subject also counts as named when the task uses a word of its field: "code" is at stake in a question about a bug.
const SUBJECT_FAMILIES: Record<string, string[]> = {
  code: ['code', 'coding', 'programming', 'program', 'bug', 'debug', 'function', 'api', 'script', 'typescript', 'javascript',
    'python', 'sql', 'compile', 'compiler', 'exception', 'stack trace', 'regex', 'refactor', 'repository', 'commit', 'pull request'],
};

const subjectTerms = new Map<string, string[][]>();

/** Each alternative way the subject may be named, as term lists (all terms of one alternative must be present). */
function alternatives(subject: string): string[][] {
  let got = subjectTerms.get(subject);
  if (!got) {
    const family = SUBJECT_FAMILIES[subject.toLowerCase()] ?? [];
    got = [subject, ...family].map((s) => terms(s)).filter((t) => t.length);
    if (subjectTerms.size > 5000) subjectTerms.clear();
    subjectTerms.set(subject, got);
  }
  return got;
}

const taskTerms = new WeakMap<TaskReading, Set<string>>();

/** Every word of the task: the ask, subject, selection, title, headings and the turns on screen. */
function termsOfTask(task: TaskReading): Set<string> {
  let set = taskTerms.get(task);
  if (!set) {
    const text = [task.field?.text, task.subject, task.selection, task.title, ...(task.headings ?? []), ...(task.turns ?? [])].filter(Boolean).join('\n');
    taskTerms.set(task, (set = new Set(terms(text))));
  }
  return set;
}

/** Whether the task names the subject. A boundary is matched more generously: any one of its words will do. */
export function mentionsSubject(task: TaskReading, subject: string, generous: boolean): boolean {
  const have = termsOfTask(task);
  return alternatives(subject).some((alt) => (generous ? alt.some((t) => have.has(t)) : alt.every((t) => have.has(t))));
}

/** Whether the task is addressed to the person: the same address or name, or a first name the text gave alone. */
function writingTo(task: TaskReading, person: string): boolean {
  const here = taskPeopleKeys(task);
  if (personKeys(person).some((k) => here.has(k))) return true;
  const first = person.trim().toLowerCase();
  if (!first || /[\s@]/.test(first)) return false;
  for (const k of here) if (!k.includes('@') && k.split(' ')[0] === first) return true;
  return false;
}

const quoteList = (xs: string[]) => xs.map((x) => `“${x}”`).join(' or ');

/** The scope in plain words, as the card and the quick edit show it. */
export function describeScope(scope: MemoryScope): string {
  const v = scope.values;
  switch (scope.kind) {
    case 'everywhere':
      return 'Everywhere';
    case 'destination':
      return `In ${v.map((d) => (isDestination(d) ? DESTINATIONS[d].plural : d)).join(' and ')}`;
    case 'sites':
      return `On ${v.join(', ')}`;
    case 'people':
      return `When writing to ${v.join(', ')}`;
    case 'subject':
      return `When the task mentions ${quoteList(v)}`;
  }
}

/**
 * Why an instruction does not apply to this task, in plain words; undefined when its scope matches. Evidence has no
 * scope to respect (it is about something, not a rule for somewhere).
 */
export function outOfScope(item: MemoryItem, task: TaskReading): string | undefined {
  const m = scopeMismatch(item, task);
  return m && outOfScopeText(m);
}

/** `outOfScope` as data (its words made by `outOfScopeText` where they are shown). */
export function scopeMismatch(item: MemoryItem, task: TaskReading): OutOfScope | undefined {
  if (item.kind !== 'instruction') return undefined;
  const scope = scopeOf(item);
  const site = task.site || hostOf(task.url);
  return scopeFits(item, scope, task, site) ? undefined : { outOfScope: scope, site, destination: task.destination };
}

/** Whether the instruction's scope matches the task (`site`: the task's). */
function scopeFits(item: MemoryItem, scope: MemoryScope, task: TaskReading, site: string): boolean {
  switch (scope.kind) {
    case 'everywhere':
      return true;
    case 'destination':
      return scope.values.includes(task.destination);
    case 'sites':
      return scope.values.some((s) => onHost(site, s));
    case 'people':
      return scope.values.some((p) => writingTo(task, p));
    case 'subject': {
      const generous = isBoundary(item.text);
      return scope.values.some((s) => mentionsSubject(task, s, generous));
    }
  }
}

/** An instruction's scope mismatch in plain words. */
export function outOfScopeText({ outOfScope: scope, site, destination }: OutOfScope): string {
  const from = scope.set === 'source' ? ' (limited to where it came from until you widen it)' : '';
  switch (scope.kind) {
    case 'everywhere':
      return '';
    case 'destination':
      return `Instruction only ${describeScope(scope).toLowerCase()}${from}; this is ${DESTINATIONS[destination].thisIs}`;
    case 'sites':
      return `Instruction only on ${scope.values.join(', ')}${from}; this is ${site || 'no site'}`;
    case 'people':
      return `Instruction only when writing to ${scope.values.join(', ')}${from}`;
    case 'subject':
      return `Instruction only when the task mentions ${quoteList(scope.values)}${from}; this one does not`;
  }
}

/** Why an in-scope instruction applies here, for the card's guarantee line. */
export function appliesBecause(item: MemoryItem, task: TaskReading): string {
  const scope = scopeOf(item);
  switch (scope.kind) {
    case 'everywhere':
      return 'Instruction: applies everywhere (newest first)';
    case 'destination':
      return `Instruction for ${DESTINATIONS[task.destination].plural}`;
    case 'sites':
      return `Instruction for ${task.site || hostOf(task.url)}`;
    case 'people':
      return `Instruction for writing to ${scope.values.join(', ')}`;
    case 'subject':
      // A boundary applies on part of its subject (mentionsSubject, generous): say so rather than claim all of it.
      return scope.values.some((v) => mentionsSubject(task, v, false))
        ? `Instruction about ${quoteList(scope.values)}, which this task mentions`
        : `Boundary about ${quoteList(scope.values)}, which this task touches on`;
  }
}

/** Scopes compare equal by kind and values, whatever the order or case. */
export const scopeKey = (s: MemoryScope) => `${s.kind}:${[...s.values].map((v) => v.toLowerCase()).sort().join('|')}`;
