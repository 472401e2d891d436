import { describe, expect, it } from 'vitest';
import { onHost, siteKey } from '../../lib/core/hosts';
import { createItem } from '../../lib/memory/normalize';
import { outOfScope } from '../../lib/rank/scope';
import { explicitlyTied } from '../../lib/rank/situation';
import type { TaskReading } from '../../lib/rank/types';
import { withSitePaused } from '../../lib/settings/settings';
import { DEFAULT_UI } from '../../lib/settings/defaults';
import { captureAllowed } from '../../lib/sites/capture-sent';
import { isChatSite } from '../../lib/service/phrase-offers';

// [the page's site, a site the user named, whether the page is on it]
const CASES: [string, string, boolean][] = [
  ['mail.google.com', 'mail.google.com', true],
  ['mail.google.com', 'google.com', true],
  ['WWW.Example.com', 'example.com', true],
  ['example.com', 'www.example.com', true],
  ['docs.example.com', 'example.com', true],
  ['evilexample.com', 'example.com', false],
  ['example.com.evil.test', 'example.com', false],
  ['example.com', 'docs.example.com', false],
  ['', 'example.com', false],
];

const task = (site: string): TaskReading => ({ url: `https://${site}/`, title: '', site, adapter: 'generic', destination: 'documents', field: { text: 'the plan', kind: 'textarea' }, at: 0 });

describe('"this site or one of its subdomains" is one rule', () => {
  it('the rule itself: case and "www." do not count, a look-alike host is not the site', () => {
    for (const [site, host, on] of CASES) expect(onHost(site, host), `${site} on ${host}`).toBe(on);
    expect(siteKey('WWW.Mail.Google.com')).toBe('mail.google.com');
  });

  it('capture, pausing, a site-tied item and a sites-scoped instruction all answer the same', () => {
    for (const [site, host, on] of CASES) {
      const what = `${site} on ${host}`;
      expect(captureAllowed({ captureSent: true, captureSites: [siteKey(host)], excludedSites: [] }, site), what).toBe(on);
      // Resuming a paused site resumes every listed host the page belongs to.
      expect(withSitePaused({ ...DEFAULT_UI, excludedSites: [siteKey(host)] }, site || 'x.test', false).excludedSites, what).toEqual(on ? [] : [siteKey(host)]);
      if (!site) continue;
      expect(explicitlyTied(createItem({ text: 'Use the shared drive', sites: [host] }), task(site)), what).toBe(on);
      const rule = createItem({ text: 'Sign off with Best', kind: 'instruction', scope: { kind: 'sites', values: [host], set: 'user' } });
      expect(outOfScope(rule, task(site)) === undefined, what).toBe(on);
    }
  });

  it('a chat assistant is told by the same rule', () => {
    expect(['chatgpt.com', 'WWW.perplexity.ai', 'eu.claude.ai'].map(isChatSite)).toEqual([true, true, true]);
    expect(['claude.ai.evil.test', 'notclaude.ai', ''].map(isChatSite)).toEqual([false, false, false]);
  });
});
