/**
 * Which sites Backstory may read, as pure logic (no browser calls): the host-permission pattern to ask for on a
 * page, the reason when a page can never be asked for, and the first-class sites that are asked for at install.
 * The browser side (asking, watching grants, registering the content script) is in content-registration.ts.
 */

import { ADAPTER_HOSTS, ADAPTER_PATTERNS } from './index';

/** Sites with their own adapter (declared on the adapters): read without asking (the manifest's host_permissions). */
export const FIRST_CLASS_HOSTS: readonly string[] = ADAPTER_HOSTS;
/** Their pages, narrowed to a path where the adapter reads only part of a host (Google Docs: documents, not Forms). */
export const FIRST_CLASS_PATTERNS: string[] = ADAPTER_PATTERNS;

/**
 * The narrowed patterns of a built-in host that is read under some paths only, or none. Browsers grant a host
 * permission for the whole host whatever its path says, so where Backstory reads is narrowed by these instead.
 */
function narrowedFor(host: string): string[] {
  return FIRST_CLASS_PATTERNS.filter((p) => hostOfPattern(p) === host && !p.endsWith(`://${host}/*`));
}

/** What the panel can do about a page: it is readable, it can be asked for, or it never can be. */
export type PageAccess =
  | { kind: 'askable'; host: string; pattern: string }
  | { kind: 'refused'; reason: string };

/** Chrome's own stores, where no extension may run, whatever the user allows. */
const STORE_HOSTS = new Set(['chromewebstore.google.com', 'addons.mozilla.org']);

/**
 * The pattern that grants a page's site: its scheme and host, every path. Ports are left out because Firefox's match
 * patterns have none and Chrome's portless pattern covers every port; http and https are separate grants.
 */
export function accessFor(url: string | undefined): PageAccess {
  if (!url) return { kind: 'refused', reason: 'There is no page in this tab.' };
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return { kind: 'refused', reason: `“${url}” is not a web address.` };
  }
  if (u.protocol === 'file:') return { kind: 'refused', reason: 'Backstory does not read files on your computer, only web pages.' };
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    return { kind: 'refused', reason: `This is a browser page (${u.protocol.replace(/:$/, '')}:); browsers let no extension read it.` };
  }
  if (!u.hostname) return { kind: 'refused', reason: 'This page has no site name.' };
  if (STORE_HOSTS.has(u.hostname) || (u.hostname === 'chrome.google.com' && u.pathname.startsWith('/webstore'))) {
    return { kind: 'refused', reason: 'This is the browser’s extension store; browsers let no extension read it.' };
  }
  const narrowed = narrowedFor(u.hostname);
  if (narrowed.length) {
    // A built-in site's other pages (Google Forms on docs.google.com) are not read, and cannot be allowed.
    const own = narrowed.find((p) => `${u.protocol}//${u.hostname}${u.pathname}`.startsWith(p.slice(0, -1)));
    if (!own) return { kind: 'refused', reason: `Backstory reads only ${narrowed.map((p) => p.replace(/^https:\/\//, '').replace(/\*$/, '')).join(', ')} on ${u.hostname}, not this page.` };
    return { kind: 'askable', host: u.hostname, pattern: own };
  }
  return { kind: 'askable', host: u.hostname, pattern: `${u.protocol}//${u.hostname}/*` };
}

/** Granted origins that a content script can be registered for (drops <all_urls>-style and non-web patterns). */
export function readablePatterns(origins: readonly string[] | undefined): string[] {
  const web = (origins ?? []).filter((o) => /^(https?|\*):\/\/[^/]+\/.*$/.test(o));
  // A grant of a built-in host read under some paths only stays narrowed to them (the browser reports the host).
  return [...new Set(web.flatMap((o) => (narrowedFor(hostOfPattern(o)).length ? narrowedFor(hostOfPattern(o)) : [o])))].sort();
}

/** A grant the user can take back here (optional); required first-class sites are changed in the browser's settings. */
export function isRemovable(pattern: string, required: readonly string[] = FIRST_CLASS_PATTERNS): boolean {
  return !required.includes(pattern);
}

/** The host a pattern names, for people: "https://example.com/*" -> "example.com", "*://*.example.com/*" -> "*.example.com". */
export function hostOfPattern(pattern: string): string {
  const m = /^[^:]+:\/\/([^/]+)\//.exec(pattern);
  return m ? m[1] : pattern;
}
