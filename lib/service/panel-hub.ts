import type { PanelPush, PanelState, PanelWatch } from '../messaging/protocol';

/** The part of a runtime port the hub uses (a fake in unit tests). */
export interface HubPort {
  postMessage(message: unknown): void;
  onMessage: { addListener(cb: (message: unknown) => void): void };
  onDisconnect: { addListener(cb: () => void): void };
}

export interface RankOptions {
  /** Panel pushes: a model still loading is not waited for (cards ranked by words now, semantic ones later). */
  lexicalFirst?: boolean;
  /** The user invoked Backstory on the page (the shortcut): the page was read under the activeTab grant. */
  invoked?: boolean;
}

/** What the hub needs from the rest of the service. */
export interface PanelRanker {
  /** Ranks a tab; `seq` numbers this ranking among the tab's. */
  rank(tabId: number, seq: number, search: string | undefined, opts: RankOptions): Promise<PanelState>;
  /** What a panel shows while a new reading of its tab is being ranked (seq -1: never newer than a ranking). */
  searching(tabId: number, search: string | undefined): PanelState;
  /** A panel started watching a tab no panel watched: read the page afresh (not a reading from before a restart). */
  firstWatch(tabId: number): Promise<void>;
}

const searchKey = (search: string | undefined) => search?.trim() ?? '';

/**
 * The open panels and what each watches, and which ranking each has been sent. Rankings of a tab are numbered; a
 * ranking reaches every panel watching that tab and search unless a newer one already did, or the page has been
 * read again since it started (it ranks text the page no longer has). Each distinct tab and search is ranked once
 * per change, however many panels show it.
 */
export class PanelHub {
  /** Panels watching a tab (a port of a page that shows no ranking, like the options page, is in `ports` only). */
  private panels = new Map<HubPort, PanelWatch>();
  /** Every open extension page port: capture, indexing and model pushes go to all. */
  private ports = new Set<HubPort>();
  /** Rankings started per tab, numbered in order. */
  private seq = new Map<number, number>();
  /** Per tab and search, the newest ranking sent: an older one finishing later is not sent over it. */
  private delivered = new Map<string, number>();
  /** Per tab, the first ranking of the page's latest reading: earlier ones rank text the page no longer has. */
  private current = new Map<number, number>();

  constructor(private readonly ranker: PanelRanker) {}

  connect(port: HubPort): void {
    this.ports.add(port);
    port.onDisconnect.addListener(() => {
      this.ports.delete(port);
      this.panels.delete(port);
    });
    port.onMessage.addListener((msg: unknown) => {
      const w = msg as PanelWatch;
      if (typeof w?.tabId !== 'number') return;
      const known = [...this.panels.values()].some((x) => x.tabId === w.tabId);
      this.panels.set(port, { tabId: w.tabId, search: w.search });
      void (known ? Promise.resolve() : this.ranker.firstWatch(w.tabId)).then(() => this.rank(w.tabId, w.search, { lexicalFirst: true }));
    });
  }

  /** Ranks a tab now, returns the state to the caller and sends it to the panels watching that tab and search. */
  async rank(tabId: number, search?: string, opts: RankOptions = {}): Promise<PanelState> {
    const seq = (this.seq.get(tabId) ?? 0) + 1;
    this.seq.set(tabId, seq);
    const state = await this.ranker.rank(tabId, seq, search, opts);
    this.deliver(state, search);
    return state;
  }

  /** Re-ranks every distinct tab and search a panel watches (memory, settings or model changed). */
  refreshAll(): void {
    for (const [tabId, search] of this.watched()) void this.rank(tabId, search, { lexicalFirst: true });
  }

  /** The tab's page was read again: its panels show "searching" at once, then the new ranking. */
  refreshTab(tabId: number): void {
    this.current.set(tabId, (this.seq.get(tabId) ?? 0) + 1);
    for (const [port, watch] of this.panels) if (watch.tabId === tabId) this.send(port, { type: 'state', state: this.ranker.searching(tabId, watch.search) });
    for (const [tab, search] of this.watched()) if (tab === tabId) void this.rank(tabId, search, { lexicalFirst: true });
  }

  /** Sends a push to every open extension page. */
  broadcast(push: PanelPush): void {
    for (const port of this.ports) this.send(port, push);
  }

  /** The tab closed: its bookkeeping goes. */
  forgetTab(tabId: number): void {
    this.seq.delete(tabId);
    this.current.delete(tabId);
    for (const key of this.delivered.keys()) if (key.startsWith(`${tabId}\n`)) this.delivered.delete(key);
  }

  /** Each distinct tab and (trimmed) search some panel watches, once. */
  private watched(): [number, string | undefined][] {
    const out = new Map<string, [number, string | undefined]>();
    for (const w of this.panels.values()) out.set(`${w.tabId}\n${searchKey(w.search)}`, [w.tabId, searchKey(w.search) || undefined]);
    return [...out.values()];
  }

  private deliver(state: PanelState, search: string | undefined): void {
    const watching = [...this.panels].filter(([, w]) => w.tabId === state.tabId && searchKey(w.search) === searchKey(search));
    if (!watching.length) return; // nobody to show it to (and nothing to remember: a search typed once stays out)
    const key = `${state.tabId}\n${searchKey(search)}`;
    if ((this.delivered.get(key) ?? 0) > state.seq || (this.current.get(state.tabId) ?? 0) > state.seq) return;
    this.delivered.set(key, state.seq);
    for (const [port] of watching) this.send(port, { type: 'state', state });
  }

  private send(port: HubPort, push: PanelPush): void {
    try {
      port.postMessage(push);
    } catch {
      // The page went away without a disconnect event reaching us yet.
      this.ports.delete(port);
      this.panels.delete(port);
    }
  }
}
