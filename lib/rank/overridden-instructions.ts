import type { MemoryItem, MemoryScope } from '../memory/types';
import { lastTouched } from '../core/items';
import { scopeKey, scopeOf } from './scope';
import { terms } from '../memory/index/tokenize';

/**
 * Overridden instructions: of two instructions for the same scope that contradict each other, the newer is used and
 * the older is filtered out, with what overrode it (the trace says "Superseded by"). Not to be confused with a
 * decision superseded by a newer one on the same subject (supersede.ts), which is still shown, just lower.
 */

const POLARITY = /\b(never|don't|dont|do not|avoid|no longer|stop|not)\b/i;
// Words that say how a rule is put, not what it is about: two rules sharing "write" and "march" are not one subject.
export const IGNORED = new Set(['always', 'never', 'avoid', 'stop', 'prefer', 'please', 'longer', 'write', 'use', 'say', 'keep', 'make', 'includ', 'add', 'mention', 'put', 'give']);

const termsOf = new WeakMap<MemoryItem, Set<string>>();
function directiveTerms(item: MemoryItem): Set<string> {
  let set = termsOf.get(item);
  if (!set) termsOf.set(item, (set = new Set(terms(item.text).filter((t) => !IGNORED.has(t) && !/\d/.test(t)))));
  return set;
}

/**
 * Two instructions of one scope, sharing `shared` directive terms, that contradict: the same rule with the opposite
 * polarity ("always cc Maria" / "never cc Maria"), or the same directive with a different value ("use British
 * spelling" / "use American spelling"). Both must be about the same thing: the shared terms are half of each rule's
 * at least, not two words a longer rule happens to hold too. Near-duplicates that differ only in numbers are not a
 * contradiction.
 */
function contradicts(a: MemoryItem, b: MemoryItem, shared: number): boolean {
  const A = directiveTerms(a);
  const B = directiveTerms(b);
  const small = Math.min(A.size, B.size);
  const large = Math.max(A.size, B.size);
  if (!small || !shared || shared / large < 0.5) return false;
  if (shared < 2 && large > 2) return false;
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
export function overrides(newestFirst: MemoryItem[]): Map<MemoryItem, MemoryItem> {
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

/**
 * The overrides last found per scope, for a caller that ranks one memory again and again (the service's tab
 * ranker): its rankings meet the same instructions of a scope each time, and items never change in place (an edit
 * makes a new item), so the same items give the same answer.
 */
export class OverrideMemo {
  private readonly last = new Map<string, { group: MemoryItem[]; found: Map<MemoryItem, MemoryItem> }>();

  /** `overrides(newestFirst)`, remembered for the scope `key`. */
  find(key: string, newestFirst: MemoryItem[]): Map<MemoryItem, MemoryItem> {
    const last = this.last.get(key);
    const found = last && sameItems(last.group, newestFirst) ? last.found : overrides(newestFirst);
    this.last.set(key, { group: newestFirst, found });
    return found;
  }
}

const sameItems = (a: MemoryItem[], b: MemoryItem[]) => a.length === b.length && a.every((x, i) => x === b[i]);

// Every ranking groups every instruction by its scope: each scope's key is written once.
const keys = new WeakMap<MemoryScope, string>();
function keyOf(scope: MemoryScope): string {
  let key = keys.get(scope);
  if (key === undefined) keys.set(scope, (key = scopeKey(scope)));
  return key;
}

/**
 * Instructions among `items` that contradict a newer one for the same scope: the older, and what overrode it.
 * With a memo, scopes whose instructions are unchanged since its last call are not compared again.
 */
export function overriddenInstructions(items: MemoryItem[], memo?: OverrideMemo): Map<MemoryItem, MemoryItem> {
  const groups = new Map<string, MemoryItem[]>();
  for (const i of items) {
    if (i.kind !== 'instruction') continue;
    const key = keyOf(scopeOf(i));
    const g = groups.get(key);
    if (g) g.push(i);
    else groups.set(key, [i]);
  }
  const out = new Map<MemoryItem, MemoryItem>();
  for (const [key, g] of groups) {
    if (g.length < 2) continue;
    // Rules saved at the same moment (an import) in a fixed order, not in the order this task's retrieval met them:
    // which one stands must not change with what the user types (and the memo then finds the same group again).
    g.sort((a, b) => lastTouched(b) - lastTouched(a) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    // Bounded for very large memories: the newest 200 of one scope.
    const newest = g.slice(0, 200);
    const found = memo ? memo.find(key, newest) : overrides(newest);
    for (const [older, newer] of found) out.set(older, newer);
  }
  return out;
}

