/** Where a secret sits in a text: the span a review can point at or mask. */
export interface SecretHit {
  /** What it is, in the words the review shows ("AWS secret key", "card number"). */
  kind: string;
  start: number;
  end: number;
}

/**
 * Past this many hits of one shape the text is surely held already; stopping bounds the list a hostile page or file
 * can make us build. (Rejected look-alikes are not counted: a thousand order numbers must not hide the card after them.)
 */
export const MAX_MATCHES_PER_SHAPE = 25;

/**
 * Runs a global regex over the text once, left to right, handing each match to `onMatch`, which returns the hit to
 * keep or null. Regexes given here must have only bounded quantifiers (or none that can overlap), so each attempt
 * costs a constant and the whole scan stays linear in the text's length.
 */
export function scanMatches(re: RegExp, text: string, onMatch: (m: RegExpExecArray) => SecretHit | null): SecretHit[] {
  const hits: SecretHit[] = [];
  re.lastIndex = 0;
  for (let m = re.exec(text); m && hits.length < MAX_MATCHES_PER_SHAPE; m = re.exec(text)) {
    if (m[0] === '') re.lastIndex++;
    const hit = onMatch(m);
    if (hit) hits.push(hit);
  }
  re.lastIndex = 0;
  return hits;
}

/** The span of capture group `group` (the regex needs the `d` flag), or of the whole match. */
export function spanOf(m: RegExpExecArray, group = 0): { start: number; end: number } {
  const at = m.indices?.[group];
  return at ? { start: at[0], end: at[1] } : { start: m.index, end: m.index + m[0].length };
}
