import { browser } from 'wxt/browser';
import { accessFor, readablePatterns } from '../sites/site-access';
import { heldSyncOrigins } from '../sites/sync-host';

/** The content script runs only on sites the user let Backstory read: registered at runtime for exactly those. */
export const CONTENT_SCRIPT_ID = 'backstory-content';
export const CONTENT_SCRIPT_FILE = '/content-scripts/content.js';
/** One-shot responder for "Remember this" and the insert shortcut on other sites (the browser's activeTab grant). */
export const PAGE_ACTIONS_FILE = '/page-actions.js';

/** What the panel tells the user about reading the tab's page. */
export type TabAccess = { state: 'granted' } | { state: 'ask'; host: string; pattern: string } | { state: 'refused'; reason: string };

export class ContentRegistration {
  private chain: Promise<unknown> = Promise.resolve();

  /**
   * True when Backstory may read pages at this URL now (granted, and not withheld in the browser's settings, nor
   * granted for sync's WebDAV server alone).
   */
  async allows(url: string | undefined): Promise<boolean> {
    const access = accessFor(url);
    if (access.kind !== 'askable') return false;
    try {
      if ((await heldSyncOrigins()).includes(access.pattern)) return false;
      return await browser.permissions.contains({ origins: [access.pattern] });
    } catch {
      return false;
    }
  }

  async tabAccess(tabId: number): Promise<TabAccess> {
    let url: string | undefined;
    try {
      url = (await browser.tabs.get(tabId)).url;
    } catch {
      return { state: 'refused', reason: 'That tab is gone.' };
    }
    const access = accessFor(url);
    if (access.kind === 'refused') return { state: 'refused', reason: access.reason };
    return (await this.allows(url)) ? { state: 'granted' } : { state: 'ask', host: access.host, pattern: access.pattern };
  }

  /**
   * Brings the registered content script in step with the granted sites. Runs one at a time: grants can arrive
   * together with a worker start, and two overlapping registrations would make the second throw.
   */
  sync(): Promise<void> {
    const run = this.chain.then(() => this.syncNow());
    this.chain = run.catch(() => {});
    return run;
  }

  private async syncNow(): Promise<void> {
    // The WebDAV server sync writes to is granted for sync alone: its pages are not read.
    const reserved = new Set(await heldSyncOrigins());
    const matches = readablePatterns((await browser.permissions.getAll()).origins?.filter((o) => !reserved.has(o)));
    const [existing] = await browser.scripting.getRegisteredContentScripts({ ids: [CONTENT_SCRIPT_ID] });
    if (!matches.length) {
      if (existing) await browser.scripting.unregisterContentScripts({ ids: [CONTENT_SCRIPT_ID] });
      return;
    }
    if (existing && [...(existing.matches ?? [])].sort().join('\n') === matches.join('\n')) return;
    const script = { id: CONTENT_SCRIPT_ID, matches, js: [CONTENT_SCRIPT_FILE], allFrames: true, runAt: 'document_idle' as const, persistAcrossSessions: true };
    if (existing) await browser.scripting.updateContentScripts([script]);
    else {
      // Every worker start syncs again, so a browser that cannot keep registrations across restarts still works.
      await browser.scripting.registerContentScripts([script]).catch(() => browser.scripting.registerContentScripts([{ ...script, persistAcrossSessions: false }]));
    }
  }

  /** Pages already open on newly granted sites get the content script now, without a reload. */
  async injectInto(patterns: string[]): Promise<void> {
    const reserved = await heldSyncOrigins();
    const readable = readablePatterns(patterns.filter((p) => !reserved.includes(p)));
    if (!readable.length) return;
    const tabs = await browser.tabs.query({ url: readable });
    await Promise.all(
      tabs.map((t) =>
        t.id === undefined
          ? undefined
          : browser.scripting.executeScript({ target: { tabId: t.id, allFrames: true }, files: [CONTENT_SCRIPT_FILE] }).catch(() => {}),
      ),
    );
  }

  /** Puts the one-shot responder into a page the user just invoked Backstory on (works only with activeTab or a grant). */
  async injectPageActions(tabId: number, frameId: number): Promise<void> {
    await browser.scripting.executeScript({ target: { tabId, frameIds: [frameId] }, files: [PAGE_ACTIONS_FILE] });
  }
}
