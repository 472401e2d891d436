import type { Browser } from 'wxt/browser';
import { boundReading } from '../rank/reading-bounds';
import type { TaskReading } from '../rank/types';
import type { ContentRegistration } from './content-registration';
import type { PanelHub } from './panel-hub';
import type { TabReadingStore } from './tab-reading-store';

/** What content scripts report about their tab, and what the user dismissed there. */
export class ReadingUpdates {
  constructor(
    private readonly tasks: TabReadingStore,
    private readonly access: ContentRegistration,
    private readonly hub: PanelHub,
  ) {}

  /**
   * A content script read its page. Only the top frame's reading (or a frame with a focused field) describes the
   * tab's task, and only from a site the user allows: a script left in a page after access was taken back is ignored.
   * The reading is cut to its limits here too: what a page wrote reaches the ranker at a bounded cost.
   */
  async update(received: TaskReading, sender: Browser.runtime.MessageSender): Promise<{ ok: true }> {
    const reading = boundReading(received);
    const tabId = sender.tab?.id;
    if (tabId === undefined || !(sender.frameId === 0 || reading.field) || !(await this.access.allows(sender.url ?? sender.tab?.url))) return { ok: true };
    if (reading.field) this.tasks.setFrame(tabId, sender.frameId ?? 0);
    // The reading is in memory at once; the panels' re-rank need not wait for storage.session.
    const saved = this.tasks.set(tabId, reading);
    this.hub.refreshTab(tabId);
    await saved;
    return { ok: true };
  }

  dismiss(tabId: number, id: string): { ok: true } {
    this.tasks.dismiss(tabId, id);
    this.hub.refreshTab(tabId);
    return { ok: true };
  }

  closed(tabId: number): void {
    void this.tasks.forget(tabId);
    this.hub.forgetTab(tabId);
  }
}
