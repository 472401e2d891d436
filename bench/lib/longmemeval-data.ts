import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { MemoryItem } from '../../lib/memory/types';
import { countTokens } from '../../lib/memory/tokens';
import type { Conversation } from './locomo-data';

/**
 * One LongMemEval question as Backstory memory: its own haystack, every non-empty turn an item (titled by who spoke,
 * as a chat export's turns are), each session a thread dated by its haystack date, the question asked at its
 * `question_date`. Ids are made from the session's place in the haystack, since some haystacks repeat a session.
 */
export interface LmeQuestion extends Conversation {
  type: string;
  question: string;
  /** The turns marked `has_answer`. */
  relevant: Set<string>;
  /** Each item's session (its thread id): session-level metrics rank sessions by their first turn in a list. */
  sessionOf: Map<string, string>;
}

interface RawTurn {
  role: string;
  content: string;
  has_answer?: boolean;
}

interface RawQuestion {
  question_id: string;
  question_type: string;
  question: string;
  question_date: string;
  haystack_dates: string[];
  haystack_sessions: RawTurn[][];
}

/** "2023/05/20 (Sat) 02:28" → epoch ms (UTC). */
export function parseLmeDate(s: string): number {
  const m = s.match(/(\d{4})\/(\d{1,2})\/(\d{1,2})\D*(?:(\d{1,2}):(\d{2}))?/);
  if (!m) throw new Error(`LongMemEval date not understood: "${s}"`);
  return Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4] ?? 0), Number(m[5] ?? 0));
}

export function loadLmeQuestions(data: unknown[]): LmeQuestion[] {
  return (data as RawQuestion[]).map((raw) => {
    const items: MemoryItem[] = [];
    const relevant = new Set<string>();
    const sessionOf = new Map<string, string>();
    raw.haystack_sessions.forEach((session, s) => {
      const date = parseLmeDate(raw.haystack_dates[s]);
      const thread = `lme:${raw.question_id}:s${s}`;
      let seq = 0;
      session.forEach((t, i) => {
        if (!t.content.trim()) return; // an empty turn is no memory (and never evidence)
        const id = `${thread}:t${i}`;
        const at = date + i * 60_000;
        items.push({
          id,
          text: t.content,
          title: t.role === 'user' ? 'You' : 'Assistant',
          kind: 'evidence',
          tags: [],
          people: [],
          sites: [],
          pinned: false,
          createdAt: at,
          updatedAt: at,
          source: {},
          tokens: countTokens(t.content),
          thread: { id: thread, seq: seq++ },
        });
        sessionOf.set(id, thread);
        if (t.has_answer) relevant.add(id);
      });
    });
    const now = parseLmeDate(raw.question_date);
    return {
      id: raw.question_id,
      type: raw.question_type,
      question: raw.question,
      items,
      relevant,
      sessionOf,
      questions: [{ question: raw.question, relevant }],
      now,
    };
  });
}

/** The questions of the file, `range` 1-based and inclusive. */
export function readLmeQuestions(file: string, range?: [number, number]): LmeQuestion[] {
  const all = loadLmeQuestions(JSON.parse(readFileSync(file, 'utf8')) as unknown[]);
  return range ? all.slice(range[0] - 1, range[1]) : all;
}

/** The LongMemEval file to read: `--data` if given, else ../shared/datasets/longmemeval-s-dev.json; exits with a hint if missing. */
export function lmeDataFile(given: string | undefined, root: string): string {
  const data = given ? resolve(given) : join(root, '..', 'shared', 'datasets', 'longmemeval-s-dev.json');
  if (!existsSync(data)) {
    console.error(`No LongMemEval file at ${data}; pass --data FILE (see shared/datasets/README.md).`);
    process.exit(2);
  }
  return data;
}
