/**
 * The last x in [from, to] for which `holds(x)` is true, by halving: `holds` must be true at `from` and, once false,
 * stay false for every larger x (a test on a running total that only grows). `from` when nothing after it holds.
 */
export function lastWhere(from: number, to: number, holds: (x: number) => boolean): number {
  let a = from;
  let b = to;
  while (a < b) {
    const mid = b - ((b - a) >> 1);
    if (holds(mid)) a = mid;
    else b = mid - 1;
  }
  return a;
}
