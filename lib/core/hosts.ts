/** Hosts as Backstory compares them: one rule for "this site", used by settings, capture, ranking and learning. */

const keys = new Map<string, string>();

/** A site as compared: lower case, without "www.". Memoised: the ranker asks for the same few sites per candidate. */
export function siteKey(site: string): string {
  let got = keys.get(site);
  if (got === undefined) {
    if (keys.size > 10_000) keys.clear();
    keys.set(site, (got = site.toLowerCase().replace(/^www\./, '')));
  }
  return got;
}

/** Lower-case host of a URL, or '' when it is not one. */
export function hostOf(url: string | undefined): string {
  if (!url) return '';
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return '';
  }
}

/** True when `site` is `host` or one of its subdomains (mail.google.com is on google.com; evilgoogle.com is not). */
export function onHost(site: string | undefined, host: string): boolean {
  const s = siteKey(site ?? '');
  const h = siteKey(host);
  return !!s && !!h && (s === h || s.endsWith('.' + h));
}

/** True when `site` is on any host of the list (a settings list of sites, the chat assistants' hosts). */
export function siteListed(list: readonly string[] | undefined, site: string | undefined): boolean {
  return !!list?.some((h) => onHost(site, h));
}
