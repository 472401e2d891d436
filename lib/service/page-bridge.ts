import { browser } from 'wxt/browser';
import type { Req, Res } from '../channel/rpc';
import type { ContentProtocol } from '../messaging/protocol';
import { callTab, NoReceiverError } from '../messaging/rpc';
import { boundReading } from '../rank/reading-bounds';
import type { ContentRegistration } from './content-registration';
import type { TabReadingStore } from './tab-reading-store';

/** Requests to a tab's page, and the page's latest task reading. */
export class PageBridge {
  constructor(
    private readonly access: ContentRegistration,
    private readonly tasks: TabReadingStore,
  ) {}

  /**
   * A request to the page. With no content script there (a site the user has not allowed, or a page opened before
   * the grant), the one-shot responder is injected first; the browser allows that only with the site granted or
   * the activeTab grant a menu click or shortcut gives on that page, so anywhere else this fails with why.
   */
  async call<K extends keyof ContentProtocol>(tabId: number, type: K, payload: Req<ContentProtocol, K>, frameId = 0): Promise<Res<ContentProtocol, K>> {
    try {
      return await callTab(tabId, type, payload, frameId);
    } catch (e) {
      if (!(e instanceof NoReceiverError)) throw e;
      try {
        await this.access.injectPageActions(tabId, frameId);
      } catch {
        const access = await this.access.tabAccess(tabId);
        if (access.state === 'ask') throw new Error(`Backstory may not read ${access.host}: choose “Allow on ${access.host}” in the panel, or copy the card.`);
        if (access.state === 'refused') throw new Error(access.reason);
        throw e;
      }
      return callTab(tabId, type, payload, frameId);
    }
  }

  /** The same request to the frame the tab's task came from (an editor may live in an iframe). */
  callTaskFrame<K extends keyof ContentProtocol>(tabId: number, type: K, payload: Req<ContentProtocol, K>): Promise<Res<ContentProtocol, K>> {
    return this.call(tabId, type, payload, this.tasks.frameOf(tabId));
  }

  /**
   * Asks the tab's content script for the task as it is this instant (a keyboard command may beat the debounce).
   * Only on a site the user allowed, unless the user just invoked Backstory on this page (`invoked`: the shortcut).
   */
  async readNow(tabId: number, invoked = false): Promise<void> {
    try {
      // Cut to its limits on arrival, as every reading a page sends (lib/rank/reading-bounds.ts).
      if (invoked) await this.tasks.set(tabId, boundReading(await this.callTaskFrame(tabId, 'page:read', {})));
      else if (await this.access.allows((await browser.tabs.get(tabId)).url)) {
        await this.tasks.set(tabId, boundReading(await callTab(tabId, 'page:read', {}, this.tasks.frameOf(tabId))));
      }
    } catch {
      // No content script there (browser page, or not yet injected): keep the last reading.
    }
  }

  /** Sites were allowed or taken back: the content script follows, and pages of sites taken back stop watching. */
  async sitesChanged(change: { added?: string[]; removed?: string[] }): Promise<void> {
    await this.access.sync().catch(() => {});
    if (change.added?.length) await this.access.injectInto(change.added);
    if (!change.removed?.length) return;
    const tabs = await browser.tabs.query({}).catch(() => []);
    await Promise.all(
      tabs.map(async (t) => {
        if (t.id === undefined || (await this.access.allows(t.url))) return;
        await browser.tabs.sendMessage(t.id, { type: 'page:stop', payload: {} }).catch(() => {});
      }),
    );
  }
}
