import type { DestinationKind, MemoryItem, MemoryScope } from '../memory/types';
import { guessScope, isBoundary } from '../memory/scope-guess';
import type { TaskReading } from './types';
import { hostOf } from '../memory/index/situation-keys';
import { personKeys, siteMatches, taskPeopleKeys } from './situation';
import { terms } from '../memory/index/tokenize';

const scopes = new WeakMap<MemoryItem, MemoryScope>();

/** The item's scope: the stored one, or (items saved before scopes existed) the guess from its text and source. */
export function scopeOf(item: MemoryItem): MemoryScope {
  if (item.scope) return item.scope;
  let s = scopes.get(item);
  if (!s) scopes.set(item, (s = guessScope(item)));
  return s;
}

/** The kind of destination the task writes into. */
export function taskDestination(task: TaskReading): DestinationKind {
  const a = (task.adapter || '').toLowerCase();
  if (/gmail|outlook|mail/.test(a) || /^mail\./.test(task.site)) return 'email';
  if (/chatgpt|claude|gemini|chat|copilot|perplexity|deepseek|mistral/.test(a)) return 'chat';
  return 'documents';
}

const DEST_LABEL: Record<DestinationKind, string> = { chat: 'chat assistants', email: 'email', documents: 'documents' };

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
      return `In ${v.map((d) => DEST_LABEL[d as DestinationKind] ?? d).join(' and ')}`;
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
  if (item.kind !== 'instruction') return undefined;
  const scope = scopeOf(item);
  const from = scope.set === 'source' ? ' (limited to where it came from until you widen it)' : '';
  switch (scope.kind) {
    case 'everywhere':
      return undefined;
    case 'destination': {
      const here = taskDestination(task);
      return scope.values.includes(here) ? undefined : `Instruction only ${describeScope(scope).toLowerCase()}${from}; this is ${here === 'documents' ? 'a document or page' : DEST_LABEL[here]}`;
    }
    case 'sites': {
      const site = task.site || hostOf(task.url);
      return scope.values.some((s) => siteMatches(s, site)) ? undefined : `Instruction only on ${scope.values.join(', ')}${from}; this is ${site || 'no site'}`;
    }
    case 'people': {
      return scope.values.some((p) => writingTo(task, p)) ? undefined : `Instruction only when writing to ${scope.values.join(', ')}${from}`;
    }
    case 'subject': {
      const generous = isBoundary(item.text);
      return scope.values.some((s) => mentionsSubject(task, s, generous))
        ? undefined
        : `Instruction only when the task mentions ${quoteList(scope.values)}${from}; this one does not`;
    }
  }
}

/** Why an in-scope instruction applies here, for the card's guarantee line. */
export function appliesBecause(item: MemoryItem, task: TaskReading): string {
  const scope = scopeOf(item);
  switch (scope.kind) {
    case 'everywhere':
      return 'Instruction: applies everywhere (newest first)';
    case 'destination':
      return `Instruction for ${DEST_LABEL[taskDestination(task)]}`;
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
const POLARITY = /\b(never|don't|dont|do not|avoid|no longer|stop|not)\b/i;
const IGNORED = new Set(['always', 'never', 'avoid', 'stop', 'prefer', 'please', 'longer']);

const termsOf = new WeakMap<MemoryItem, Set<string>>();
function directiveTerms(item: MemoryItem): Set<string> {
  let set = termsOf.get(item);
  if (!set) termsOf.set(item, (set = new Set(terms(item.text).filter((t) => !IGNORED.has(t) && !/\d/.test(t)))));
  return set;
}

/**
 * Two instructions of one scope, sharing `shared` directive terms, that contradict: the same rule with the opposite
 * polarity ("always cc Maria" / "never cc Maria"), or the same directive with a different value ("use British
 * spelling" / "use American spelling"). Near-duplicates that differ only in numbers are not a contradiction.
 */
function contradicts(a: MemoryItem, b: MemoryItem, shared: number): boolean {
  const A = directiveTerms(a);
  const B = directiveTerms(b);
  const small = Math.min(A.size, B.size);
  if (!small || shared < 2) return false;
  if (negative(a) !== negative(b)) return shared / small >= 0.6;
  return shared / small >= 0.5 && A.size > shared && B.size > shared;
}

const negativeOf = new WeakMap<MemoryItem, boolean>();
function negative(item: MemoryItem): boolean {
  let v = negativeOf.get(item);
  if (v === undefined) negativeOf.set(item, (v = POLARITY.test(item.text)));
  return v;
}

/**
 * Within one scope's instructions, newest first: each older one that contradicts a newer one still standing, and
 * that newer one. Pairs are found through the directive terms they share (two at least), so a ranking over many
 * instructions of one scope does not compare every pair.
 */
export function supersessions(newestFirst: MemoryItem[]): Map<MemoryItem, MemoryItem> {
  const g = newestFirst.filter((i) => i.kind === 'instruction');
  const postings = new Map<string, number[]>();
  g.forEach((item, k) => {
    for (const t of directiveTerms(item)) {
      const list = postings.get(t);
      if (list) list.push(k);
      else postings.set(t, [k]);
    }
  });
  const out = new Map<MemoryItem, MemoryItem>();
  const shared = new Int32Array(g.length);
  for (let i = 0; i < g.length; i++) {
    if (out.has(g[i])) continue;
    const later: number[] = [];
    for (const t of directiveTerms(g[i])) {
      for (const j of postings.get(t)!) if (j > i && shared[j]++ === 0) later.push(j);
    }
    later.sort((x, y) => x - y);
    for (const j of later) {
      if (!out.has(g[j]) && contradicts(g[i], g[j], shared[j])) out.set(g[j], g[i]);
      shared[j] = 0;
    }
  }
  return out;
}
