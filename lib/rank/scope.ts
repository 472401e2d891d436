import { DESTINATIONS, isDestination } from '../core/destinations';
import type { MemoryItem, MemoryScope } from '../memory/types';
import { guessScope, isBoundary } from '../memory/scope-guess';
import type { OutOfScope, SubjectCloseness, TaskReading } from './types';
import { hostOf, onHost } from '../core/hosts';
import { personKeys, taskPeopleKeys } from './situation';
import { personName } from '../memory/index/situation-keys';
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

/** Per task's terms, the answers of `hasTerm` so far: each rule's subject asks a few terms of every task word. */
const rootAnswers = new WeakMap<Set<string>, Map<string, boolean>>();

/** Whether the task has the term, or a word of the same root ("renewal" / "renewing", "storage" / "store"). */
function hasTerm(have: Set<string>, t: string): boolean {
  if (have.has(t)) return true;
  if (t.length < 4 || /\d/.test(t)) return false;
  let known = rootAnswers.get(have);
  if (!known) rootAnswers.set(have, (known = new Map()));
  let yes = known.get(t);
  if (yes === undefined) {
    yes = false;
    for (const h of have) if (h.length >= 4 && (h.startsWith(t) || t.startsWith(h)) && !/\d/.test(h)) yes = true;
    known.set(t, yes);
  }
  return yes;
}

/**
 * Whether the task is about the subject, judged against the subject's own words (not the rule's whole text): all of
 * a one- or two-word subject, two thirds of a longer one ("vendor contract renewal" holds for "our contract is up for
 * renewal"). A boundary is matched more generously: any one of its words will do.
 */
export function mentionsSubject(task: TaskReading, subject: string, generous: boolean): boolean {
  const have = termsOfTask(task);
  return alternatives(subject).some((alt) => {
    const n = alt.filter((t) => hasTerm(have, t)).length;
    return generous ? n > 0 : n >= (alt.length <= 2 ? alt.length : Math.ceil((alt.length * 2) / 3));
  });
}

/** The task's own words as written (the ask, subject, selection, title, turns): where a name it mentions is read. */
const writtenOfTask = new WeakMap<TaskReading, string>();
function taskText(task: TaskReading): string {
  let t = writtenOfTask.get(task);
  if (t === undefined) {
    t = [task.field?.text, task.subject, task.selection, task.title, ...(task.headings ?? []), ...(task.turns ?? [])].filter(Boolean).join('\n');
    writtenOfTask.set(task, t);
  }
  return t;
}

const nameRes = new Map<string, RegExp>();
/** The person's name (or, for a full name, the first name) as a capitalised word of the task's text. */
function namedInText(task: TaskReading, person: string): boolean {
  const name = personName(person).replace(/["()]/g, '').trim();
  if (!name || name.includes('@')) return false;
  let re = nameRes.get(name);
  if (!re) {
    const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const parts = name.split(/\s+/);
    const forms = [parts.map(esc).join('\\s+')];
    if (parts.length > 1 && parts[0].length > 1 && !/\.$/.test(parts[0])) forms.push(esc(parts[0]));
    re = new RegExp(`(?<![\\p{L}\\p{N}])(?:${forms.join('|')})(?![\\p{L}\\p{N}])`, 'u');
    if (nameRes.size > 5000) nameRes.clear();
    nameRes.set(name, re);
  }
  return re.test(taskText(task));
}

/** A recipient's address that spells the name: "nadia.haddad@…" for Nadia Haddad, "aokafor@…" for Okafor. */
function addressOf(task: TaskReading, person: string): boolean {
  const name = personName(person).toLowerCase().replace(/[^\p{L}\s]/gu, '').trim();
  if (!name) return false;
  const parts = name.split(/\s+/);
  for (const p of task.people ?? []) {
    const at = p.match(/([^\s<@]+)@/);
    if (!at) continue;
    const local = at[1].toLowerCase();
    const bits = local.split(/[._-]+/);
    if (parts.every((x) => bits.includes(x))) return true;
    const last = parts[parts.length - 1];
    if (last.length >= 4 && (local === last || local === parts[0][0] + last || (parts.length === 1 && local.length === last.length + 1 && local.endsWith(last)))) return true;
  }
  return false;
}

/** Whether a person condition holds for a task (`personHolds`). */
export interface PersonHold {
  readonly to: boolean;
  readonly named: boolean;
}

/**
 * Answers of `personHolds` per task and person: a ranking asks of every rule scoped to people twice (while gathering
 * and while weighing), and a memory with hundreds of them asked it a thousand times a ranking, each reading the
 * task's addresses and text again.
 */
const holdsOnTask = new WeakMap<TaskReading, Map<string, PersonHold>>();

/** Whether a person condition holds: the task is written to them, or its text names them ("my manager Dana"). */
export function personHolds(task: TaskReading, person: string): PersonHold {
  let known = holdsOnTask.get(task);
  if (!known) holdsOnTask.set(task, (known = new Map()));
  let h = known.get(person);
  if (!h) {
    const to = writingTo(task, person) || addressOf(task, person);
    h = { to, named: !to && namedInText(task, person) };
    known.set(person, h);
  }
  return h;
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
      return `When writing to or about ${v.join(', ')}`;
    case 'subject':
      return `When the task is about ${quoteList(v)}`;
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

/**
 * `outOfScope` as data (its words made by `outOfScopeText` where they are shown). `near`: how close the ask is in
 * meaning to a subject, where vectors are at hand.
 */
export function scopeMismatch(item: MemoryItem, task: TaskReading, near?: SubjectCloseness): OutOfScope | undefined {
  if (item.kind !== 'instruction') return undefined;
  const scope = scopeOf(item);
  const site = task.site || hostOf(task.url);
  return scopeFits(item, scope, task, site, near) ? undefined : { outOfScope: scope, site, destination: task.destination };
}

/** Whether the instruction's scope matches the task (`site`: the task's). */
function scopeFits(item: MemoryItem, scope: MemoryScope, task: TaskReading, site: string, near?: SubjectCloseness): boolean {
  switch (scope.kind) {
    case 'everywhere':
      return true;
    case 'destination':
      return scope.values.includes(task.destination);
    case 'sites':
      return scope.values.some((s) => onHost(site, s));
    case 'people':
      return scope.values.some((p) => {
        const h = personHolds(task, p);
        return h.to || h.named;
      });
    case 'subject': {
      const generous = isBoundary(item.text);
      return scope.values.some((s) => mentionsSubject(task, s, generous) || near?.(s) !== undefined);
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
      return `Applies only when writing to or about ${scope.values.join(', ')}${from}: this task is not written to them and does not name them`;
    case 'subject':
      return `Applies only when the task is about ${quoteList(scope.values)}${from}: this one is not (its words do not say so)`;
  }
}

/** Why an in-scope instruction applies here, for the card's guarantee line (`near` as for `scopeMismatch`). */
export function appliesBecause(item: MemoryItem, task: TaskReading, near?: SubjectCloseness): string {
  const scope = scopeOf(item);
  switch (scope.kind) {
    case 'everywhere':
      return 'Instruction: applies everywhere, with no condition';
    case 'destination':
      return `Instruction for ${DESTINATIONS[task.destination].plural}`;
    case 'sites':
      return `Instruction for ${task.site || hostOf(task.url)}`;
    case 'people': {
      const held = scope.values.map((p) => ({ p, ...personHolds(task, p) }));
      const to = held.filter((h) => h.to).map((h) => h.p);
      const named = held.filter((h) => h.named).map((h) => h.p);
      return to.length ? `Applies when writing to ${scope.values.join(', ')}: held, this is written to ${to.join(', ')}` : `Applies when writing to or about ${scope.values.join(', ')}: held, this task names ${named.join(', ')}`;
    }
    case 'subject':
      // A boundary applies on part of its subject (mentionsSubject, generous): say so rather than claim all of it.
      if (scope.values.some((v) => mentionsSubject(task, v, false))) return `Applies when the task is about ${quoteList(scope.values)}: held, this task is`;
      const cos = scope.values.map((v) => near?.(v)).find((c) => c !== undefined);
      if (cos !== undefined) return `Applies when the task is about ${quoteList(scope.values)}: held, this task is close to it in meaning (${cos.toFixed(2)})`;
      return `Boundary about ${quoteList(scope.values)}, which this task touches on`;
  }
}

/** Scopes compare equal by kind and values, whatever the order or case. */
export const scopeKey = (s: MemoryScope) => `${s.kind}:${[...s.values].map((v) => v.toLowerCase()).sort().join('|')}`;
