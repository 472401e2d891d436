import type { Scored } from './score';
import { terms } from '../memory/index/tokenize';
import { likeness } from './likeness';
import { IGNORED } from './overridden-instructions';
import type { MemoryView } from '../memory/index/memory-view';
import { lastTouched } from '../core/items';

/** The index terms of the words that mark a decision (lib/memory/index/decision-words.ts): every decision has one. */
const DECISION_TERMS = new Set(terms('decided decision agreed settled going chose approved signed final call answer numbers'));

/** Decisions compared at most, best scored first: the few that can reach the panel. */
const COMPARED = 40;
/** Similarity above which two decisions are about the same thing (cosine of embeddings; word overlap without them). */
const SAME_SUBJECT_COS = 0.75;
const SAME_SUBJECT_WORDS = 0.45;

/**
 * Marks each decision that a newer decision on the same subject supersedes, and ranks it just below that one: the
 * older is still there to read (why things changed), never above what replaced it. Returns whether any score moved
 * (the caller then sorts again).
 */
export function markSuperseded(ranked: Scored[], memory: MemoryView): boolean {
  // The index knows which items read as decisions without their texts (most of a ranking's situated items are unread).
  const decisions: Scored[] = [];
  for (const s of ranked) {
    if (decisions.length >= COMPARED) break;
    if (memory.isDecision(s.item.id)) decisions.push(s);
  }
  if (decisions.length < 2) return false;
  let moved = false;
  const words = new Map<Scored, Set<string>>();
  // What a decision is about: its words less those that say it is a decision or how it is put ("decided", "write").
  const wordsOf = (s: Scored) => {
    let w = words.get(s);
    if (!w) words.set(s, (w = new Set(terms(s.item.text).filter((t) => !DECISION_TERMS.has(t) && !IGNORED.has(t)))));
    return w;
  };
  const same = (a: Scored, b: Scored): boolean => {
    const l = likeness(memory.vector(a.item.id), memory.vector(b.item.id), () => [wordsOf(a), wordsOf(b)]);
    return l.value >= (l.by === 'meaning' ? SAME_SUBJECT_COS : SAME_SUBJECT_WORDS);
  };
  // Newest first, so each older decision is marked by the newest one that covers it.
  const byAge = [...decisions].sort((a, b) => lastTouched(b.item) - lastTouched(a.item));
  for (let i = 0; i < byAge.length; i++) {
    const newer = byAge[i];
    for (let j = i + 1; j < byAge.length; j++) {
      const older = byAge[j];
      if (older.supersededBy || lastTouched(older.item) >= lastTouched(newer.item) || !same(newer, older)) continue;
      older.supersededBy = newer.item;
      if (older.score >= newer.score) {
        older.score = Math.max(0, newer.score - 0.001);
        moved = true;
      }
    }
  }
  return moved;
}
