/**
 * FNV-1a of a text (the pack's fingerprints, the same-text index, context prints; matches are confirmed where it
 * matters). `from`: the hash of what came before, so texts are hashed one after another as if joined, without
 * copying them into one string.
 */
export function textHash(s: string, from = 0x811c9dc5): number {
  let h = from;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
