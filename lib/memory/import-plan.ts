import { embedText } from './index/item-text';
import { createItem } from './normalize';
import type { MemoryInput, MemoryItem } from './types';

export interface ImportCounts {
  added: number;
  updated: number;
  unchanged: number;
}

/** The user's decisions about `old`, carried onto its re-imported version unless the import sets them itself. */
function keepDecisions(fresh: MemoryItem, old: MemoryItem, input: MemoryInput): MemoryItem {
  const out: MemoryItem = { ...fresh };
  if (input.pinned === undefined) out.pinned = old.pinned;
  for (const k of ['excluded', 'archived', 'needsReview', 'lastUsedAt'] as const) {
    if (input[k] === undefined && old[k] !== undefined) (out as unknown as Record<string, unknown>)[k] = old[k];
  }
  // Held for a secret again on a re-import, though the user already confirmed this very text: it stays confirmed.
  if (out.needsReview && !old.needsReview && old.text === out.text) delete out.needsReview;
  // A file that gives no date (a plain memory file, notes) does not make the item new again on every import.
  if (input.createdAt === undefined) out.createdAt = old.createdAt;
  // A scope the user chose stays unless the import itself says where the item applies.
  if (input.scope === undefined && old.scope?.set === 'user') out.scope = old.scope;
  return out;
}

/** Same item apart from when it was written, which import wrote it and the row's revision. */
function sameContent(a: MemoryItem, b: MemoryItem): boolean {
  const strip = (it: MemoryItem) => stableJson({ ...it, updatedAt: 0, rev: undefined, source: { ...it.source, importId: undefined } });
  return strip(a) === strip(b);
}

/** JSON with object keys sorted, so field order does not make two equal items differ. */
function stableJson(v: unknown): string {
  return JSON.stringify(v, (_k, x) =>
    x && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.keys(x).sort().filter((k) => x[k] !== undefined).map((k) => [k, x[k]])) : x,
  );
}

/**
 * What committing an import changes: each input made an item (with `source.importId`), keyed by id against what is
 * stored. `changed` are written; `reembed` lose their vector (the text the model sees, or whether the item is held,
 * changed). Throws on an input that is not a valid item, before anything is written.
 */
export function planImport(inputs: MemoryInput[], stored: (id: string) => MemoryItem | undefined, importId: string, now: number) {
  const byId = new Map<string, { item: MemoryItem; input: MemoryInput }>();
  for (const input of inputs) {
    const item = createItem(input, now);
    item.source = { ...item.source, importId };
    byId.set(item.id, { item, input }); // a later copy of the same id in one import wins
  }
  const counts: ImportCounts = { added: 0, updated: 0, unchanged: 0 };
  const changed: MemoryItem[] = [];
  const reembed: string[] = [];
  for (const [id, { item: fresh, input }] of byId) {
    const old = stored(id);
    if (!old) {
      counts.added++;
      changed.push(fresh);
      continue;
    }
    const merged = keepDecisions(fresh, old, input);
    if (sameContent(merged, old)) {
      counts.unchanged++;
      continue;
    }
    counts.updated++;
    changed.push(merged);
    if (embedText(old) !== embedText(merged) || !!old.needsReview !== !!merged.needsReview) reembed.push(id);
  }
  return { counts, changed, reembed };
}
