import type { MemoryItem, MemoryPatch } from '../memory/types';
import { LexicalIndex } from '../memory/index/lexical-index';
import { terms } from '../memory/index/tokenize';
import { wordOverlap } from '../rank/likeness';
import type { MemoryView } from '../memory/index/memory-view';

/** Share of words two texts have in common (of all the words either has) above which they say the same thing. */
const SAME = 0.7;

function overlap(a: string, b: string): number {
  return wordOverlap(new Set(terms(a)), new Set(terms(b)));
}

/** An item already in memory that a new capture nearly repeats (the best such), so the user can merge them. */
export async function nearDuplicate(item: MemoryItem, memory: MemoryView): Promise<{ item: MemoryItem; overlap: number } | undefined> {
  let best: { item: MemoryItem; overlap: number } | undefined;
  const hits = memory.lexicalIndex.search(LexicalIndex.queryTerms(item.text.slice(0, 2000)), 8) ?? [];
  const others = await memory.hydrate(hits.map((h) => h.id).filter((id) => id !== item.id), false);
  for (const other of others.values()) {
    if (!other || other.archived) continue;
    const o = overlap(item.text, other.text);
    if (o >= SAME && (!best || o > best.overlap)) best = { item: other, overlap: o };
  }
  return best;
}

/**
 * Merging a capture into the item it repeats: the earlier item keeps its id, pins and history and takes the newer
 * text (the capture is the fresher copy) and the union of people, tags and sites; the capture is then removed.
 */
export function mergePatch(kept: MemoryItem, capture: MemoryItem): MemoryPatch {
  const union = (a: string[], b: string[]) => [...new Set([...a, ...b])];
  return {
    text: capture.text.length >= kept.text.length ? capture.text : kept.text,
    people: union(kept.people, capture.people),
    tags: union(kept.tags, capture.tags),
    sites: union(kept.sites, capture.sites),
  };
}
