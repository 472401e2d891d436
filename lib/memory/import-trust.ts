import { intake, MEMORY_FILE_FORMAT } from './intake';
import { guessKind } from './kind-guess';
import { guessScope, parseScope } from './scope-guess';
import type { MemoryInput, MemoryScope } from './types';

/**
 * What a memory file this profile did not sign asks for beyond evidence: instructions (wherever they apply: a rule for
 * one person is still someone else's rule riding into the user's mail), pinned cards, and feedback. None of it counts
 * until the user answers: keep them, or import the file as evidence.
 */
export interface TrustAsks {
  everywhere: number;
  /** Instructions for a whole kind of destination (all email, all chats) or a whole site. */
  wide: number;
  /** Instructions for particular people or subjects. */
  scoped: number;
  pinned: number;
  /** Feedback events and phrase counts. */
  feedback: number;
}

/** Scopes that reach beyond one person or subject: the question names them apart. */
function isWideScope(scope: MemoryScope): boolean {
  return scope.kind === 'everywhere' || scope.kind === 'destination' || scope.kind === 'sites';
}

/** The asks of a memory file's items and feedback, as they would land if kept; undefined when there are none. */
export function trustAsks(inputs: MemoryInput[], feedback?: { events: readonly unknown[]; phrases: readonly unknown[] }): TrustAsks | undefined {
  const asks: TrustAsks = { everywhere: 0, wide: 0, scoped: 0, pinned: 0, feedback: (feedback?.events.length ?? 0) + (feedback?.phrases.length ?? 0) };
  for (const input of inputs) {
    if (input.source?.format !== MEMORY_FILE_FORMAT) continue;
    // What createItem would make of it if kept (without counting its tokens: a file may hold 100,000 items).
    const kept = intake(input, { from: 'import', trusted: true });
    if (typeof kept.text !== 'string') continue; // the commit refuses it, naming the problem
    if (kept.pinned) asks.pinned++;
    if ((kept.kind ?? guessKind(kept.text)) !== 'instruction') continue;
    const scope = parseScope(kept.scope) ?? guessScope(kept);
    if (scope.kind === 'everywhere') asks.everywhere++;
    else if (isWideScope(scope)) asks.wide++;
    else asks.scoped++;
  }
  return asks.everywhere + asks.wide + asks.scoped + asks.pinned + asks.feedback ? asks : undefined;
}
