import { useState } from 'preact/hooks';
import type { TraceEntry } from '../../rank/types';
import { FactorBars } from '../card';
import { stageText } from '../format';
import { traceReason } from '../../rank/trace';

/** Left-out candidates and why ("why not?"): every trace entry the ranker did not select. */
export function WhyNot({ trace }: { trace: TraceEntry[] }) {
  const [q, setQ] = useState('');
  const out = trace.filter((e) => !e.included);
  if (!out.length) return null;
  const shown = out.filter((e) => !q.trim() || e.title.toLowerCase().includes(q.trim().toLowerCase())).slice(0, 40);
  return (
    <details class="why-not" data-testid="why-not">
      <summary>Why not? {out.length} left out</summary>
      {out.length > 6 ? (
        <input type="search" class="why-not-filter" placeholder="Find a memory…" aria-label="Find a left-out memory" value={q}
          onInput={(e) => setQ((e.target as HTMLInputElement).value)} />
      ) : null}
      <ul>
        {shown.map((e) => (
          <li key={e.id} data-testid="why-not-item" data-id={e.id} data-stage={e.stage ?? ''}>
            <strong>{e.title}</strong> <span class="stage">{stageText(e)}</span>
            <div class="muted">{traceReason(e)}</div>
            {e.contributions ? <FactorBars values={e.contributions} label={`Score of ${e.title}`} /> : null}
          </li>
        ))}
      </ul>
    </details>
  );
}
