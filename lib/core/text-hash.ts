/** FNV-1a of a text (the pack's fingerprints, the same-text index, context prints; matches are confirmed where it matters). */
export function textHash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
