import type { TaskReading } from './types';
import { terms, phrases, TIME_TERM, hasTimeExpression, askDateTerms } from '../memory/index/tokenize';
import { personName } from '../memory/index/situation-keys';
import { TUNING } from './tuning';

/** Asks with fewer content words than this are "short": the page around them is folded into the query. */
const SHORT_ASK_TERMS = 6;
/** Only the end of a long draft is the current ask (people write at the bottom). */
const ASK_CHARS = 600;

export interface QueryPlan {
  /** The current ask, cleaned ("re: budget" → "budget"). */
  ask: string;
  /** Texts to embed, most important first; `texts[0]` is `taskQueryText(task)`. */
  texts: string[];
  /** Weight of each text's cosine in the semantic score. */
  weights: number[];
  /** Weighted lexical terms: the ask at 1, its surroundings less. */
  terms: Map<string, number>;
  short: boolean;
  /** Date terms of the calendar dates the ask names (see `askDateTerms`); the ranker weighs them. */
  dates: string[];
  /** Phrase terms of the ask (pairs of adjacent words, see `phrases`). */
  phrases: string[];
}

function clean(s: string | undefined): string {
  return (s ?? '')
    .replace(/^\s*((re|fwd?|aw|wg|tr)\s*:\s*)+/i, '')
    .replace(/\s+/g, ' ')
    .trim();
}

function tail(s: string, n: number): string {
  return s.length > n ? s.slice(s.length - n) : s;
}

/** What is around the ask on the page: subject, selection, the last turns, the title, recipients. */
function surroundings(task: TaskReading): string {
  const parts = [
    clean(task.subject),
    clean(task.selection).slice(0, 400),
    ...(task.turns ?? []).slice(-2).map((t) => tail(clean(t), 300)),
    clean(task.title),
    ...(task.headings ?? []).slice(0, 3).map(clean),
    ...(task.people ?? []).map((p) => personName(p).trim()),
  ];
  return [...new Set(parts.filter(Boolean))].join('\n');
}

/** `timeWeight`: see `Tuning.timeWeight` (the ranker passes its tuning's). */
export function planQuery(task: TaskReading, timeWeight = TUNING.timeWeight): QueryPlan {
  const ask = tail(clean(task.field?.text), ASK_CHARS);
  const around = surroundings(task);
  const askTerms = terms(ask);
  const short = askTerms.length < SHORT_ASK_TERMS;
  const texts: string[] = [];
  const weights: number[] = [];
  if (!ask) {
    if (around) {
      texts.push(around);
      weights.push(1);
    }
  } else if (short && around) {
    // A short ask alone is ambiguous; the ask with its surroundings leads, the bare ask keeps it honest.
    texts.push(`${ask}\n${around}`, ask);
    weights.push(0.6, 0.4);
  } else {
    texts.push(ask);
    weights.push(1);
    if (around) {
      texts.push(around);
      weights.push(0.25);
    }
  }

  const q = new Map<string, number>();
  const put = (t: string, w: number) => q.set(t, Math.max(q.get(t) ?? 0, w));
  for (const t of askTerms) put(t, 1);
  const aroundWeight = !ask ? 1 : short ? 0.5 : 0.25;
  for (const t of terms(around)) put(t, aroundWeight);
  // Asking when something happened: turns that say when ("last week", "in May") are the likely answer.
  if (timeWeight > 0 && (/^\s*(when|what (time|date|day|year|month)|how long ago|since when)\b/i.test(ask) || hasTimeExpression(ask)))
    put(TIME_TERM, timeWeight);
  return { ask, texts, weights, terms: q, short, dates: askDateTerms(ask, task.at), phrases: phrases(ask) };
}

/** The text to embed for the task (the extension embeds it and passes `queryVector`). */
export function taskQueryText(task: TaskReading): string {
  return planQuery(task).texts[0] ?? '';
}

/** Every query variant to embed, in order; pass their vectors as `queryVectors`. */
export function taskQueryTexts(task: TaskReading): string[] {
  return planQuery(task).texts;
}
