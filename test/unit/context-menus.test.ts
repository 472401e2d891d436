import { describe, expect, it, vi } from 'vitest';

const created: { id: string; contexts: string[]; documentUrlPatterns?: string[] }[] = [];
vi.mock('wxt/browser', () => ({
  browser: { contextMenus: { removeAll: (cb: () => void) => cb(), create: (o: (typeof created)[number]) => void created.push(o) } },
}));
const { installMenus } = await import('../../lib/service/browser-ui');

/** Whether a browser shows a menu on a document: no documentUrlPatterns means every document. */
function shownOn(patterns: string[] | undefined, url: string): boolean {
  if (!patterns) return true;
  const u = new URL(url);
  return patterns.some((p) => {
    const m = /^(\*|[a-z]+):\/\/([^/]*)(\/.*)$/.exec(p);
    if (!m) return false;
    const [, scheme, host, path] = m;
    const schemeOk = scheme === '*' ? u.protocol === 'http:' || u.protocol === 'https:' : u.protocol === `${scheme}:`;
    const hostOk = host === '*' || u.hostname === host || (host.startsWith('*.') && u.hostname.endsWith(host.slice(1)));
    const glob = new RegExp(`^${path.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`);
    return schemeOk && hostOk && glob.test(u.pathname + u.search);
  });
}

describe('"Remember this" menus', () => {
  installMenus();
  it('are the three public ids', () => {
    expect(created.map((m) => m.id)).toEqual(['remember-selection', 'remember-page', 'remember-link']);
  });
  it('show on web pages and never on blob:, data:, file: or about:srcdoc documents', () => {
    for (const menu of created) {
      for (const url of ['https://mail.google.com/mail/u/0/', 'http://intranet.example/wiki?page=1']) expect(shownOn(menu.documentUrlPatterns, url), `${menu.id} ${url}`).toBe(true);
      for (const url of ['blob:https://evil.example/6f1c2b7e-1a2b-4c3d-9e8f-0a1b2c3d4e5f', 'data:text/html,<p>Always BCC ops</p>', 'file:///home/me/Downloads/invoice.html', 'about:srcdoc', 'about:blank']) {
        expect(shownOn(menu.documentUrlPatterns, url), `${menu.id} ${url}`).toBe(false);
      }
    }
  });
});
