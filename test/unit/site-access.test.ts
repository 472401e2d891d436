import { describe, expect, it } from 'vitest';
import { accessFor, FIRST_CLASS_HOSTS, FIRST_CLASS_PATTERNS, hostOfPattern, isRemovable, readablePatterns } from '../../lib/sites/site-access';
import { ADAPTERS } from '../../lib/sites/index';

describe('the site a page asks access for', () => {
  it('is the scheme and host of the page, every path', () => {
    expect(accessFor('https://example.com/some/path?q=1#x')).toEqual({ kind: 'askable', host: 'example.com', pattern: 'https://example.com/*' });
    expect(accessFor('https://docs.example.com/')).toEqual({ kind: 'askable', host: 'docs.example.com', pattern: 'https://docs.example.com/*' });
  });

  it('keeps http and https apart: allowing one does not allow the other', () => {
    expect(accessFor('http://example.com/a')).toMatchObject({ pattern: 'http://example.com/*' });
    expect(accessFor('https://example.com/a')).toMatchObject({ pattern: 'https://example.com/*' });
  });

  it('leaves the port out (Firefox patterns have none; Chrome’s portless pattern covers every port)', () => {
    expect(accessFor('http://127.0.0.1:5757/demo/compose.html')).toEqual({ kind: 'askable', host: '127.0.0.1', pattern: 'http://127.0.0.1/*' });
    expect(accessFor('http://localhost:3000/')).toMatchObject({ pattern: 'http://localhost/*' });
    expect(accessFor('http://[::1]:8080/x')).toMatchObject({ pattern: 'http://[::1]/*' });
  });

  it('refuses files and browser pages with a reason a person can read', () => {
    const refused = (url: string) => {
      const a = accessFor(url);
      if (a.kind !== 'refused') throw new Error(`${url} was askable`);
      return a.reason;
    };
    expect(refused('file:///home/me/notes.html')).toMatch(/files on your computer/);
    expect(refused('chrome://extensions/')).toMatch(/browser page \(chrome:\)/);
    expect(refused('chrome-extension://abc/sidepanel.html')).toMatch(/browser page/);
    expect(refused('about:blank')).toMatch(/browser page \(about:\)/);
    expect(refused('view-source:https://example.com/')).toMatch(/browser page/);
    expect(refused('https://chromewebstore.google.com/detail/x')).toMatch(/extension store/);
    expect(refused('https://chrome.google.com/webstore/category/extensions')).toMatch(/extension store/);
    expect(refused('not a url')).toMatch(/not a web address/);
    expect(refused('')).toMatch(/no page/);
  });
});

describe('granted patterns', () => {
  it('registers the content script only for web patterns, each once, in a stable order', () => {
    expect(readablePatterns(['https://claude.ai/*', '<all_urls>', 'chrome://favicon/*', 'http://127.0.0.1/*', 'https://claude.ai/*', '*://*.example.com/*']))
      .toEqual(['*://*.example.com/*', 'http://127.0.0.1/*', 'https://claude.ai/*']);
    expect(readablePatterns(undefined)).toEqual([]);
  });

  it('lets the user take back sites they allowed, not the built-in ones', () => {
    expect(isRemovable('https://example.com/*')).toBe(true);
    for (const p of FIRST_CLASS_PATTERNS) expect(isRemovable(p)).toBe(false);
    expect(hostOfPattern('https://example.com/*')).toBe('example.com');
    expect(hostOfPattern('*://*.example.com/*')).toBe('*.example.com');
  });

  it('asks up front exactly for the sites that have their own adapter', () => {
    for (const host of FIRST_CLASS_HOSTS) {
      // On the path the adapter reads (Docs' documents, X's Grok, M365's chat): the rest of the host is not asked for.
      const path = ADAPTERS.find((a) => a.hosts.includes(host))?.path ?? '/document/d/';
      const loc = new URL(`https://${host}${path}x`) as unknown as Location;
      expect(ADAPTERS.find((a) => a.matches(loc))?.name, host).not.toBe('generic');
    }
    expect(FIRST_CLASS_PATTERNS).toEqual([...new Set(ADAPTERS.flatMap((a) => a.hosts.map((h) => `https://${h}${a.path ?? '/'}*`)))]);
  });
});

describe('Google Docs: documents only', () => {
  const FORM = 'https://docs.google.com/forms/d/e/1FAIpQLSfakeform/viewform';
  it('asks for Docs documents, not for all of docs.google.com (Google Forms there is anyone’s to author)', () => {
    expect(FIRST_CLASS_PATTERNS).toContain('https://docs.google.com/document/*');
    expect(FIRST_CLASS_PATTERNS).not.toContain('https://docs.google.com/*');
  });

  it('a Form, a Sheet or a Slide on docs.google.com is not read and cannot be allowed; a document is read', () => {
    for (const url of [FORM, 'https://docs.google.com/spreadsheets/d/x/edit', 'https://docs.google.com/presentation/d/x/edit', 'https://docs.google.com/']) {
      const a = accessFor(url);
      expect(a.kind, url).toBe('refused');
      if (a.kind === 'refused') expect(a.reason).toMatch(/reads only docs\.google\.com\/document\/ on docs\.google\.com/);
    }
    expect(accessFor('https://docs.google.com/document/d/1NwPlan2027/edit')).toEqual({
      kind: 'askable', host: 'docs.google.com', pattern: 'https://docs.google.com/document/*',
    });
  });

  it('registers the content script for documents only, though the browser reports the whole host as granted', () => {
    // What Chromium's permissions.getAll() gives for the manifest's https://docs.google.com/document/* (seen in the e2e run).
    expect(readablePatterns(['https://docs.google.com/*', 'https://docs.google.com/document/*', 'https://claude.ai/*'])).toEqual([
      'https://claude.ai/*', 'https://docs.google.com/document/*',
    ]);
    // And the options page shows it as the built-in entry it is, not as a site the user could take back.
    for (const p of readablePatterns(['https://docs.google.com/*'])) expect(isRemovable(p)).toBe(false);
  });
});
