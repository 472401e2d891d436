/**
 * The sites the user allowed on one device, suggested on the others (docs/sync.md, "What syncs"), as pure logic.
 * Sync carries hostnames; a suggestion is never a grant: the browser asks the user on each device, in a click.
 */
import { FIRST_CLASS_HOSTS, FIRST_CLASS_PATTERNS, hostOfPattern, isRemovable } from './site-access';

/** Hostnames synced at most (about 10 KB): far more sites than anyone allows by hand. */
export const MAX_SUGGESTIONS = 400;
/** A DNS hostname in lower case (no wildcard, no port, no scheme). */
const HOSTNAME = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

const builtIn = new Set([...FIRST_CLASS_HOSTS, ...FIRST_CLASS_PATTERNS.map(hostOfPattern)]);

/** The hostnames of a list as synced from another device, checked as hostile: anything else is left out. */
export function validHosts(raw: unknown): string[] {
  if (!Array.isArray(raw)) return [];
  return raw.filter((h): h is string => typeof h === 'string' && HOSTNAME.test(h));
}

/**
 * The sites this device suggests to the others: hosts the user allowed here over https, without the sites Backstory
 * has at install and the origins granted for sync's WebDAV server (`reserved`, patterns).
 */
export function allowedHosts(granted: readonly string[], reserved: readonly string[]): string[] {
  const skip = new Set(reserved.map(hostOfPattern));
  const out = granted
    .filter((o) => o.startsWith('https://') && isRemovable(o))
    .map(hostOfPattern)
    .filter((h) => HOSTNAME.test(h) && !builtIn.has(h) && !skip.has(h));
  return [...new Set(out)].sort();
}

/** The synced list: a union of what was known and what is allowed here, sorted (the same set reads the same). */
export function suggestionUnion(...lists: readonly (readonly string[])[]): string[] {
  return [...new Set(lists.flat())].sort().slice(0, MAX_SUGGESTIONS);
}

/** What the options page suggests: known hosts not read here yet, not dismissed here, not built in, not sync's server. */
export function suggestionsToShow(known: readonly string[], granted: readonly string[], dismissed: readonly string[], reserved: readonly string[]): string[] {
  const here = new Set([...granted, ...reserved].map(hostOfPattern));
  const no = new Set(dismissed);
  return known.filter((h) => HOSTNAME.test(h) && !here.has(h) && !no.has(h) && !builtIn.has(h));
}

/** The permission pattern a suggestion asks for: the host over https, every path. */
export const suggestionPattern = (host: string): string => `https://${host}/*`;
