import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { MemoryItem } from '../../lib/memory/types';
import { countTokens } from '../../lib/memory/tokens';

/** One LoCoMo conversation as Backstory memory: every turn an item, dated by its session, threaded by session. */
export interface Conversation {
  id: string;
  items: MemoryItem[];
  /**
   * `evidence`: the texts of the evidence turns (what a package must carry to hold the evidence). `category`: LoCoMo's
   * code (1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop; see `LOCOMO_CATEGORIES`).
   */
  questions: { question: string; relevant: Set<string>; evidence?: string[]; category?: number }[];
  /** When the user "asks": a day after the conversation's final sitting. */
  now: number;
}

interface RawTurn {
  speaker: string;
  dia_id: string;
  text: string;
  blip_caption?: string;
}

/** LoCoMo's question categories by code (the dataset's README); 5, adversarial, has no evidence to find. */
export const LOCOMO_CATEGORIES: Record<number, string> = { 1: 'multi-hop', 2: 'temporal', 3: 'open-domain', 4: 'single-hop' };

/** "1:56 pm on 8 May, 2023" → epoch ms (UTC). */
export function parseLocomoDate(s: string): number {
  const m = s.match(/(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+(\w+),?\s+(\d{4})/i);
  if (!m) return Date.parse(s) || 0;
  const months = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
  let h = Number(m[1]) % 12;
  if (m[3].toLowerCase() === 'pm') h += 12;
  const mon = months.indexOf(m[5].toLowerCase());
  return Date.UTC(Number(m[6]), mon < 0 ? 0 : mon, Number(m[4]), h, Number(m[2]));
}

/** Evidence ids as written in the file, a few of them malformed ("D8:6; D9:17", "D:11:26"). */
function evidenceIds(raw: string[]): string[] {
  return raw
    .flatMap((e) => String(e).split(/[;,\s]+/))
    .map((e) => e.replace(/^D:/, 'D'))
    .filter((e) => /^D\d+:\d+$/.test(e));
}

export function loadConversations(data: unknown[]): Conversation[] {
  const out: Conversation[] = [];
  for (const raw of data as { sample_id: string; conversation: Record<string, unknown>; qa: { question: string; evidence?: string[]; category: number }[] }[]) {
    const conv = raw.conversation;
    const items: MemoryItem[] = [];
    let last = 0;
    for (let s = 1; Array.isArray(conv[`session_${s}`]); s++) {
      const date = parseLocomoDate(String(conv[`session_${s}_date_time`] ?? ''));
      last = Math.max(last, date);
      const turns = conv[`session_${s}`] as RawTurn[];
      turns.forEach((t, i) => {
        const at = date + i * 60_000;
        items.push({
          id: t.dia_id,
          text: t.text,
          title: t.speaker,
          kind: 'evidence',
          tags: [],
          people: [t.speaker],
          sites: [],
          pinned: false,
          createdAt: at,
          updatedAt: at,
          source: {},
          tokens: countTokens(t.text),
          thread: { id: `${raw.sample_id}:session_${s}`, seq: i },
          ...(t.blip_caption ? { aux: `[shares a photo: ${t.blip_caption}]` } : {}),
        });
      });
    }
    const textOf = new Map(items.map((i) => [i.id, i.text]));
    const questions = raw.qa
      .filter((q) => q.category !== 5 && q.evidence && q.evidence.length)
      .map((q) => {
        const relevant = new Set(evidenceIds(q.evidence!).filter((e) => textOf.has(e)));
        return { question: String(q.question), relevant, evidence: [...relevant].map((id) => textOf.get(id)!), category: q.category };
      })
      .filter((q) => q.relevant.size > 0);
    out.push({ id: raw.sample_id, items, questions, now: last + 86_400_000 });
  }
  return out;
}

/** The LoCoMo file to read: `--data` if given, else ../shared/datasets/locomo-dev.json; exits with a hint if missing. */
export function locomoDataFile(given: string | undefined, root: string): string {
  const data = given ? resolve(given) : join(root, '..', 'shared', 'datasets', 'locomo-dev.json');
  if (!existsSync(data)) {
    console.error(`No LoCoMo file at ${data}; pass --data FILE (see shared/datasets/README.md).`);
    process.exit(2);
  }
  return data;
}
