import { browser, type Browser } from 'wxt/browser';
import { openMemoryDB } from '../memory/db';
import { parseImport } from '../memory/memory-file';
import { serializeMemoryFile } from '../memory/memory-file';
import { MemoryStore } from '../memory/store';
import { ImportRemoval } from '../memory-browse/import-removal';
import { MemoryCatalog } from '../memory-browse/memory-query';
import { guessKind } from '../memory/kind-guess';
import { findSecrets } from '../memory/secrets';
import type { InsertOutcome } from '../insert/index';
import type { IndexingProgress, PanelPush, PanelState, PanelWatch } from '../messaging/protocol';
import type { MemoryInput, MemoryItem } from '../memory/types';
import { buildPackage } from '../rank/package';
import { destinationOf } from '../rank/rank';
import { personKeys } from '../rank/situation';
import { normalizeSettings, siteListed } from '../settings/settings';
import { callTab, isExtensionPage, serveBackground } from '../messaging/rpc';
import type { ContentProtocol, Req, Res } from '../messaging/protocol';
import type { RankSettings, TaskReading } from '../rank/types';
import { ContentRegistration } from './content-registration';
import { ModelHolder } from './model';
import { QueryVectorCache } from './query-vectors';
import { rankForTab } from './ranking';
import { loadSettings, onSettingsChanged, saveSettings } from './settings-store';
import { TabTasks } from './tab-tasks';


/** The service worker's state and behaviour; the background entrypoint only wires events to it. */
export class BackstoryService {
  readonly store: MemoryStore;
  readonly model: ModelHolder;
  /** Which sites Backstory may read, and the content script registered for exactly those. */
  readonly access = new ContentRegistration();
  private tasks = new TabTasks();
  private queries = new QueryVectorCache();
  private settings?: Promise<RankSettings>;
  private panels = new Map<Browser.runtime.Port, PanelWatch>();
  /** Rankings started per tab, numbered in order. */
  private seq = new Map<number, number>();
  /** Per tab and search, the newest ranking sent to panels: an older one finishing later is not sent over it. */
  private delivered = new Map<string, number>();
  /** Per tab, the first ranking of the page's latest reading: earlier ones rank text the page no longer has. */
  private current = new Map<number, number>();
  /** Every open panel or options port, watching a tab or not (capture and indexing pushes go to all). */
  private ports = new Set<Browser.runtime.Port>();
  private indexing?: IndexingProgress;
  private lastCapture?: { item: MemoryItem; at: number };
  /** The memory browser's paged, filtered reads, and deleting a whole import. */
  private catalog = new MemoryCatalog();
  private importRemoval: ImportRemoval;

  constructor() {
    this.model = new ModelHolder(() => this.refreshAll());
    this.store = new MemoryStore(openMemoryDB(), () => this.model.get(), () => this.model.indexer());
    this.importRemoval = new ImportRemoval(this.store, this.catalog, (restored) => {
      if (restored) void this.indexInBackground();
      this.refreshAll();
    });
  }

  private getSettings(): Promise<RankSettings> {
    this.settings ??= loadSettings();
    return this.settings;
  }

  /**
   * Asks the tab's content script for the task as it is this instant (a keyboard command may beat the debounce).
   * Only on a site the user allowed, unless the user just invoked Backstory on this page (`invoked`: the shortcut).
   */
  private async readTabNow(tabId: number, invoked = false): Promise<void> {
    try {
      if (invoked) await this.tasks.set(tabId, await this.callPage(tabId, 'page:read', {}, this.tasks.frameOf(tabId)));
      else if (await this.access.allows((await browser.tabs.get(tabId)).url)) {
        await this.tasks.set(tabId, await callTab(tabId, 'page:read', {}, this.tasks.frameOf(tabId)));
      }
    } catch {
      // No content script there (browser page, or not yet injected): keep the last reading.
    }
  }

  /**
   * A request to the page. With no content script there (a site the user has not allowed, or a page opened before
   * the grant), the one-shot responder is injected first; the browser allows that only with the site granted or
   * the activeTab grant a menu click or shortcut gives on that page, so anywhere else this fails as before.
   */
  private async callPage<K extends keyof ContentProtocol>(tabId: number, type: K, payload: Req<ContentProtocol, K>, frameId = 0): Promise<Res<ContentProtocol, K>> {
    try {
      return await callTab(tabId, type, payload, frameId);
    } catch (e) {
      if (!/Receiving end does not exist|Could not establish connection|No answer from Backstory/i.test(String(e))) throw e;
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

  /** Sites were allowed or taken back: register the content script for exactly the allowed ones, and tell panels. */
  async sitesChanged(change: { added?: string[]; removed?: string[] }): Promise<void> {
    await this.access.sync().catch(() => {});
    if (change.added?.length) await this.access.injectInto(change.added);
    if (change.removed?.length) {
      // Content scripts already in those pages stop watching (the worker ignores them from now on anyway).
      const tabs = await browser.tabs.query({}).catch(() => []);
      await Promise.all(
        tabs.map(async (t) => {
          if (t.id === undefined || (await this.access.allows(t.url))) return;
          await browser.tabs.sendMessage(t.id, { type: 'page:stop', payload: {} }).catch(() => {});
        }),
      );
    }
    this.refreshAll();
  }

  /**
   * Ranks for a tab and returns the state to the caller; every panel watching that tab (and search) is sent it too,
   * unless a newer ranking already reached them (an older one finishing late is not shown over it). With
   * `lexicalFirst` (panel pushes) a model still loading is not waited for: the panel gets cards ranked by words now,
   * and the model's ready status re-ranks every open panel (a second push).
   */
  async rank(tabId: number, search?: string, opts: { lexicalFirst?: boolean; invoked?: boolean } = {}): Promise<PanelState> {
    const seq = (this.seq.get(tabId) ?? 0) + 1;
    this.seq.set(tabId, seq);
    const state = await this.rankNow(tabId, seq, search, opts);
    this.deliver(state, search);
    return state;
  }

  private deliver(state: PanelState, search: string | undefined): void {
    const watching = [...this.panels].filter(([, w]) => w.tabId === state.tabId && (w.search?.trim() ?? '') === (search?.trim() ?? ''));
    if (!watching.length) return; // nobody to show it to (and nothing to remember: a search typed once stays out)
    const key = `${state.tabId}\n${search?.trim() ?? ''}`;
    if ((this.delivered.get(key) ?? 0) > state.seq || (this.current.get(state.tabId) ?? 0) > state.seq) return;
    this.delivered.set(key, state.seq);
    for (const [port] of watching) this.push(port, state);
  }

  private async rankNow(tabId: number, seq: number, search: string | undefined, opts: { lexicalFirst?: boolean; invoked?: boolean }): Promise<PanelState> {
    await this.store.load();
    this.store.notePressure();
    const [known, settings, tabAccess] = await Promise.all([this.tasks.get(tabId), this.getSettings(), this.access.tabAccess(tabId)]);
    // Without access the page was never read: no task, the panel says so and offers to allow the site. A shortcut
    // the user pressed on the page (`invoked`) read it under the browser's activeTab grant.
    const access = tabAccess.state === 'granted' ? undefined : tabAccess;
    const task = access && !opts.invoked ? undefined : known;
    if (access && !opts.invoked && !search?.trim()) {
      return { tabId, status: 'watching', access, cards: [], trace: [], model: this.model.status, memorySize: this.store.size, seq };
    }
    const modelState = this.model.status.state;
    const skipModel = modelState === 'failed' || (opts.lexicalFirst && modelState !== 'ready');
    if (skipModel && modelState !== 'failed') void this.model.get(); // loading starts (or goes on); 'ready' re-ranks
    const embedder = skipModel ? null : await this.model.get();
    try {
      if (task && !search?.trim() && siteListed(settings.excludedSites, task.site)) {
        return { tabId, status: 'watching', paused: { site: task.site }, cards: [], trace: [], model: this.model.status, memorySize: this.store.size, seq };
      }
      const state = await rankForTab({
        tabId, task, search, store: this.store, settings, embedder, queries: this.queries, model: this.model.status,
        recentlyUsed: this.tasks.usedIn(tabId), dismissed: this.tasks.dismissedIn(tabId), seq,
      });
      if (state.package) state.package.budget = settings.budgetTokens;
      if (this.indexing) state.indexing = this.indexing;
      if (access) state.access = access;
      if (!search?.trim() && task?.people?.length) {
        const unknown = task.people.filter((p) => ![...this.store.view.situated(personKeys(p).map((k) => 'person:' + k))].length);
        if (unknown.length) state.unknownPeople = unknown.slice(0, 3);
      }
      return state;
    } catch (e) {
      return { tabId, status: 'error', error: e instanceof Error ? e.message : String(e), cards: [], trace: [], model: this.model.status, memorySize: this.store.size, seq };
    }
  }

  private push(port: Browser.runtime.Port, state: PanelState) {
    try {
      port.postMessage({ type: 'state', state } satisfies PanelPush);
    } catch {
      this.panels.delete(port);
    }
  }

  /** Re-ranks what a panel watches; `rank` sends the result to it (and to any other panel on the same tab). */
  private async refreshPanel(port: Browser.runtime.Port) {
    const watch = this.panels.get(port);
    if (watch) await this.rank(watch.tabId, watch.search, { lexicalFirst: true });
  }

  /** Re-ranks every open panel (memory, settings or model changed). */
  refreshAll(): void {
    for (const port of this.panels.keys()) void this.refreshPanel(port);
  }

  private refreshTab(tabId: number): void {
    this.current.set(tabId, (this.seq.get(tabId) ?? 0) + 1);
    for (const [port, watch] of this.panels) {
      if (watch.tabId !== tabId) continue;
      const searching: PanelState = { tabId, status: 'searching', cards: [], trace: [], model: this.model.status, memorySize: this.store.size, seq: -1 };
      this.push(port, watch.search ? { ...searching, search: watch.search } : searching);
      void this.refreshPanel(port);
    }
  }

  /** Sends a push to every open extension page port. */
  private broadcast(push: PanelPush): void {
    for (const port of this.ports) {
      try {
        port.postMessage(push);
      } catch {
        this.ports.delete(port);
      }
    }
  }

  connectPanel(port: Browser.runtime.Port): void {
    this.ports.add(port);
    port.onDisconnect.addListener(() => this.ports.delete(port));
    port.onMessage.addListener((msg: unknown) => {
      const w = msg as PanelWatch;
      if (typeof w?.tabId !== 'number') return;
      const known = [...this.panels.values()].some((x) => x.tabId === w.tabId);
      this.panels.set(port, { tabId: w.tabId, search: w.search });
      // A panel newly watching a tab starts from the page as it is now, not a reading from before a restart.
      void (known ? Promise.resolve() : this.readTabNow(w.tabId)).then(() => this.refreshPanel(port));
    });
    port.onDisconnect.addListener(() => this.panels.delete(port));
  }

  async insertCard(tabId: number, id: string): Promise<InsertOutcome> {
    await this.store.load();
    const item = this.store.get(id);
    if (!item) throw new Error('That memory no longer exists.');
    const outcome = await this.callPage(tabId, 'page:insert', { text: item.text }, this.tasks.frameOf(tabId));
    if (outcome.ok) {
      this.tasks.markUsed(tabId, id);
      await this.store.touch([id]);
    }
    return outcome;
  }

  /** The insert-top-card command: rank the active tab now and insert its first card. */
  async insertTopCard(tab: Browser.tabs.Tab | undefined): Promise<InsertOutcome> {
    const tabId = tab?.id ?? (await browser.tabs.query({ active: true, lastFocusedWindow: true }))[0]?.id;
    if (tabId === undefined) return { ok: false, technique: 'none', hint: 'No active tab.' };
    await this.readTabNow(tabId, true);
    const state = await this.rank(tabId, undefined, { invoked: true });
    const top = state?.cards[0];
    if (!top) return { ok: false, technique: 'none', hint: 'Nothing relevant to insert.' };
    return this.insertCard(tabId, top.item.id);
  }

  async rememberSelection(info: Browser.contextMenus.OnClickData, tab?: Browser.tabs.Tab): Promise<void> {
    // The page's own selection keeps line breaks that selectionText collapses.
    let text = info.selectionText ?? '';
    if (tab?.id !== undefined) {
      try {
        const page = await this.callPage(tab.id, 'page:selection', {}, info.frameId ?? 0);
        if (page.text.trim()) text = page.text;
      } catch {
        // No content script on this page (e.g. a browser page): selectionText is all there is.
      }
    }
    await this.remember(text, tab, info.pageUrl);
  }

  async rememberPage(info: Browser.contextMenus.OnClickData, tab?: Browser.tabs.Tab): Promise<void> {
    let page = { title: tab?.title ?? '', url: info.pageUrl ?? tab?.url ?? '', text: '' };
    if (tab?.id !== undefined) {
      try {
        page = await this.callPage(tab.id, 'page:capture', {}, info.frameId ?? 0);
      } catch {
        // Fall back to what the tab tells us.
      }
    }
    await this.remember(page.text || `${page.title}\n${page.url}`, tab, page.url, page.title);
  }

  async rememberLink(info: Browser.contextMenus.OnClickData, tab?: Browser.tabs.Tab): Promise<void> {
    const url = info.linkUrl ?? '';
    if (!url) return;
    // Chrome gives no link text; Firefox does (linkText). A selected link's text arrives as selectionText.
    const label = ((info as { linkText?: string }).linkText ?? info.selectionText ?? '').trim();
    const text = [label, url, tab?.title ? `(linked from ${tab.title})` : ''].filter(Boolean).join('\n');
    let site = '';
    try {
      site = new URL(url).hostname;
    } catch {
      // not a URL
    }
    await this.capture({ text, title: label || `Link: ${site || url}`, kind: 'evidence', source: { url, title: label || site }, tags: ['link', ...(site ? [site] : [])] });
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
      this.broadcast({ type: 'problem', message });
      await browser.action?.setBadgeBackgroundColor({ color: '#c62828' }).catch(() => {});
      await browser.action?.setBadgeText({ text: '!' }).catch(() => {});
      await browser.action?.setTitle({ title: `Backstory — ${message}` }).catch(() => {});
    }
  }

  /** Saves a capture, then offers the quick edit popover in every open panel. */
  private async capture(input: MemoryInput): Promise<MemoryItem> {
    const [item] = await this.store.add([input]);
    this.lastCapture = { item, at: Date.now() };
    this.broadcast({ type: 'captured', item });
    this.refreshAll();
    return item;
  }

  /**
   * Import: every item is written in one transaction (all or nothing), then embedded in the background with
   * progress. Items are ranked by their words until their vectors arrive; if MV3 stops the worker, the worker's
   * next start finds the unembedded items and carries on.
   */
  private async importInputs(inputs: MemoryInput[]): Promise<MemoryItem[]> {
    const added = await this.store.add(inputs, { deferEmbedding: inputs.length > 8 });
    void this.indexInBackground();
    return added;
  }

  /** Embeds whatever is waiting, telling open panels how far it got. */
  indexInBackground(): Promise<number> {
    return this.store
      .embedPending((done, total) => {
        this.indexing = done < total ? { done, total } : undefined;
        this.broadcast({ type: 'indexing', progress: { done, total } });
        if (done === total || done % 256 === 0) this.refreshAll();
      })
      .catch(() => 0);
  }

  /** The package for some of a tab's cards, in the ranker's format for the tab's destination. */
  private async packageFor(tabId: number, ids: string[], search?: string) {
    // Ranked afresh but outside the tab's sequence, so an open panel's ranking is not made stale by this one.
    await this.store.load();
    const [task, settings] = await Promise.all([this.tasks.get(tabId), this.getSettings()]);
    const embedder = this.model.status.state === 'failed' ? null : await this.model.get();
    const state = await rankForTab({
      tabId, task, search, store: this.store, settings, embedder, queries: this.queries, model: this.model.status,
      recentlyUsed: this.tasks.usedIn(tabId), dismissed: this.tasks.dismissedIn(tabId), seq: 0,
    });
    const want = new Set(ids);
    const cards = state.cards.filter((c) => want.has(c.item.id));
    const dest = search?.trim() || !task ? 'generic' : destinationOf(task);
    return { ...buildPackage(cards, dest, settings.budgetTokens), budget: settings.budgetTokens };
  }

  private async remember(text: string, tab: Browser.tabs.Tab | undefined, url?: string, title?: string): Promise<void> {
    const pageUrl = url ?? tab?.url ?? '';
    let site = '';
    try {
      site = new URL(pageUrl).hostname;
    } catch {
      // not a URL
    }
    // Something that looks like a credential is kept but held out of every index until the user confirms it.
    const secrets = findSecrets(text);
    await this.capture({
      text,
      kind: guessKind(text),
      source: { url: pageUrl, title: title ?? tab?.title ?? site },
      tags: site ? [site] : [],
      ...(secrets.length ? { needsReview: `it looks like it contains a secret (${secrets.join(', ')})` } : {}),
    });
  }

  /** Wires the typed message protocol. */
  serve(): void {
    serveBackground({
      'task:update': async ({ reading }, sender) => {
        const tabId = sender.tab?.id;
        // Only the top frame's reading (or a frame with a focused field) describes the tab's task, and only from a
        // site the user allows: a script left in a page after the user took access back is not listened to.
        if (tabId !== undefined && (sender.frameId === 0 || reading.field) && (await this.access.allows(sender.url ?? sender.tab?.url))) {
          if (reading.field) this.tasks.setFrame(tabId, sender.frameId ?? 0);
          // The reading is in memory at once; the panel's re-rank need not wait for storage.session.
          const saved = this.tasks.set(tabId, reading);
          this.refreshTab(tabId);
          await saved;
        }
        return { ok: true };
      },
      'panel:get': ({ tabId, search }) => this.rank(tabId, search),
      'card:insert': ({ tabId, id }) => this.insertCard(tabId, id),
      'card:dismiss': async ({ tabId, id }) => {
        this.tasks.dismiss(tabId, id);
        this.refreshTab(tabId);
        return { ok: true };
      },
      'memory:add': async ({ items }) => {
        const added = await this.store.add(items);
        this.refreshAll();
        return { items: added };
      },
      'memory:update': async ({ id, patch }) => {
        const item = await this.store.update(id, patch);
        // A confirmed held-back item has no vector yet: embed it (and anything else waiting) in the background.
        if (!item.needsReview && !this.store.view.hasVector(id)) void this.indexInBackground();
        this.refreshAll();
        return { item };
      },
      'memory:delete': async ({ ids }) => {
        const removed = await this.store.remove(ids);
        this.refreshAll();
        return { removed };
      },
      'memory:list': async () => {
        await this.store.load();
        return { items: [...this.store.items()].sort((a, b) => b.updatedAt - a.updatedAt) };
      },
      'memory:query': (q) => this.store.load().then(() => this.catalog.query(this.store.view, q)),
      'memory:removeImport': ({ importId }) => this.importRemoval.remove(importId),
      'memory:restoreImport': ({ importId }) => this.importRemoval.restore(importId),
      'memory:import': async ({ fileName, content }) => {
        const inputs = parseImport(fileName, content);
        const added = await this.importInputs(inputs);
        this.refreshAll();
        return { added: added.length };
      },
      'memory:export': async () => {
        await this.store.load();
        return { content: serializeMemoryFile([...this.store.items()]) };
      },
      'memory:clear': async () => {
        await this.store.clear();
        this.refreshAll();
        return { ok: true };
      },
      'settings:get': () => this.getSettings(),
      'settings:set': async ({ settings }) => {
        const saved = await saveSettings(settings);
        this.settings = Promise.resolve(saved);
        this.refreshAll();
        return saved;
      },
      'package:build': ({ tabId, ids, search }) => this.packageFor(tabId, ids, search),
      'package:insert': async ({ tabId, ids, search }) => {
        const pkg = await this.packageFor(tabId, ids, search);
        if (!pkg.text) return { ok: false, technique: 'none', hint: 'Nothing selected to insert.' };
        const outcome = await this.callPage(tabId, 'page:insert', { text: pkg.text }, this.tasks.frameOf(tabId));
        if (outcome.ok) {
          for (const id of pkg.ids) this.tasks.markUsed(tabId, id);
          await this.store.touch(pkg.ids);
        }
        return outcome;
      },
      'rank:preview': async ({ text, settings, people, site }) => {
        await this.store.load();
        const task: TaskReading = { url: '', title: '', site: site ?? '', adapter: 'search', field: { text, kind: 'input' }, ...(people?.length ? { people } : {}), at: Date.now() };
        const embedder = this.model.status.state === 'failed' ? null : await this.model.get();
        const state = await rankForTab({
          tabId: -1, task, store: this.store, settings: settings ? normalizeSettings(settings) : await this.getSettings(), embedder,
          queries: this.queries, model: this.model.status, recentlyUsed: [], dismissed: [], seq: 0,
        });
        return { cards: state.cards.map((c) => ({ id: c.item.id, title: c.item.title || c.item.text.slice(0, 60), kind: c.kind, score: c.score })) };
      },
      'model:status': async () => {
        await this.store.load();
        return { ...this.model.status, memorySize: this.store.size, unembedded: this.store.unembedded().length, indexBackend: this.store.indexBackend };
      },
      'capture:recent': () => {
        const c = this.lastCapture;
        return c && Date.now() - c.at < 5 * 60_000 && this.store.get(c.item.id) ? { item: this.store.get(c.item.id) } : {};
      },
      'capture:dismiss': ({ id }) => {
        if (this.lastCapture?.item.id === id) this.lastCapture = undefined;
        return { ok: true };
      },
      'capture:sent': async ({ text, url, title, site, people }, sender) => {
        // From a page's content script: only on a site the user allows (an extension page is Backstory's own).
        if (!isExtensionPage(sender) && !(await this.access.allows(sender.url ?? sender.tab?.url))) return { saved: false };
        const settings = await this.getSettings();
        if (!settings.captureSent || !siteListed(settings.captureSites, site) || siteListed(settings.excludedSites, site)) return { saved: false };
        if (!text.trim()) return { saved: false };
        await this.store.add([{ text, kind: 'evidence', title: `Sent on ${site}: ${text.trim().split('\n')[0].slice(0, 60)}`, source: { url, title }, tags: ['sent', site], people: people ?? [] }]);
        this.refreshAll();
        return { saved: true };
      },
    });
    browser.contextMenus.onClicked.addListener((info, tab) => {
      if (info.menuItemId === 'remember-link') void this.reportFailure(this.rememberLink(info, tab));
    });
    onSettingsChanged((s) => {
      this.settings = Promise.resolve(s);
      this.refreshAll();
    });
    browser.tabs.onRemoved.addListener((tabId) => {
      void this.tasks.forget(tabId);
      this.seq.delete(tabId);
      this.current.delete(tabId);
      for (const key of this.delivered.keys()) if (key.startsWith(`${tabId}\n`)) this.delivered.delete(key);
    });
  }
}
