import { browser, type Browser } from 'wxt/browser';
import type { InsertOutcome } from '../insert/index';
import type { MemoryStore } from '../memory/store';
import { cardText } from '../rank/package';
import type { LearningActions } from './learning-actions';
import type { PhraseOffers } from './phrase-offers';
import type { PageBridge } from './page-bridge';
import type { PanelHub } from './panel-hub';
import type { TabRanker } from './tab-ranker';
import type { TabReadingStore } from './tab-reading-store';

/** Putting memory into the page's focused field: one card, the top card (the shortcut), or a package of cards. */
export class Insertion {
  constructor(
    private readonly store: MemoryStore,
    private readonly bridge: PageBridge,
    private readonly tasks: TabReadingStore,
    private readonly hub: PanelHub,
    private readonly ranker: TabRanker,
    private readonly feedback: Pick<LearningActions, 'record' | 'recordTogether'>,
    private readonly phrases?: Pick<PhraseOffers, 'prompt'>,
  ) {}

  /** Inserts a card: the passages of a long item it shows (`passages`), or the whole item. */
  async card(tabId: number, id: string, passages?: number[]): Promise<InsertOutcome> {
    await this.store.load();
    const item = await this.store.read(id);
    if (!item) throw new Error('That memory no longer exists.');
    const outcome = await this.insert(tabId, cardText({ item }, passages), [id]);
    if (outcome.ok) void this.feedback.record(tabId, id, 'insert');
    return outcome;
  }

  /**
   * The insert-top-card command: read and rank the active tab now and insert its first card. A shortcut has no panel
   * to answer in, so what did not happen is said on the page (the clipboard fallback says its own).
   */
  async topCard(tab: Browser.tabs.Tab | undefined): Promise<InsertOutcome> {
    const tabId = tab?.id ?? (await browser.tabs.query({ active: true, lastFocusedWindow: true }))[0]?.id;
    if (tabId === undefined) return { ok: false, technique: 'none', hint: 'No active tab.' };
    const outcome = await this.topCardOn(tabId);
    if (!outcome.ok && outcome.technique !== 'clipboard' && outcome.hint) {
      await this.bridge.callTaskFrame(tabId, 'page:hint', { text: outcome.hint }).catch(() => {});
    }
    return outcome;
  }

  private async topCardOn(tabId: number): Promise<InsertOutcome> {
    await this.bridge.readNow(tabId, true);
    const top = (await this.hub.rank(tabId, undefined, { invoked: true })).cards[0];
    if (!top) return { ok: false, technique: 'none', hint: 'Nothing relevant to insert.' };
    return this.card(tabId, top.item.id, top.passages?.passages).catch((e: unknown) => ({ ok: false, technique: 'none', hint: e instanceof Error ? e.message : String(e) }));
  }

  async package(tabId: number, ids: string[], search?: string): Promise<InsertOutcome> {
    const pkg = await this.ranker.packageFor(tabId, ids, search);
    if (!pkg.text) return { ok: false, technique: 'none', hint: 'Nothing selected to insert.' };
    const outcome = await this.insert(tabId, pkg.text, pkg.ids);
    if (outcome.ok) void this.feedback.recordTogether(tabId, pkg.ids, 'insert');
    return outcome;
  }

  /**
   * Inserted items count as used on this tab (continuity) and now (recency). On a chat assistant the prompt as
   * written so far counts toward offering its recurring phrases as an instruction.
   */
  private async insert(tabId: number, text: string, ids: string[]): Promise<InsertOutcome> {
    const task = await this.tasks.get(tabId);
    const outcome = await this.bridge.callTaskFrame(tabId, 'page:insert', { text });
    if (outcome.ok && task?.field?.text && task.destination === 'chat') void this.phrases?.prompt(tabId, task.field.text, false).catch(() => {});
    if (outcome.ok) {
      for (const id of ids) this.tasks.markUsed(tabId, id);
      await this.store.touch(ids);
    }
    return outcome;
  }
}
