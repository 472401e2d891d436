/**
 * Building blocks for reading markup in time linear in its length. A file decides what its text holds, and a
 * pattern such as /\[([^\]]*)\]\(/ retried at each of 100,000 "[" scans to the end each time; these scanners look up
 * the next closing character once and reuse the answer while the scan moves forward.
 */

/** Where a string (a character, or "</a") next occurs at or after a position, each answer reused while still ahead. */
export class NextOf {
  private readonly at = new Map<string, { from: number; found: number }>();
  constructor(private readonly s: string) {}

  /** The index of `what` at or after `from`, or -1. */
  find(what: string, from: number): number {
    const got = this.at.get(what);
    if (got && got.from <= from && (got.found === -1 || got.found >= from)) return got.found;
    const found = this.s.indexOf(what, from);
    this.at.set(what, { from, found });
    return found;
  }

  /** The first of several strings at or after `from`: [index, which], or [-1, -1]. */
  first(whats: readonly string[], from: number): [number, number] {
    let best = -1;
    let which = -1;
    for (let k = 0; k < whats.length; k++) {
      const i = this.find(whats[k], from);
      if (i >= 0 && (best < 0 || i < best)) {
        best = i;
        which = k;
      }
    }
    return [best, which];
  }
}

/** One rewrite found at a position: the text that replaces s.slice(at, end). */
export interface Rewrite {
  end: number;
  text: string;
}

/**
 * Rewrites `s` left to right like a global replace: at each occurrence of `opener`, `at` says whether a rewrite
 * starts there; a rewrite's end is where the scan goes on, and an occurrence that starts none is kept as it is.
 */
export function rewriteAt(s: string, opener: string, at: (i: number, next: NextOf) => Rewrite | undefined): string {
  const next = new NextOf(s);
  let out = '';
  let kept = 0;
  let changed = false;
  let i = s.indexOf(opener);
  while (i >= 0) {
    const r = at(i, next);
    if (r) {
      out += s.slice(kept, i) + r.text;
      kept = r.end;
      changed = true;
      i = s.indexOf(opener, r.end);
    } else i = s.indexOf(opener, i + 1);
  }
  return changed ? out + s.slice(kept) : s;
}

/** `s` without the spans from `open` to the next `close` (an `open` with no `close` after it is kept). */
export function withoutSpans(s: string, open: string, close: string): string {
  return rewriteAt(s, open, (i, next) => {
    const c = next.find(close, i + open.length);
    return c < 0 ? undefined : { end: c + close.length, text: '' };
  });
}

/** ASCII letters lower-cased and nothing else, so indexes stay those of `s` (toLowerCase may change lengths). */
export function asciiLower(s: string): string {
  return s.replace(/[A-Z]+/g, (m) => m.toLowerCase());
}
