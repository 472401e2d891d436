/**
 * When a mail was written, from the best evidence it carries: its Date header, else the mbox "From " line its
 * mailbox wrote on delivery, else the Received headers its servers added. A date that cannot be read, or one before
 * 1980 or in the future (clocks set to 3609 happen), is no evidence (lib/import/dates.ts). Without any, the mail is undated: Backstory says
 * so rather than taking the import time for the mail's own.
 */

import { plausibleTime } from './dates';

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];



/** An RFC 5322 date ("Tue, 12 Oct 2010 16:21:05 -0400 (EDT)"); comments and odd spacing tolerated. */
export function headerDate(value: string | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const s = value.replace(/\([^()]*\)/g, ' ').replace(/\s+/g, ' ').trim();
  // Only a date with a day, a month name and a year: Date.parse also takes "1" or "Wg>" for some date.
  if (!/\b\d{1,2}\s+[A-Za-z]{3}[a-z]*\.?\s+\d{2,4}\b/.test(s) && !/^\d{4}-\d\d-\d\d/.test(s)) return undefined;
  return plausibleTime(Date.parse(s), now);
}

/**
 * The date of an mbox "From " line: asctime ("Sun May  8 19:07:09 2005", UTC by convention), sometimes with a zone
 * before the year ("Mon Mar 03 10:00:00 +0000 2026", Gmail).
 */
export function envelopeDate(line: string | undefined, now = Date.now()): number | undefined {
  const m = line && /\b([A-Z][a-z]{2})\s+(\d{1,2})\s+(\d{1,2}):(\d\d)(?::(\d\d))?\s+(?:([+-])(\d\d)(\d\d)\s+)?(\d{4})\s*$/.exec(line.trim());
  if (!m) return undefined;
  const month = MONTHS.indexOf(m[1].toLowerCase());
  if (month < 0) return undefined;
  const offset = m[6] ? (m[6] === '-' ? -1 : 1) * (Number(m[7]) * 60 + Number(m[8])) * 60_000 : 0;
  return plausibleTime(Date.UTC(Number(m[9]), month, Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5] ?? 0)) - offset, now);
}

/** The date the first Received header that has one ends with ("…; Mon, 30 Jun 2008 02:34:00 -0700"): the last hop's. */
function receivedDate(received: string[], now: number): number | undefined {
  for (const r of received) {
    const at = r.lastIndexOf(';');
    const t = at >= 0 ? headerDate(r.slice(at + 1), now) : undefined;
    if (t !== undefined) return t;
  }
  return undefined;
}

/** The mail's date as epoch milliseconds, or undefined when nothing it carries can be trusted. */
export function mailDate(evidence: { date?: string; envelope?: string; received: string[] }, now = Date.now()): number | undefined {
  return headerDate(evidence.date, now) ?? envelopeDate(evidence.envelope, now) ?? receivedDate(evidence.received, now);
}
