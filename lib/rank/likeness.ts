import { cosine } from '../embed/embedder';

/** Share of words two items have in common, of all the words either has (0 when neither has any). */
export function wordOverlap(a: Set<string>, b: Set<string>): number {
  let inter = 0;
  for (const x of a) if (b.has(x)) inter++;
  const union = a.size + b.size - inter;
  return union ? inter / union : 0;
}

/**
 * How alike two items are: the cosine of their embeddings when both have one of the same model, else the overlap of
 * their words (asked for only then). The two scales differ, so `by` says which one `value` is on.
 */
export function likeness(
  va: Float32Array | undefined,
  vb: Float32Array | undefined,
  words: () => [Set<string>, Set<string>],
): { by: 'meaning' | 'words'; value: number } {
  if (va && vb && va.length === vb.length) return { by: 'meaning', value: cosine(va, vb) };
  const [a, b] = words();
  return { by: 'words', value: wordOverlap(a, b) };
}
