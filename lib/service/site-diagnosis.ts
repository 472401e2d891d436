import { browser } from 'wxt/browser';
import { hostOf } from '../core/hosts';
import type { SiteDiagnosis } from '../messaging/protocol';
import { boundReading } from '../rank/reading-bounds';
import type { TaskReading } from '../rank/types';
import { fieldOnly } from '../sites/landmarks';
import type { PageBridge } from './page-bridge';
import type { TabReadingStore } from './tab-reading-store';

/**
 * "Diagnose this page": what Backstory sees of a page's structure, for a bug report. The tab is the one asked for, or
 * the active tab of the last focused window unless that is one of Backstory's own pages (the options page itself),
 * else the tab whose page reported last. The page is read again when it can be; the report keeps only the host and
 * the landmarks' names, so nothing the user wrote is in it. Nothing leaves the device.
 */
export async function diagnoseSite(tasks: TabReadingStore, bridge: PageBridge, tabId?: number): Promise<SiteDiagnosis> {
  let id = tabId;
  if (id === undefined) {
    const [active] = await browser.tabs.query({ active: true, lastFocusedWindow: true }).catch(() => []);
    const own = browser.runtime.getURL('/');
    if (active?.id !== undefined && active.url && !active.url.startsWith(own)) id = active.id;
    else id = (await tasks.newest())?.tabId;
  }
  if (id === undefined) return { found: [], missing: [], fieldOnly: false, problem: 'No page has been read yet: open the page, click into the field you write in, and try again.' };
  let reading: TaskReading | undefined;
  try {
    reading = boundReading(await bridge.call(id, 'page:read', {}));
  } catch {
    reading = await tasks.get(id);
  }
  if (!reading) return { found: [], missing: [], fieldOnly: false, problem: 'Backstory could not read that page (it may not be allowed there, or the page is a browser page).' };
  const site = hostOf(reading.url) || reading.site;
  const lm = reading.landmarks;
  if (!lm) {
    return { site, found: [], missing: [], fieldOnly: false, at: reading.at, problem: 'Backstory has no site adapter for this page: it reads the focused field and the headings around it.' };
  }
  return { site, adapter: lm.adapter, label: lm.label, found: lm.found, missing: lm.missing, fieldOnly: fieldOnly(lm), at: reading.at };
}
