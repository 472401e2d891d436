import { useEffect, useState } from 'preact/hooks';
import type { PreviewCard } from '../../messaging/protocol';
import { callBackground } from '../../messaging/rpc';
import type { RankSettings } from '../../rank/types';
import { DEFAULT_SETTINGS } from '../../settings/defaults';

/** Live ranking of a sample task under the current settings, with each card's move against the defaults. */
export function RankPreview({ settings }: { settings: RankSettings }) {
  const [text, setText] = useState('Reply to Dana about the Q3 budget review');
  const [cards, setCards] = useState<PreviewCard[]>();
  const [base, setBase] = useState<PreviewCard[]>([]);
  const [err, setErr] = useState('');
  useEffect(() => {
    let live = true;
    const t = setTimeout(() => {
      if (!text.trim()) return setCards([]);
      Promise.all([
        callBackground('rank:preview', { text, settings }),
        callBackground('rank:preview', { text, settings: { ...settings, weights: DEFAULT_SETTINGS.weights } }),
      ]).then(
        ([now, def]) => {
          if (!live) return;
          setErr('');
          setCards(now.cards);
          setBase(def.cards);
        },
        (e: Error) => live && setErr(e.message),
      );
    }, 200);
    return () => {
      live = false;
      clearTimeout(t);
    };
  }, [text, settings]);
  return (
    <div class="preview" data-testid="preview">
      <label class="field">
        <span>Sample task</span>
        <input data-testid="preview-task" value={text} onInput={(e) => setText((e.target as HTMLInputElement).value)} />
      </label>
      {err ? <p class="error">{err}</p> : null}
      <ol class="preview-list" aria-live="polite">
        {(cards ?? []).map((c, i) => {
          const was = base.findIndex((b) => b.id === c.id);
          const move = was < 0 ? 'new' : was - i;
          return (
            <li key={c.id} data-testid="preview-card" data-id={c.id}>
              <span class={`badge badge-${c.kind}`}>{c.kind}</span>
              <span class="preview-title">{c.title}</span>
              <span class="num">{c.score.toFixed(2)}</span>
              <span class={`move ${move === 'new' ? 'up' : move > 0 ? 'up' : move < 0 ? 'down' : ''}`}
                title="Compared with the default weights">
                {move === 'new' ? 'new' : move > 0 ? `↑${move}` : move < 0 ? `↓${-move}` : '='}
              </span>
            </li>
          );
        })}
        {cards && !cards.length ? <li class="muted">Nothing clears the relevance bar for this task.</li> : null}
      </ol>
    </div>
  );
}
