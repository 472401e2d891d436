/** The keys the in-memory index lists items under ('person:<key>', 'site:<host>'), shared with the ranker's situation match. */

/** Lower-case host of a URL, or '' when it is not one. */
export function hostOf(url: string): string {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return '';
  }
}

/** One normalised key for a person: the email address when there is one, else the lower-cased name. */
export function personKey(p: string): string {
  const email = p.match(/[^\s<>"']+@[^\s<>"']+/);
  if (email) return email[0].toLowerCase();
  return p.replace(/[<>"]/g, '').trim().toLowerCase().replace(/\s+/g, ' ');
}
