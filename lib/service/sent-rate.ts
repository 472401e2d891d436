/**
 * How many sent messages one tab may have saved per minute. A person writing to an assistant or a colleague sends
 * a message every few seconds at the very fastest and rarely five within a minute; a page that has found a way to
 * make sends look like the user's (a gesture it tricked out of them) is held to that pace, so it cannot flood memory
 * or pile up the repeats that make a phrase offer (lib/service/phrase-offers.ts).
 */
export const SENT_PER_TAB_PER_MINUTE = 5;
const WINDOW_MS = 60_000;

/** A sliding one-minute window of saves per tab. */
export class SentRate {
  private readonly saves = new Map<number, number[]>();

  constructor(
    private readonly max = SENT_PER_TAB_PER_MINUTE,
    private readonly now: () => number = Date.now,
  ) {}

  /** True, and counted, when the tab is under its limit; false when it already had its share this minute. */
  take(tabId: number): boolean {
    const t = this.now();
    const recent = (this.saves.get(tabId) ?? []).filter((at) => t - at < WINDOW_MS);
    // Tabs that stopped sending leave nothing behind.
    for (const [id, times] of this.saves) if (id !== tabId && times.every((at) => t - at >= WINDOW_MS)) this.saves.delete(id);
    if (recent.length >= this.max) {
      this.saves.set(tabId, recent);
      return false;
    }
    recent.push(t);
    this.saves.set(tabId, recent);
    return true;
  }
}
