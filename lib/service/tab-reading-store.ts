import { browser } from 'wxt/browser';
import type { TaskReading } from '../rank/types';

/**
 * The latest task reading per tab. Kept in storage.session as well as memory because MV3 may stop the worker
 * between the content script's update and the panel's request.
 */
export class TabReadingStore {
  private tasks = new Map<number, TaskReading>();
  private used = new Map<number, string[]>();
  private dismissed = new Map<number, Set<string>>();

  async get(tabId: number): Promise<TaskReading | undefined> {
    if (!this.tasks.has(tabId)) {
      const key = `task:${tabId}`;
      const got = await browser.storage.session.get(key);
      if (got[key]) this.tasks.set(tabId, got[key] as TaskReading);
    }
    return this.tasks.get(tabId);
  }

  /** The tab whose page reported last (kept across worker stops), or undefined when no page has reported. */
  async newest(): Promise<{ tabId: number; reading: TaskReading } | undefined> {
    const stored = (await browser.storage.session.get(null)) as Record<string, TaskReading>;
    let best: { tabId: number; reading: TaskReading } | undefined;
    const consider = (tabId: number, reading: TaskReading | undefined) => {
      if (reading && Number.isFinite(tabId) && (!best || reading.at > best.reading.at)) best = { tabId, reading };
    };
    for (const [key, reading] of Object.entries(stored)) if (key.startsWith('task:')) consider(Number(key.slice(5)), reading);
    for (const [tabId, reading] of this.tasks) consider(tabId, reading);
    return best;
  }

  /** The frame whose focused field the task came from: inserts go there (an editor may live in an iframe). */
  private frames = new Map<number, number>();
  setFrame(tabId: number, frameId: number): void {
    this.frames.set(tabId, frameId);
  }
  frameOf(tabId: number): number {
    return this.frames.get(tabId) ?? 0;
  }

  async set(tabId: number, reading: TaskReading): Promise<void> {
    const prev = this.tasks.get(tabId);
    if (prev && prev.url !== reading.url) this.dismissed.delete(tabId);
    this.tasks.set(tabId, reading);
    await browser.storage.session.set({ [`task:${tabId}`]: reading });
  }

  async forget(tabId: number): Promise<void> {
    this.tasks.delete(tabId);
    this.frames.delete(tabId);
    this.used.delete(tabId);
    this.dismissed.delete(tabId);
    await browser.storage.session.remove(`task:${tabId}`);
  }

  markUsed(tabId: number, id: string): void {
    this.used.set(tabId, [id, ...(this.used.get(tabId) ?? []).filter((x) => x !== id)].slice(0, 20));
  }
  usedIn(tabId: number): string[] {
    return this.used.get(tabId) ?? [];
  }
  dismiss(tabId: number, id: string): void {
    const set = this.dismissed.get(tabId) ?? new Set<string>();
    set.add(id);
    this.dismissed.set(tabId, set);
  }
  dismissedIn(tabId: number): string[] {
    return [...(this.dismissed.get(tabId) ?? [])];
  }
}
