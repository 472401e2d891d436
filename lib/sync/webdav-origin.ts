/** A WebDAV folder URL as the user typed it, checked, and the one origin Backstory asks permission for. */
export type WebdavOrigin = { ok: true; url: string; host: string; pattern: string } | { ok: false; error: string };

/**
 * Only http(s), no credentials in the URL (they go in the fields, never into a URL that may be logged), and plain
 * http only to this machine: a password and ciphertext sent in the clear to another host could be read on the way.
 */
export function webdavOrigin(input: string): WebdavOrigin {
  let u: URL;
  try {
    u = new URL(input.trim());
  } catch {
    return { ok: false, error: 'Enter the WebDAV folder’s address, starting with https://.' };
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') return { ok: false, error: 'The WebDAV address must start with https://.' };
  if (u.username || u.password) return { ok: false, error: 'Put the user and password in their own fields, not in the address.' };
  const local = u.hostname === 'localhost' || u.hostname === '[::1]' || /^127(\.\d{1,3}){3}$/.test(u.hostname);
  if (u.protocol === 'http:' && !local) return { ok: false, error: 'Use https:// for a WebDAV server on another machine: over http:// your password would cross the network readable.' };
  u.hash = '';
  u.search = '';
  if (!u.pathname.endsWith('/')) u.pathname += '/';
  return { ok: true, url: u.href, host: u.host, pattern: `${u.protocol}//${u.hostname}/*` };
}
