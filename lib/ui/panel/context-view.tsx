import { useEffect, useRef, useState } from 'preact/hooks';
import type { MemoryInput } from '../../memory/types';
import type { PanelState, PanelStatus } from '../../messaging/protocol';
import { callBackground } from '../../messaging/rpc';
import type { RankedCard } from '../../rank/types';
import { Card } from '../card';
import { Welcome } from '../welcome';
import { AccessNotes, EmptyState } from './access-notes';
import { copyText } from './clipboard';
import { NewContactForm, NewContactOffers } from './new-contact';
import { PackagePreview, type PackageView } from './package-preview';
import { ReadingNote, readingNoteWords } from './reading-note';
import type { PanelActions } from './panel-actions';
import { firstName } from './status-text';
import type { Toast } from './toast';
import { WhyNot } from './why-not';

/** The Context tab: why the page is not read, offers for unknown people, the package, the ranked cards, "why not?". */
export function ContextView(props: {
  state: PanelState | undefined;
  status: PanelStatus;
  tabId: number | undefined;
  search: string;
  actions: PanelActions;
  show: (t: Toast) => void;
  fail: (e: unknown) => void;
  onAllow: (host: string, pattern: string) => void;
  onTurnOn: (site: string) => void;
}) {
  const { state, tabId, actions, show, fail } = props;
  const [explicit, setExplicit] = useState<string[] | null>(null);
  const [pkgOverride, setPkgOverride] = useState<PackageView>();
  const [noteFor, setNoteFor] = useState<string>();
  const [pkgOpen, setPkgOpen] = useState(false);
  const listRef = useRef<HTMLOListElement>(null);
  const cards = state?.cards ?? [];
  const cardKey = cards.map((c) => c.item.id).join(',');

  // A new ranking resets a hand-picked package selection.
  useEffect(() => {
    setExplicit(null);
    setPkgOverride(undefined);
  }, [cardKey, tabId]);
  useEffect(() => {
    if (!explicit || tabId === undefined) return;
    let live = true;
    void callBackground('package:build', { tabId, ids: explicit, search: props.search.trim() || undefined }).then((p) => live && setPkgOverride(p), () => {});
    return () => {
      live = false;
    };
  }, [explicit, tabId]);

  const selectedIds = explicit ?? state?.package?.ids ?? cards.map((c) => c.item.id);
  const pkg = explicit ? pkgOverride : state?.package;
  const traceById = new Map((state?.trace ?? []).map((e) => [e.id, e]));
  const taskPeople = state?.task?.people ?? [];
  // A search is not the page's reading: the note is about what the page gave.
  const pageTask = state?.search ? undefined : state?.task;
  const fieldOnlyWhy = readingNoteWords(pageTask?.landmarks, pageTask?.destination)?.why;

  /** A copy or drag is a use of the card: learning reads it against the cards shown (off when learning is). */
  const feedback = (card: RankedCard, action: 'copy' | 'drag') => {
    if (tabId !== undefined) void callBackground('feedback:record', { tabId, id: card.item.id, action }).catch(() => {});
  };
  const actionsFor = (card: RankedCard) => ({
    insert: (passages?: number[]) => void actions.insert(card.item.id, passages),
    copy: (text: string) => void copyText(text).then((ok) => {
      show(ok ? { text: 'Copied.' } : { text: 'Could not copy.', error: true });
      if (ok) feedback(card, 'copy');
    }),
    dragged: () => feedback(card, 'drag'),
    pin: () => void actions.update(card.item.id, { pinned: !card.item.pinned }),
    dismiss: () => {
      if (tabId === undefined) return;
      void callBackground('card:dismiss', { tabId, id: card.item.id }).then(
        () => show({ text: 'Hidden on this page. It stays in your memory.' }),
        fail,
      );
    },
    remove: () => void actions.remove(card.item),
    edit: async (patch: Parameters<PanelActions['update']>[1]) => void (await actions.update(card.item.id, patch)),
    toggleSelect: () => {
      const set = new Set(selectedIds);
      if (set.has(card.item.id)) set.delete(card.item.id);
      else set.add(card.item.id);
      setExplicit(cards.map((c) => c.item.id).filter((id) => set.has(id)));
    },
  });

  /** Arrow keys move between cards, Home/End jump; Enter on a card inserts it (handled by the card). */
  const onListKey = (e: KeyboardEvent) => {
    if (!['ArrowDown', 'ArrowUp', 'Home', 'End'].includes(e.key)) return;
    const t = e.target as HTMLElement;
    if (/^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName)) return;
    const els = Array.from(listRef.current?.querySelectorAll<HTMLElement>('[data-testid="card"]') ?? []);
    if (!els.length) return;
    const cur = els.findIndex((el) => el.contains(t));
    const next = e.key === 'Home' ? 0 : e.key === 'End' ? els.length - 1 : Math.min(els.length - 1, Math.max(0, cur + (e.key === 'ArrowDown' ? 1 : -1)));
    e.preventDefault();
    els[next].focus();
  };

  const saveNote = async (person: string, input: MemoryInput) => {
    try {
      await callBackground('memory:add', { items: [input] });
      setNoteFor(undefined);
      show({ text: `Saved a note about ${firstName(person)}.` });
    } catch (e) {
      fail(e);
    }
  };

  return (
    <section aria-label="Context for this task">
      <AccessNotes state={state} onAllow={props.onAllow} onTurnOn={props.onTurnOn} />
      <ReadingNote landmarks={pageTask?.landmarks} destination={pageTask?.destination} />
      {noteFor ? <NewContactForm person={noteFor} onCancel={() => setNoteFor(undefined)} onSave={(v) => saveNote(noteFor, v)} /> : null}
      <NewContactOffers people={state?.unknownPeople ?? []} except={noteFor} onAdd={setNoteFor} />
      {state?.memorySize === 0 && !cards.length ? (
        // A first run (or a cleared memory) never opens on a blank panel: what Backstory does and how to fill it.
        props.status === 'empty' ? <div data-testid="empty-state"><Welcome onError={(m) => show({ text: m, error: true })} /></div>
          : <Welcome onError={(m) => show({ text: m, error: true })} />
      ) : props.status === 'empty' ? <EmptyState /> : null}
      {cards.length ? (
        <PackagePreview pkg={pkg} count={cards.length} canInsert={tabId !== undefined} onInsert={() => void actions.insertAll(selectedIds)}
          open={pkgOpen} setOpen={setPkgOpen} />
      ) : null}
      <ol class="cards" aria-label="Ranked context, best first" ref={listRef} onKeyDown={onListKey}>
        {cards.map((card, i) => (
          <Card
            key={card.item.id}
            card={card}
            rank={i + 1}
            trace={traceById.get(card.item.id)}
            taskPeople={taskPeople}
            fieldOnly={fieldOnlyWhy}
            selected={selectedIds.includes(card.item.id)}
            canAct={tabId !== undefined}
            actions={actionsFor(card)}
          />
        ))}
      </ol>
      {state?.trace.length ? <WhyNot trace={state.trace} leftOut={state.leftOut} tabId={tabId} /> : null}
    </section>
  );
}
