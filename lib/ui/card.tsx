import type { ComponentChildren } from 'preact';
import { useId, useMemo, useRef, useState } from 'preact/hooks';
import type { MemoryPatch } from '../memory/types';
import type { RankedCard, TraceEntry } from '../rank/types';
import { FACTORS, FACTOR_NAMES, type FactorScores } from '../core/factors';
import { splitByTerms } from '../memory/index/tokenize';
import { excerpt, splitPassages } from '../memory/index/passages';
import { age, plainWhy, safeUrl, sourceLine } from './format';
import { ItemEditor } from './item-editor';
import { ScopeChip } from './scope-field';
import { displayTitle } from '../core/items';

/** The card's text with the matched words marked; built from text nodes, never HTML. */
export function Snippet({ text, matched, max = 280, clamp = false }: { text: string; matched: string[]; max?: number; clamp?: boolean }) {
  const snippet = text.length > max ? text.slice(0, max - 3) + '…' : text;
  // Clamped to two lines in the card list (the whole snippet shows with the explanation); screen readers get it all.
  const cls = clamp ? 'snippet snippet-clamp' : 'snippet';
  // The ranker's terms are stems ("retri"): mark each word that stands for one ("Retry", "retries").
  const parts = splitByTerms(snippet, matched.filter((w) => w.length > 1));
  if (parts.length === 1) return <p class={cls}>{snippet}</p>;
  return <p class={cls}>{parts.map((p, i) => (i % 2 ? <mark key={i}>{p}</mark> : p))}</p>;
}

/** Which part of a long item matched, in words: "Matched in passage 3 of 7 (also 5)". */
export function passageWhy(choice: { passages: number[]; of: number }): string {
  const [best, ...also] = choice.passages.map((k) => k + 1);
  return `Matched in passage ${best} of ${choice.of}${also.length ? ` (also ${also.join(' and ')})` : ''}; the card shows ${choice.passages.length === 1 ? 'it' : 'them'}, the rest is folded.`;
}

/** Factor contributions as small bars (the ranker's weighted contributions when the trace has them). */
export function FactorBars({ values, label }: { values: FactorScores; label: string }) {
  const shown = FACTOR_NAMES.filter((n) => values[n] >= 0.005);
  const max = Math.max(...shown.map((n) => values[n]), 0.0001);
  if (!shown.length) return <p class="muted">No factor contributed.</p>;
  return (
    <div class="bars" role="list" aria-label={label}>
      {shown.map((n) => (
        <div class="bar-row" role="listitem" key={n} aria-label={`${FACTORS[n].label} ${values[n].toFixed(2)}`}>
          <span>{FACTORS[n].label}</span>
          <span class="bar" aria-hidden="true"><span style={{ width: `${Math.max(3, Math.round((values[n] / max) * 100))}%` }} /></span>
          <span class="num">{values[n].toFixed(2)}</span>
        </div>
      ))}
    </div>
  );
}

/**
 * The card's rarely used actions behind a "more" button (a disclosure: the buttons stay ordinary buttons in the tab
 * order once shown). Escape or moving the focus out closes it.
 */
function CardMenu({ title, children }: { title: string; children: ComponentChildren }) {
  const [open, setOpen] = useState(false);
  const toggle = useRef<HTMLButtonElement>(null);
  const menuId = useId();
  return (
    <span
      class="card-menu"
      onFocusOut={(e) => {
        const next = e.relatedTarget as Node | null;
        if (open && next && !(e.currentTarget as HTMLElement).contains(next)) setOpen(false);
      }}
      onKeyDown={(e) => {
        if (e.key === 'Escape' && open) {
          e.stopPropagation();
          setOpen(false);
          toggle.current?.focus();
        }
      }}
    >
      <button ref={toggle} data-testid="card-more" aria-expanded={open} aria-controls={menuId} aria-label={`More actions for “${title}”`}
        title="Copy, edit, source, delete" onClick={() => setOpen(!open)}>
        ⋯
      </button>
      <span class="card-menu-list" id={menuId} hidden={!open} onClick={(e) => (e.target as HTMLElement).closest('button, a') && setOpen(false)}>
        {children}
      </span>
    </span>
  );
}

export interface CardActions {
  /** Inserts what the card shows: these passages of a long item, or (none) the whole item. */
  insert(passages?: number[]): void;
  /** Copies what the card shows. */
  copy(text: string): void;
  pin(): void;
  dismiss(): void;
  remove(): void;
  edit(patch: MemoryPatch): Promise<void>;
  toggleSelect(): void;
  /** The card was dragged out (into a field, presumably): a use, like insert. */
  dragged?(): void;
}

export function Card(props: {
  card: RankedCard;
  rank: number;
  trace?: TraceEntry;
  taskPeople: string[];
  /** Set when the reading was the focused field alone (the page's structure was not found): *Why?* says so. */
  fieldOnly?: string;
  selected: boolean;
  canAct: boolean;
  actions: CardActions;
}) {
  const { card, rank, trace, actions } = props;
  const [open, setOpen] = useState(false);
  const [editing, setEditing] = useState(false);
  // A long item shows the passages that matched; "Show all" unfolds the whole item (and Insert then puts it all in).
  const [showAll, setShowAll] = useState(false);
  const { item } = card;
  const choice = card.passages;
  const folded = !!choice && !showAll;
  const shown = useMemo(() => (folded ? excerpt(item.text, splitPassages(item.text), choice.passages) : item.text), [item.text, folded, choice]);
  const insert = () => actions.insert(folded ? choice.passages : undefined);
  const source = sourceLine(item);
  const url = safeUrl(item.source.url);
  const title = displayTitle(item);
  const whyId = `why-${item.id}`;

  const onKeyDown = (e: KeyboardEvent) => {
    if (e.target !== e.currentTarget) return; // keys inside buttons and the editor act there
    if (e.key === 'Enter') {
      e.preventDefault();
      insert();
    } else if (e.key === ' ') {
      e.preventDefault();
      setOpen(!open);
    }
  };

  return (
    <li
      class={`card card-${card.kind}${props.selected ? ' card-selected' : ''}`}
      data-testid="card"
      data-kind={card.kind}
      data-id={item.id}
      tabIndex={0}
      draggable={!editing}
      onDragStart={(e) => {
        e.dataTransfer?.setData('text/plain', shown);
        if (e.dataTransfer) e.dataTransfer.effectAllowed = 'copy';
        actions.dragged?.();
      }}
      onKeyDown={onKeyDown}
      aria-label={`${rank}. ${card.kind}: ${title}. Enter inserts, space explains.`}
    >
      <div class="card-top">
        <input type="checkbox" class="select" data-testid="card-select" checked={props.selected} onChange={actions.toggleSelect}
          aria-label={`Include “${title}” in the package`} title="Include in the package" />
        <span class={`badge badge-${card.kind}`} data-testid="card-kind">{card.kind}</span>
        <strong class="card-title" data-testid="card-title" title={title}>{title}</strong>
        {item.pinned ? <span class="pin" title="Pinned" aria-label="Pinned">●</span> : null}
      </div>
      <ScopeChip item={item} />
      {editing ? (
        <ItemEditor
          showText
          itemId={item.id}
          initial={{ title: item.title, text: item.text, kind: item.kind, people: item.people, tags: item.tags, sites: item.sites, scope: item.scope }}
          onCancel={() => setEditing(false)}
          onSave={async (v) => {
            await actions.edit(v);
            setEditing(false);
          }}
        />
      ) : (
        <>
          <Snippet text={shown} matched={card.matched} clamp={!open} max={choice ? Infinity : undefined} />
          {choice ? (
            <button class="link" data-testid="card-show-all" aria-expanded={showAll} onClick={() => setShowAll(!showAll)}
              title={showAll ? 'Show only the parts that matched; Insert puts those in' : 'Show the whole memory; Insert then puts it all in'}>
              {showAll ? 'Show the matching part' : `Show all (${choice.of} parts)`}
            </button>
          ) : null}
        </>
      )}
      <div class="card-foot">
        <div class="meta muted" data-testid="card-meta">
          {[source, item.people.join(', '), age(item.createdAt)].filter(Boolean).join(' · ')}
        </div>
        {/* Insert is the card's one loud action; the rest stay quiet until the card is hovered or holds the focus. */}
        <div class="card-act">
          <div class="quiet-actions" role="group" aria-label={`Actions for “${title}”`}>
            <button data-testid="card-why" aria-expanded={open} aria-controls={whyId} onClick={() => setOpen(!open)}>Why?</button>
            <button data-testid="card-pin" aria-pressed={item.pinned} onClick={actions.pin} title={item.pinned ? 'Stop always including it' : 'Always include it'}>
              {item.pinned ? 'Unpin' : 'Pin'}
            </button>
            <button data-testid="card-dismiss" disabled={!props.canAct} onClick={actions.dismiss} title="Not useful here: hide it on this page">
              Not useful
            </button>
            <CardMenu title={title}>
              <button data-testid="card-copy" onClick={() => actions.copy(shown)} title="Copy the text as shown">Copy</button>
              <button data-testid="card-edit" onClick={() => setEditing(!editing)} aria-pressed={editing}>Edit</button>
              {url ? (
                <a class="button" data-testid="card-open" href={url} target="_blank" rel="noopener noreferrer" title={url}>Source</a>
              ) : null}
              <button data-testid="card-delete" class="danger" onClick={actions.remove} title="Delete this memory (can be undone)">Delete</button>
            </CardMenu>
          </div>
          <button data-testid="card-insert" class="primary" onClick={insert} disabled={!props.canAct} title="Insert into the focused field (Enter)">Insert</button>
        </div>
      </div>
      {open ? (
        <div class="why" id={whyId} data-testid="card-why-text">
          <p class="why-line">{plainWhy(card, props.taskPeople)}</p>
          {props.fieldOnly ? <p data-testid="card-why-field-only">{props.fieldOnly}</p> : null}
          {choice ? <p data-testid="card-passage">{passageWhy(choice)}</p> : null}
          <ul>{card.why.map((w, i) => <li key={i}>{w}</li>)}</ul>
          <FactorBars values={trace?.contributions ?? card.factors} label="What the score is made of" />
          <p class="muted">Score {card.score.toFixed(2)}{trace?.stage ? ` · ${trace.stage}` : ''}</p>
        </div>
      ) : null}
    </li>
  );
}
