/** Small facts about a memory item every layer shows or sorts by (typed by shape: lib/core imports nothing). */

/** Characters of the text that stand in for a missing title. */
const UNTITLED_CHARS = 60;

/**
 * What a card, a row or a reason calls the item: its title, else the start of its text. With `max`, cut to that many
 * characters, title too (a quote inside a sentence).
 */
export function displayTitle(item: { title?: string; text: string }, max?: number): string {
  return max === undefined ? item.title || item.text.slice(0, UNTITLED_CHARS) : (item.title || item.text).slice(0, max);
}

/** When the item was last written (created or edited), epoch ms: "newest" among instructions and decisions. */
export function lastTouched(item: { createdAt?: number; updatedAt?: number }): number {
  return Math.max(item.createdAt || 0, item.updatedAt || 0);
}
