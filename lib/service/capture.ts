import { browser, type Browser } from 'wxt/browser';
import { mergePatch, nearDuplicate } from '../learn/near-duplicate';
import type { MemoryStore } from '../memory/store';
import type { MemoryInput, MemoryItem } from '../memory/types';
import type { Req } from '../channel/rpc';
import type { BackgroundProtocol, PanelPush } from '../messaging/protocol';
import { isExtensionPage } from '../messaging/rpc';
import { hostOf, siteListed } from '../core/hosts';
import type { ContentRegistration } from './content-registration';
import type { PageBridge } from './page-bridge';
import { isChatSite, type PhraseOffers } from './phrase-offers';
import { SentRate } from './sent-rate';
import type { SettingsCache } from './settings-cache';
import { displayTitle } from '../core/items';

interface Panels {
  broadcast(push: PanelPush): void;
  refreshAll(): void;
}

/** How long the last "Remember this" is offered for a quick edit in a panel opened after it. */
const RECENT_MS = 5 * 60_000;

/** Saving what the user points at: "Remember this" (selection, page, link) and, where allowed, sent messages. */
export class Capture {
  private last?: { item: MemoryItem; at: number };
  private readonly sentRate = new SentRate();

  constructor(
    private readonly store: MemoryStore,
    private readonly bridge: PageBridge,
    private readonly panels: Panels,
    private readonly settings: SettingsCache,
    private readonly access: ContentRegistration,
    private readonly phrases?: Pick<PhraseOffers, 'prompt'>,
  ) {}

  async rememberSelection(info: Browser.contextMenus.OnClickData, tab?: Browser.tabs.Tab): Promise<void> {
    // The page's own selection keeps line breaks that selectionText collapses.
    let text = info.selectionText ?? '';
    let secret = false;
    if (tab?.id !== undefined) {
      try {
        const page = await this.bridge.call(tab.id, 'page:selection', {}, info.frameId ?? 0);
        secret = !!page.secret;
        if (page.text.trim()) text = page.text;
      } catch {
        // No content script on this page (e.g. a browser page): selectionText is all there is.
      }
    }
    // The browser's selectionText would still hold it: a password-like field's text is never saved.
    if (secret) throw new Error('the selection is in a password field, which Backstory never reads.');
    await this.remember(text, tab, info.pageUrl);
  }

  async rememberPage(info: Browser.contextMenus.OnClickData, tab?: Browser.tabs.Tab): Promise<void> {
    let page: { title: string; url: string; text: string; thread?: { id: string } } = { title: tab?.title ?? '', url: info.pageUrl ?? tab?.url ?? '', text: '' };
    if (tab?.id !== undefined) {
      try {
        page = await this.bridge.call(tab.id, 'page:capture', {}, info.frameId ?? 0);
      } catch {
        // Fall back to what the tab tells us.
      }
    }
    await this.remember(page.text || `${page.title}\n${page.url}`, tab, page.url, page.title, page.thread);
  }

  async rememberLink(info: Browser.contextMenus.OnClickData, tab?: Browser.tabs.Tab): Promise<void> {
    const url = info.linkUrl ?? '';
    if (!url) return;
    // Chrome gives no link text; Firefox does (linkText). A selected link's text arrives as selectionText.
    const label = ((info as { linkText?: string }).linkText ?? info.selectionText ?? '').trim();
    const text = [label, url, tab?.title ? `(linked from ${tab.title})` : ''].filter(Boolean).join('\n');
    const site = hostOf(url);
    await this.save({ text, title: label || `Link: ${site || url}`, source: { url, title: label || site }, tags: ['link', ...(site ? [site] : [])] }, info.pageUrl ?? tab?.url ?? url);
  }

  /** A message the user sent on a page: saved only from an allowed site with capture on for it. */
  async sent({ text, url, title, site, people, thread }: Req<BackgroundProtocol, 'capture:sent'>, sender: Browser.runtime.MessageSender): Promise<{ saved: boolean }> {
    // An extension page is Backstory's own; a content script only counts on a site the user allows.
    if (!isExtensionPage(sender) && !(await this.access.allows(sender.url ?? sender.tab?.url))) return { saved: false };
    const { capture, ui } = await this.settings.get();
    if (!capture.sent || !siteListed(capture.sites, site) || siteListed(ui.excludedSites, site) || !text.trim()) return { saved: false };
    // A page's sends are capped per tab (Backstory's own pages have no tab and are not).
    if (sender.tab?.id !== undefined && !this.sentRate.take(sender.tab.id)) return { saved: false };
    await this.store.add([{ text, title: `Sent on ${site}: ${text.trim().split('\n')[0].slice(0, 60)}`, source: { url, title }, tags: ['sent', site], people: people ?? [], ...(thread ? { thread: await this.nextTurn(thread.id) } : {}) }], { from: 'page', url });
    this.panels.refreshAll();
    // A prompt sent to a chat assistant also counts toward offering its recurring phrases as an instruction.
    if (isChatSite(site)) await this.phrases?.prompt(sender.tab?.id, text, true).catch(() => {});
    return { saved: true };
  }

  /** The item the last "Remember this" saved, while it is recent and still exists. */
  async recent(): Promise<{ item?: MemoryItem }> {
    const item = this.last && Date.now() - this.last.at < RECENT_MS ? await this.store.read(this.last.item.id) : undefined;
    return item ? { item } : {};
  }

  dismissRecent(id: string): { ok: true } {
    if (this.last?.item.id === id) this.last = undefined;
    return { ok: true };
  }

  /**
   * A capture the user started from a menu has no caller to show its error: tell every open panel, and mark the
   * toolbar button so the user notices even with no panel open. Nothing was saved in that case.
   */
  async reportFailure(work: Promise<unknown>): Promise<void> {
    try {
      await work;
      await browser.action?.setBadgeText({ text: '' });
      await browser.action?.setTitle({ title: 'Open Backstory' });
    } catch (e) {
      const message = `Not saved: ${e instanceof Error ? e.message : String(e)}`;
      this.panels.broadcast({ type: 'problem', message });
      await browser.action?.setBadgeBackgroundColor({ color: '#c62828' }).catch(() => {});
      await browser.action?.setBadgeText({ text: '!' }).catch(() => {});
      await browser.action?.setTitle({ title: `Backstory — ${message}` }).catch(() => {});
    }
  }

  /** A saved item the capture nearly repeats, which the quick edit offers to merge it into. */
  async duplicateOf(id: string): Promise<{ duplicate?: { id: string; title: string } }> {
    await this.store.load();
    const item = await this.store.read(id);
    const dup = item && (await nearDuplicate(item, this.store.view));
    return dup ? { duplicate: { id: dup.item.id, title: displayTitle(dup.item) } } : {};
  }

  /** Merges the capture into the item it repeats (the user chose to). */
  async merge(id: string, into: string): Promise<{ item: MemoryItem }> {
    await this.store.load();
    const capture = await this.store.read(id);
    const kept = await this.store.read(into);
    if (!capture || !kept) throw new Error('That memory no longer exists.');
    const item = await this.store.update(into, mergePatch(kept, capture));
    await this.store.remove([id]);
    this.panels.refreshAll();
    return { item };
  }

  private async remember(text: string, tab: Browser.tabs.Tab | undefined, url?: string, title?: string, thread?: { id: string }): Promise<void> {
    const pageUrl = url ?? tab?.url ?? '';
    const site = hostOf(pageUrl);
    // Someone else's words on a page are evidence, tied to the page, and held when they look like a credential
    // (lib/memory/intake.ts); the quick edit lets the user say otherwise.
    await this.save(
      {
        text,
        source: { url: pageUrl, title: title ?? tab?.title ?? site },
        tags: site ? [site] : [],
        ...(thread ? { thread: await this.nextTurn(thread.id) } : {}),
      },
      pageUrl,
    );
  }

  /**
   * A capture's place in the conversation on screen: right after its last stored turn, so it is read with the turn
   * before it (context vector, neighbour evidence), which look a thread up one place at a time.
   */
  private async nextTurn(threadId: string): Promise<{ id: string; seq: number }> {
    await this.store.load(); // the thread's turns are known once memory is loaded
    return { id: threadId, seq: this.store.view.lexicalIndex.nextSeq(threadId) };
  }

  /** Saves a capture, then offers the quick edit popover in every open panel. */
  private async save(input: MemoryInput, pageUrl: string): Promise<MemoryItem> {
    const [item] = await this.store.add([input], { from: 'page', url: pageUrl });
    this.last = { item, at: Date.now() };
    this.panels.broadcast({ type: 'captured', item });
    this.panels.refreshAll();
    return item;
  }
}
