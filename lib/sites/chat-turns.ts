/**
 * The turns of a chat transcript as the page has shown them. Virtualised transcripts (ChatGPT, Claude) empty or
 * remove the turns scrolled out of view, so reading only what is in the DOM would take an older turn on screen for
 * the latest. Turns are keyed by the ids the site gives them and kept, as they were last read on screen, for the
 * page's life; a turn removed from the DOM keeps its place when the site numbers its turns.
 */

/** A turn's identity: the site's id for it, and its place in the transcript when the site gives one. */
export interface TurnKey {
  id: string;
  index?: number;
}

/** One turn of the DOM: its key (if the site has one) and its text as read now ('' when emptied). */
export interface LiveTurn {
  key?: TurnKey;
  line: string;
}

/** Bounds what one page keeps (a long conversation scrolled through end to end). */
const MAX_KEPT = 400;

export class TurnMemory {
  private conversation = '';
  private kept = new Map<string, { index?: number; line: string }>();

  /**
   * The transcript's lines, oldest first, with emptied and removed turns filled from what was read of them before;
   * null for a turn never read (an emptied turn the page has not shown). `conversation` names the transcript: what
   * was kept of another one is dropped.
   */
  lines(conversation: string, live: LiveTurn[]): (string | null)[] {
    if (conversation !== this.conversation) {
      this.conversation = conversation;
      this.kept.clear();
    }
    for (const t of live) {
      if (!t.key || !t.line) continue;
      const before = this.kept.get(t.key.id);
      // A turn that now says something else was edited, regenerated or switched to another branch: the turns kept
      // after it were that other branch's.
      const at = t.key.index;
      if (before && before.line !== t.line && at !== undefined) {
        for (const [id, k] of this.kept) if (k.index !== undefined && k.index > at) this.kept.delete(id);
      }
      this.kept.delete(t.key.id);
      this.kept.set(t.key.id, { index: t.key.index, line: t.line });
    }
    while (this.kept.size > MAX_KEPT) this.kept.delete(this.kept.keys().next().value as string);
    const entries = live.map((t) => ({ id: t.key?.id, index: t.key?.index, line: t.line || (t.key ? (this.kept.get(t.key.id)?.line ?? null) : null) }));
    // Turns removed from the DOM come back in their place only where every turn's place is known.
    if (entries.length && entries.every((e) => e.index !== undefined)) {
      const present = new Set(entries.map((e) => e.id));
      for (const [id, k] of this.kept) if (!present.has(id) && k.index !== undefined) entries.push({ id, index: k.index, line: k.line });
      entries.sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
    }
    return entries.map((e) => e.line);
  }
}

/** A number from an attribute value ("conversation-turn-12" → 12), or undefined. */
export function trailingNumber(v: string | null | undefined): number | undefined {
  const m = v ? /(\d+)$/.exec(v) : null;
  return m ? Number(m[1]) : undefined;
}
