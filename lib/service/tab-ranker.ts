import type { MemoryStore } from '../memory/store';
import type { PanelState, PreviewCard } from '../messaging/protocol';
import { buildPackage } from '../rank/package';
import { writtenTerms } from '../rank/trace';
import { personKeys } from '../rank/situation';
import { OverrideMemo } from '../rank/overridden-instructions';
import type { RankSettings, TaskReading, TraceEntry } from '../rank/types';
import { siteListed } from '../core/hosts';
import { normalizeRankSettings } from '../settings/settings';
import type { Learning } from '../learn/learning';
import type { ContentRegistration } from './content-registration';
import type { BackgroundEmbedding } from './background-embedding';
import type { ModelHolder } from './model';
import type { PageBridge } from './page-bridge';
import type { PanelRanker, RankOptions } from './panel-hub';
import { ConditionVectorCache, QueryVectorCache } from './query-vectors';
import { rankForTab } from './ranking';
import type { SettingsCache } from './settings-cache';
import type { TabReadingStore } from './tab-reading-store';
import { displayTitle } from '../core/items';
import { KeptTraces, panelTrace } from './panel-trace';

/** Ranking for a tab as the panel shows it, the package of chosen cards, and the options page's preview. */
export class TabRanker implements PanelRanker {
  private queries = new QueryVectorCache();
  private conditions = new ConditionVectorCache();
  private overrides = new OverrideMemo();
  private traces = new KeptTraces();
  /** Tabs closed in this worker's life (the browser never gives a closed tab's id to another). */
  private closed = new Set<number>();

  constructor(
    private readonly store: MemoryStore,
    private readonly model: ModelHolder,
    private readonly tasks: TabReadingStore,
    private readonly settings: SettingsCache,
    private readonly access: ContentRegistration,
    private readonly bridge: PageBridge,
    private readonly indexing: BackgroundEmbedding,
    private readonly learning: Learning,
  ) {}

  firstWatch(tabId: number): Promise<void> {
    return this.bridge.readNow(tabId);
  }

  searching(tabId: number, search: string | undefined): PanelState {
    return { ...this.bare(tabId, -1, 'searching'), ...(search ? { search } : {}) };
  }

  async rank(tabId: number, seq: number, search: string | undefined, opts: RankOptions): Promise<PanelState> {
    await this.store.load();
    this.store.notePressure();
    const [known, all, tabAccess] = await Promise.all([this.tasks.get(tabId), this.settings.get(), this.access.tabAccess(tabId)]);
    // Without access the page was never read: no task, the panel says so and offers to allow the site. A shortcut
    // the user pressed on the page (`invoked`) read it under the browser's activeTab grant.
    const access = tabAccess.state === 'granted' ? undefined : tabAccess;
    const task = access && !opts.invoked ? undefined : known;
    const searched = !!search?.trim();
    if (access && !opts.invoked && !searched) return { ...this.bare(tabId, seq, 'watching'), access };
    const modelState = this.model.status.state;
    const skipModel = modelState === 'failed' || (opts.lexicalFirst && modelState !== 'ready');
    if (skipModel && modelState !== 'failed') void this.model.get(); // loading starts (or goes on); 'ready' re-ranks
    const embedder = skipModel ? null : await this.model.get();
    try {
      if (task && !searched && siteListed(all.ui.excludedSites, task.site)) return { ...this.bare(tabId, seq, 'watching'), paused: { site: task.site } };
      const state = await this.rankTask(tabId, task, search, all.rank, embedder, seq);
      // The panel gets the first of what was left out; the rest stay here for its searches (not for a tab that
      // closed while it was ranked: nothing would let go of them).
      if (!this.closed.has(tabId)) this.traces.keep(tabId, seq, state.trace);
      const sent = panelTrace(state.trace);
      state.trace = sent.trace;
      state.leftOut = sent.leftOut;
      if (this.indexing.progress) state.indexing = this.indexing.progress;
      if (access) state.access = access;
      if (!searched && task?.people?.length) {
        const unknown = task.people.filter((p) => ![...this.store.view.situated(personKeys(p).map((k) => 'person:' + k))].length);
        if (unknown.length) state.unknownPeople = unknown.slice(0, 3);
      }
      return state;
    } catch (e) {
      return { ...this.bare(tabId, seq, 'error'), error: e instanceof Error ? e.message : String(e) };
    }
  }

  /** The package for some of a tab's cards, in the ranker's format for the tab's destination. */
  async packageFor(tabId: number, ids: string[], search?: string) {
    // Ranked afresh but outside the tab's sequence, so an open panel's ranking is not made stale by this one.
    await this.store.load();
    const [task, settings] = await Promise.all([this.tasks.get(tabId), this.settings.rank()]);
    const state = await this.rankTask(tabId, task, search, settings, await this.embedder(), 0);
    const want = new Set(ids);
    const cards = state.cards.filter((c) => want.has(c.item.id));
    // What a search finds is put in as for any page.
    const dest = search?.trim() || !task ? 'documents' : task.destination;
    return { ...buildPackage(cards, dest, settings.budgetTokens), budget: settings.budgetTokens };
  }

  /** The matched terms of trace entries as each item's text writes them (the panel asks for those it shows). */
  async traceWords(items: { id: string; terms: string[] }[]): Promise<{ words: string[][] }> {
    const found = new Map((await this.store.readMany(items.map((x) => x.id))).map((it) => [it.id, it]));
    return { words: items.map(({ id, terms }) => writtenTerms(terms, found.get(id))) };
  }

  /** The titles of trace entries the ranking left unread (the panel asks for those it shows or searches). */
  async traceTitles(ids: string[]): Promise<{ titles: string[] }> {
    const found = new Map((await this.store.readMany(ids)).map((it) => [it.id, it]));
    return { titles: ids.map((id) => (found.has(id) ? displayTitle(found.get(id)!) : '')) };
  }

  /** A tab closed: its last trace is let go, and a ranking of it still under way keeps nothing of it. */
  forgetTab(tabId: number): void {
    this.closed.add(tabId);
    this.traces.forget(tabId);
  }

  /** Left-out entries of the tab's last ranking whose title holds `text` (the panel's "Why not?" search). */
  traceFind(tabId: number, text: string): Promise<{ seq: number; entries: TraceEntry[] }> {
    return this.traces.find(tabId, text, async (ids) => (await this.traceTitles(ids)).titles);
  }

  /** How a sample task ranks under the given (unsaved) or the saved settings. */
  async preview(text: string, settings?: RankSettings, people?: string[], site?: string): Promise<{ cards: PreviewCard[] }> {
    await this.store.load();
    const task: TaskReading = { url: '', title: '', site: site ?? '', adapter: 'search', destination: 'documents', field: { text, kind: 'input' }, ...(people?.length ? { people } : {}), at: Date.now() };
    const state = await this.rankTask(-1, task, undefined, settings ? normalizeRankSettings(settings) : await this.settings.rank(), await this.embedder(), 0);
    return { cards: state.cards.map((c) => ({ id: c.item.id, title: displayTitle(c.item), kind: c.kind, score: c.score })) };
  }

  private async embedder() {
    return this.model.status.state === 'failed' ? null : this.model.get();
  }

  private rankTask(tabId: number, task: TaskReading | undefined, search: string | undefined, settings: RankSettings, embedder: Awaited<ReturnType<ModelHolder['get']>>, seq: number) {
    return rankForTab({
      tabId, task, search, store: this.store, settings, embedder, queries: this.queries, conditions: this.conditions, overrides: this.overrides, model: this.model.status,
      recentlyUsed: tabId < 0 ? [] : this.tasks.usedIn(tabId), dismissed: tabId < 0 ? [] : this.tasks.dismissedIn(tabId),
      learning: { active: () => this.learning.active(), noteShown: (id, t, cards) => { if (!this.closed.has(id)) this.learning.noteShown(id, t, cards); } }, seq,
    });
  }

  private bare(tabId: number, seq: number, status: PanelState['status']): PanelState {
    return { tabId, status, cards: [], trace: [], model: this.model.status, memorySize: this.store.size, seq };
  }
}
