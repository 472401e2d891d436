import type { TraceEntry } from '../rank/types';
import { LEFT_OUT_SHOWN } from '../messaging/protocol';

/** Tabs whose last trace is kept for searches: a side panel shows its window's tab, and windows open at once are few. */
const TABS_KEPT = 3;

/**
 * The trace as it travels to the panel: the cards' entries and the first `LEFT_OUT_SHOWN` left out, in the ranking's
 * order, with the count of all left out. A mail to someone with thousands of notes traces thousands of candidates
 * (1.4 MB of JSON at 100k items, at every update); the rest stay in the worker, where `find` searches them.
 */
export function panelTrace(trace: TraceEntry[]): { trace: TraceEntry[]; leftOut: number } {
  const out: TraceEntry[] = [];
  let leftOut = 0;
  for (const e of trace) {
    if (e.included) out.push(e);
    else if (leftOut++ < LEFT_OUT_SHOWN) out.push(e);
  }
  return { trace: out, leftOut };
}

/** Titles read for searches kept across a tab's rankings, at most (more only while its trace lists them). */
const TITLES_KEPT = 5_000;

/** The last full trace of each tab whose panel ranked lately, for "Why not?" searches beyond what an update carries. */
export class KeptTraces {
  private byTab = new Map<number, { seq: number; trace: TraceEntry[]; titles: Map<string, string> }>();

  /** Keeps a ranking's trace unless a newer ranking of the tab was kept (rankings overlap). */
  keep(tabId: number, seq: number, trace: TraceEntry[]): void {
    const had = this.byTab.get(tabId);
    if (had && had.seq > seq) return;
    let titles = had?.titles ?? new Map<string, string>();
    // Past the bound, only the titles this trace still lists: dropping them all would read them all again.
    if (titles.size > TITLES_KEPT) {
      const listed = new Set(trace.map((e) => e.id));
      titles = new Map([...titles].filter(([id]) => listed.has(id)));
    }
    this.byTab.delete(tabId); // re-inserted last: the oldest tab is the first key
    this.byTab.set(tabId, { seq, trace, titles });
    if (this.byTab.size > TABS_KEPT) this.byTab.delete(this.byTab.keys().next().value!);
  }

  /** Lets go of a closed tab's trace and the titles read for it. */
  forget(tabId: number): void {
    this.byTab.delete(tabId);
  }

  /**
   * The first `LEFT_OUT_SHOWN` left-out entries of the tab's last ranking whose title holds `text` (any case). The
   * titles of entries the ranking left unread are read with `titles` and kept for the tab's next searches; such an
   * entry comes back with its title. `seq` says which ranking answered (-1: none is kept).
   */
  async find(tabId: number, text: string, titles: (ids: string[]) => Promise<string[]>): Promise<{ seq: number; entries: TraceEntry[] }> {
    const kept = this.byTab.get(tabId);
    const want = text.trim().toLowerCase();
    if (!kept || !want) return { seq: kept?.seq ?? -1, entries: [] };
    const left = kept.trace.filter((e) => !e.included);
    const unread = left.filter((e) => e.untitled && !kept.titles.has(e.id)).map((e) => e.id);
    if (unread.length) (await titles(unread)).forEach((t, i) => kept.titles.set(unread[i], t));
    const entries: TraceEntry[] = [];
    for (const e of left) {
      if (entries.length >= LEFT_OUT_SHOWN) break;
      const title = e.untitled ? (kept.titles.get(e.id) ?? '') : e.title;
      if (title.toLowerCase().includes(want)) entries.push(e.untitled ? titled(e, title) : e);
    }
    return { seq: kept.seq, entries };
  }
}

/** An unread entry with its title read. */
function titled(e: TraceEntry, title: string): TraceEntry {
  const copy: TraceEntry = { ...e, title };
  delete copy.untitled;
  return copy;
}
