/** The keys the in-memory index lists items under ('person:<key>', 'site:<host>', 'url:<url>'), shared with the ranker's situation match. */
import { hostOf } from '../../core/hosts';
import type { ItemHead } from '../types';

/** Characters that end an address in "Name <bob@x.com>" or '"Bob" bob@x.com'. */
const ADDRESS_END = /[\s<>"']+/;

/**
 * The first address in a person string: the first run of characters between white space, brackets and quotes with
 * an "@" inside it. A scan, not a backtracking pattern: a page writes these strings and may make them long.
 */
function firstAddress(p: string): string | undefined {
  if (!p.includes('@')) return undefined;
  for (const run of p.split(ADDRESS_END)) {
    const at = run.indexOf('@', 1);
    if (at > 0 && at < run.length - 1) return run;
  }
  return undefined;
}

/** A person string with its <…> parts taken out ("Bob Smith <bob@x.com>" → "Bob Smith "), in one pass. */
export function personName(p: string): string {
  let out = '';
  let open = -1;
  let kept = 0;
  for (let i = 0; i < p.length; i++) {
    if (open < 0 && p[i] === '<') open = i;
    else if (open >= 0 && p[i] === '>') {
      out += p.slice(kept, open);
      kept = i + 1;
      open = -1;
    }
  }
  // An unclosed "<" keeps what follows it.
  return out + p.slice(kept);
}

const spaced = (s: string) => s.trim().toLowerCase().replace(/\s+/g, ' ');

/** One normalised key for a person: the email address when there is one, else the lower-cased name. */
export function personKey(p: string): string {
  const email = firstAddress(p);
  if (email) return email.toLowerCase();
  return spaced(p.replace(/[<>"]/g, ''));
}

/** Keys under which an item is listed for `MemoryView.situated`: person, site, URL. */
export function situationKeys(item: ItemHead): string[] {
  const keys: string[] = [];
  for (const p of item.people) keys.push('person:' + personKey(p));
  for (const s of item.sites) keys.push('site:' + s.toLowerCase());
  const url = item.source?.url;
  if (url) {
    keys.push('url:' + url);
    const h = hostOf(url);
    if (h) keys.push('site:' + h);
  }
  return keys;
}
