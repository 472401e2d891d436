import type { MemoryInput, MemoryItem } from './types';

// Apart from normalize.ts so the side panel (Undo of a delete) can use it without loading the token counter.

/** Fields of a stored item that are derived from the others (recomputed by createItem) or local to its row, never carried as input. */
const DERIVED: ReadonlySet<string> = new Set<keyof MemoryItem>(['tokens', 'rev']);

/**
 * A stored item as input again, every field carried (undo of a delete, export): createItem(inputFromItem(it)) is
 * the same item. Everything but derived fields is copied, so a field added to MemoryItem later is carried too.
 */
export function inputFromItem(item: MemoryItem): MemoryInput {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(item)) if (!DERIVED.has(k) && v !== undefined) out[k] = v;
  return out as unknown as MemoryInput;
}
