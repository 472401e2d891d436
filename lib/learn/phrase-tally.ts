import type { EntityTable } from 'dexie';
import { PHRASES, type FoundPhrase } from './phrases';

/** A phrase offered to the user as an instruction to save. */
export interface PhraseOffer {
  /** The phrase as counted (lower case): what the answer names. */
  phrase: string;
  /** As the user wrote it. */
  text: string;
  /** Distinct prompts it was seen in. */
  prompts: number;
}

/**
 * One phrase seen in the user's prompts: in how many distinct prompts, and what the user said when it was offered.
 * Only phrases that passed the instruction filter (lib/learn/phrases.ts) are ever stored, never the prompts.
 */
export interface PhraseRow {
  key: string;
  /** As the user last wrote it. */
  text: string;
  prompts: number;
  firstAt: number;
  lastAt: number;
  /** Short fingerprints of the last prompts it was counted in, so the same prompt sent again is not counted twice. */
  seen: string[];
  /** counting: not offered yet; later: "Not now" (offered again after `again` prompts); never; saved. */
  state: 'counting' | 'later' | 'never' | 'saved';
  again?: number;
}

/** Phrases kept at most; the least recently seen of those still counting go first. */
const KEEP = 300;
const SEEN = 5;
const STATES = new Set<PhraseRow['state']>(['counting', 'later', 'never', 'saved']);

/** A row from an imported memory file; undefined when it is not one. */
export function validPhraseRow(v: unknown): PhraseRow | undefined {
  if (!v || typeof v !== 'object') return undefined;
  const r = v as Partial<PhraseRow>;
  if (typeof r.key !== 'string' || !r.key.trim() || r.key.length > 120 || !STATES.has(r.state as PhraseRow['state'])) return undefined;
  const n = (x: unknown) => (Number.isFinite(x) ? Math.max(0, Number(x)) : 0);
  return {
    key: r.key, text: typeof r.text === 'string' ? r.text.slice(0, 120) : r.key, prompts: n(r.prompts), firstAt: n(r.firstAt), lastAt: n(r.lastAt),
    seen: Array.isArray(r.seen) ? r.seen.filter((s): s is string => typeof s === 'string').slice(-SEEN) : [], state: r.state!,
    ...(Number.isFinite(r.again) ? { again: n(r.again) } : {}),
  };
}

/** A short fingerprint of a prompt's text (FNV-1a): enough to tell one prompt from another, not to read it back. */
export function promptPrint(text: string): string {
  let h = 0x811c9dc5;
  const t = text.trim().toLowerCase().replace(/\s+/g, ' ');
  for (let i = 0; i < t.length; i++) h = Math.imul(h ^ t.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(36);
}

/** The tally of phrases in the learning database, bounded, with the offer it makes. */
export class PhraseTally {
  constructor(private readonly db: { phrases: EntityTable<PhraseRow, 'key'> }) {}

  /** Counts each phrase of one prompt once. */
  async note(found: FoundPhrase[], print: string, now = Date.now()): Promise<void> {
    if (!found.length) return;
    const t = this.db.phrases;
    await t.db.transaction('rw', t, async () => {
      for (const f of found) {
        const row = await t.get(f.key);
        if (row?.seen.includes(print)) continue;
        await t.put(
          row
            ? { ...row, text: f.text, prompts: row.prompts + 1, lastAt: now, seen: [...row.seen, print].slice(-SEEN) }
            : { key: f.key, text: f.text, prompts: 1, firstAt: now, lastAt: now, seen: [print], state: 'counting' },
        );
      }
      const n = await t.count();
      if (n > KEEP) {
        const old = await t.orderBy('lastAt').filter((r) => r.state === 'counting' || r.state === 'later').limit(n - KEEP).primaryKeys();
        await t.bulkDelete(old);
      }
    });
  }

  /**
   * The phrase to offer now, if any: seen in enough distinct prompts, not answered "Never" or saved, not already
   * said by an instruction (`said`: of these phrases, those an instruction says), and not a longer run of words
   * holding another phrase that is due or answered (the parts are offered, one at a time). Most prompts first.
   * `said` is asked only when some phrase has been seen often enough (it reads instructions' texts).
   */
  async due(said: (keys: string[]) => Promise<ReadonlySet<string>> | ReadonlySet<string>): Promise<PhraseRow | undefined> {
    const rows = await this.db.phrases.toArray();
    const answered = rows.filter((r) => r.state === 'never' || r.state === 'saved').map((r) => r.key);
    const ready = rows.filter((r) => r.prompts >= (r.state === 'later' ? (r.again ?? Infinity) : PHRASES.offerAfter) && (r.state === 'counting' || r.state === 'later'));
    if (!ready.length) return undefined;
    const saidAlready = await said(ready.map((r) => r.key));
    const holds = (long: string, short: string) => long !== short && ` ${long} `.includes(` ${short} `);
    return ready
      .filter((r) => !saidAlready.has(r.key) && ![...answered, ...ready.map((x) => x.key)].some((k) => holds(r.key, k)))
      .sort((a, b) => b.prompts - a.prompts || a.firstAt - b.firstAt)[0];
  }

  /** The user's answer to an offer. "Not now" offers it again after as many more prompts as it first took. */
  async answer(key: string, answer: 'save' | 'later' | 'never'): Promise<PhraseRow | undefined> {
    const row = await this.db.phrases.get(key);
    if (!row) return undefined;
    const next: PhraseRow =
      answer === 'later' ? { ...row, state: 'later', again: row.prompts + PHRASES.offerAfter } : { ...row, state: answer === 'save' ? 'saved' : 'never' };
    await this.db.phrases.put(next);
    return next;
  }

  /** Rows of an imported memory file: the user's answers win over a count, counts add up. */
  async merge(rows: PhraseRow[]): Promise<void> {
    const t = this.db.phrases;
    await t.db.transaction('rw', t, async () => {
      for (const r of rows) {
        const have = await t.get(r.key);
        if (!have) await t.put(r);
        else {
          const answered = have.state === 'counting' ? r.state : have.state;
          await t.put({ ...have, prompts: Math.max(have.prompts, r.prompts), lastAt: Math.max(have.lastAt, r.lastAt), state: answered });
        }
      }
    });
  }
}
