import { useEffect, useState } from 'preact/hooks';
import type { TraceEntry } from '../../rank/types';
import { callBackground } from '../../messaging/rpc';
import { LEFT_OUT_SHOWN } from '../../messaging/protocol';
import { needsWords, traceReason, withWords } from '../../rank/trace';
import { FactorBars } from '../card';
import { stageText } from '../format';

/** An entry's matched terms are written the same way wherever it comes back (the same item, the same terms). */
const wordsKey = (e: TraceEntry) => `${e.id}\n${e.notes?.terms?.join(' ') ?? ''}`;

/**
 * Left-out candidates and why ("why not?"): the trace entries the ranker did not select. An update carries the first
 * of them and how many there are (`leftOut`); a search asks the worker, which keeps the rest (`trace:find`). The words
 * an entry matched are read from its item when the entry is shown (the ranker traces hundreds and leaves them unread).
 */
export function WhyNot({ trace, leftOut, tabId }: { trace: TraceEntry[]; leftOut?: number; tabId?: number }) {
  const [q, setQ] = useState('');
  const [open, setOpen] = useState(false);
  const [words, setWords] = useState<ReadonlyMap<string, string[]>>(new Map());
  const [titles, setTitles] = useState<ReadonlyMap<string, string>>(new Map());
  const [found, setFound] = useState<{ find: string; entries: TraceEntry[] }>();
  const out = trace.filter((e) => !e.included);
  // An entry the ranking did not read (`untitled`) has its title read when it is shown.
  const titleOf = (e: TraceEntry): string | undefined => (e.untitled ? titles.get(e.id) : e.title);
  const find = q.trim().toLowerCase();
  // The worker's answer for this search once it came; meanwhile, what this update carries that matches.
  const shown = !find
    ? out.slice(0, LEFT_OUT_SHOWN)
    : found?.find === find
      ? found.entries
      : out.filter((e) => (titleOf(e) ?? '').toLowerCase().includes(find)).slice(0, LEFT_OUT_SHOWN);
  const unread = open ? shown.filter((e) => needsWords(e) && !words.has(wordsKey(e))) : [];
  const unreadKey = unread.map(wordsKey).join('\n\n');
  const untitled = open ? shown.filter((e) => e.untitled && !titles.has(e.id)).map((e) => e.id) : [];
  const untitledKey = untitled.join('\n');
  const traceKey = trace.map((e) => e.id).join('\n');

  useEffect(() => {
    if (!find || tabId === undefined) return;
    let live = true;
    // Typing waits a moment; each ranking's trace is searched again (what was left out may have changed). A worker
    // that started again since keeps no trace (seq -1): what this update carries is searched until the next ranking.
    const t = setTimeout(() => {
      void callBackground('trace:find', { tabId, text: find }).then(
        (r) => live && r.seq >= 0 && setFound({ find, entries: r.entries }),
        () => {},
      );
    }, 150);
    return () => {
      live = false;
      clearTimeout(t);
    };
  }, [find, tabId, traceKey, leftOut]);

  useEffect(() => {
    if (!untitled.length) return;
    const listed = new Set(shown.map((e) => e.id));
    const keep = (got: string[]) =>
      setTitles((had) => {
        // Kept across rankings while the panel is open; past the bound, only those shown now.
        const next = new Map(had.size > 5000 ? [...had].filter(([id]) => listed.has(id)) : had);
        untitled.forEach((id, i) => next.set(id, got[i] ?? ''));
        return next;
      });
    void callBackground('trace:titles', { ids: untitled }).then(
      (r) => keep(r.titles),
      () => keep([]),
    );
  }, [untitledKey]);

  useEffect(() => {
    if (!unread.length) return;
    const items = unread.map((e) => ({ id: e.id, terms: e.notes!.terms! }));
    const keep = (got: string[][]) =>
      setWords((had) => {
        // Kept while the panel is open, across rankings; a long session starts again rather than grow.
        const next = new Map(had.size > 1000 ? [] : had);
        unread.forEach((e, i) => next.set(wordsKey(e), got[i] ?? items[i].terms));
        return next;
      });
    // Without an answer the terms stand as the index keeps them, rather than no reason at all.
    void callBackground('trace:words', { items }).then(
      (r) => keep(r.words),
      () => keep(items.map((x) => x.terms)),
    );
  }, [unreadKey]);

  if (!out.length) return null;
  const reason = (e: TraceEntry): string | undefined => {
    if (!needsWords(e)) return traceReason(e);
    const w = words.get(wordsKey(e));
    return w ? traceReason(withWords(e, w)) : undefined;
  };
  return (
    <details class="why-not" data-testid="why-not" onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}>
      <summary>Why not? {leftOut ?? out.length} left out</summary>
      {(leftOut ?? out.length) > 6 ? (
        <input type="search" class="why-not-filter" placeholder="Find a memory…" aria-label="Find a left-out memory" value={q}
          onInput={(e) => setQ((e.target as HTMLInputElement).value)} />
      ) : null}
      <ul>
        {shown.map((e) => {
          const why = reason(e);
          return (
            <li key={e.id} data-testid="why-not-item" data-id={e.id} data-stage={e.stage ?? ''}>
              <strong aria-busy={titleOf(e) === undefined}>{titleOf(e) ?? ''}</strong> <span class="stage">{stageText(e)}</span>
              <div class="muted" aria-busy={why === undefined}>{why ?? ''}</div>
              {e.contributions ? <FactorBars values={e.contributions} label={`Score of ${titleOf(e) ?? ''}`} /> : null}
            </li>
          );
        })}
      </ul>
    </details>
  );
}
