/**
 * Times an import may trust. A source's date is kept only when it could be when the text was written: after 1980
 * (a zip's "no date" is 1980-01-01, a Unix "no date" 1970) and not in the future beyond a day of clock skew. A time
 * in milliseconds written where seconds belong lands in the year 50,000 and is refused like any absurd year.
 */
const EARLIEST = Date.UTC(1980, 0, 2);
const SKEW = 36 * 3600 * 1000;

export function plausibleTime(t: number | undefined | null, now = Date.now()): number | undefined {
  return typeof t === 'number' && Number.isFinite(t) && t >= EARLIEST && t <= now + SKEW ? t : undefined;
}

/** A time from text (ISO 8601, "March 3, 2023 10:12 AM", a YAML date), when it parses to a plausible time. */
export function plausibleDate(v: unknown, now = Date.now()): number | undefined {
  if (v instanceof Date) return plausibleTime(v.getTime(), now);
  if (typeof v === 'number') return plausibleTime(v, now);
  if (typeof v !== 'string' || !v.trim()) return undefined;
  return plausibleTime(Date.parse(v.trim()), now);
}

/**
 * The dates of an item: the first plausible of `created` (in order of trust), `updated` when later, and `undated`
 * when the source gave none, so recency does not take the import time for the time it was written.
 */
export function itemDates(created: (number | undefined)[], updated: (number | undefined)[] = []): { createdAt?: number; updatedAt?: number; undated?: true } {
  const createdAt = created.find((t) => t !== undefined);
  const updatedAt = updated.find((t) => t !== undefined);
  if (createdAt === undefined) return updatedAt === undefined ? { undated: true } : { createdAt: updatedAt };
  return updatedAt !== undefined && updatedAt > createdAt ? { createdAt, updatedAt } : { createdAt };
}
