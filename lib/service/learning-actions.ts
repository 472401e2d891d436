import type { FeedbackBlock } from '../learn/feedback-file';
import type { Learning, LearningReport } from '../learn/learning';
import type { FeedbackAction } from '../learn/types';
import type { SettingsCache } from './settings-cache';

/**
 * Learning from feedback, as the pages ask for it: what the user does with cards goes to the on-device learner with
 * the weights it learns from, and the options page reads and switches what was learned.
 */
export class LearningActions {
  constructor(
    private readonly learning: Learning,
    private readonly settings: SettingsCache,
    private readonly panels: { refreshAll(): void },
    /** The switch, a reset or an import changed learning: sync soon. */
    private readonly changed: () => void = () => {},
  ) {}

  private async weights() {
    return (await this.settings.rank()).weights;
  }

  /** Never fails the user's action: a feedback event that cannot be stored is dropped. */
  async record(tabId: number, id: string, action: FeedbackAction): Promise<{ ok: true }> {
    // Feedback rides the next pass (the alarm's, or a memory change's) rather than start one: learning's value is
    // written whole, so a segment per click would fill the synced folder.
    await this.learning.feedback(tabId, id, action, await this.weights()).catch(() => {});
    return { ok: true };
  }

  /** Insert all: every card in the package is a use in this situation. */
  async recordTogether(tabId: number, ids: string[], action: FeedbackAction): Promise<{ ok: true }> {
    await this.learning.feedbackTogether(tabId, ids, action, await this.weights()).catch(() => {});
    return { ok: true };
  }

  async status(): Promise<LearningReport> {
    return this.learning.status(await this.weights());
  }

  async set(change: { enabled?: boolean; reset?: boolean }): Promise<LearningReport> {
    const report = await this.learning.set(change, await this.weights());
    this.panels.refreshAll();
    this.changed();
    return report;
  }

  /** The feedback of an imported memory file, checked before the commit; its phrases count only from a trusted file. */
  async importFeedback(block: FeedbackBlock, trusted: boolean): Promise<number> {
    const added = await this.learning.importFeedback(block, await this.weights(), { withPhrases: trusted });
    if (added) this.changed();
    return added;
  }

  /** The `learning` value sync sends from this device. */
  syncValue(): Promise<unknown> {
    return this.learning.syncValue();
  }

  /** What the devices' learning merged to: new events are kept and the weights refitted; panels rank again. */
  async mergeSynced(values: readonly unknown[]): Promise<number> {
    const added = await this.learning.mergeSynced(values, await this.weights());
    this.panels.refreshAll();
    return added;
  }

  forgetTab(tabId: number): void {
    this.learning.forgetTab(tabId);
  }
}
