import { useState } from 'preact/hooks';
import { callBackground } from '../messaging/rpc';
import type { RankedCard } from '../rank/types';
import { WEIGHT_NAMES } from '../rank/types';

function age(ms: number): string {
  const d = Math.floor((Date.now() - ms) / 86_400_000);
  if (d < 1) return 'today';
  if (d < 2) return 'yesterday';
  if (d < 60) return `${d} days ago`;
  return `${Math.floor(d / 30)} months ago`;
}

/** The card's text with the matched words marked; built from text nodes, never HTML. */
function Snippet({ text, matched }: { text: string; matched: string[] }) {
  const snippet = text.length > 280 ? text.slice(0, 277) + '…' : text;
  const words = matched.filter((w) => w.length > 1).map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  if (!words.length) return <p class="snippet">{snippet}</p>;
  const re = new RegExp(`\\b(${words.join('|')})`, 'gi');
  const parts = snippet.split(re);
  return <p class="snippet">{parts.map((p, i) => (i % 2 ? <mark key={i}>{p}</mark> : p))}</p>;
}

export function Card({ card, rank, onInsert, tabId }: { card: RankedCard; rank: number; onInsert: () => void; tabId?: number }) {
  const [open, setOpen] = useState(false);
  const { item } = card;
  const source = item.source.title || item.source.url || item.sites[0] || '';
  const total = WEIGHT_NAMES.reduce((s, n) => s + card.factors[n], 0) || 1;
  return (
    <li
      class={`card card-${card.kind}`}
      data-testid="card"
      data-kind={card.kind}
      data-id={item.id}
      draggable
      onDragStart={(e) => e.dataTransfer?.setData('text/plain', item.text)}
      aria-label={`${rank}. ${item.title}`}
    >
      <div class="card-top">
        <span class={`badge badge-${card.kind}`}>{card.kind}</span>
        <strong class="card-title">{item.title}</strong>
        {item.pinned ? <span class="pin" title="Pinned">📌</span> : null}
      </div>
      <Snippet text={item.text} matched={card.matched} />
      <div class="meta muted">
        {[source, item.people.join(', '), age(item.createdAt)].filter(Boolean).join(' · ')}
      </div>
      <div class="actions">
        <button data-testid="card-insert" class="primary" onClick={onInsert} title="Insert into the focused field">Insert</button>
        <button data-testid="card-why" aria-expanded={open} onClick={() => setOpen(!open)}>Why?</button>
        <button data-testid="card-pin" aria-pressed={item.pinned} onClick={() => void callBackground('memory:update', { id: item.id, patch: { pinned: !item.pinned } })}>
          {item.pinned ? 'Unpin' : 'Pin'}
        </button>
        <button data-testid="card-dismiss" disabled={tabId === undefined} onClick={() => tabId !== undefined && void callBackground('card:dismiss', { tabId, id: item.id })} title="Not useful here">
          Dismiss
        </button>
      </div>
      {open ? (
        <div class="why" data-testid="card-why-text">
          <ul>{card.why.map((w, i) => <li key={i}>{w}</li>)}</ul>
          <div class="bars" aria-label="Score contributions">
            {WEIGHT_NAMES.filter((n) => card.factors[n] > 0).map((n) => (
              <div class="bar-row" key={n}>
                <span>{n}</span>
                <span class="bar"><span style={{ width: `${Math.round((card.factors[n] / total) * 100)}%` }} /></span>
                <span class="num">{card.factors[n].toFixed(2)}</span>
              </div>
            ))}
          </div>
        </div>
      ) : null}
    </li>
  );
}
