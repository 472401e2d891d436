import { isStopWord } from '../memory/index/tokenize';

/**
 * Finding the standing instructions a user keeps typing into prompts ("keep it short", "answer in British English",
 * "no bullet points"), so Backstory can offer to save one. Only instruction-like phrases are ever kept: a clause that
 * starts with a word that sets how to answer (keep, be, use, avoid, no, never, always, answer in …), two to six words
 * long and ending on a word that says something. Everything else a prompt says is dropped on the spot.
 */

export const PHRASES = {
  minWords: 2,
  maxWords: 6,
  /** Distinct prompts a phrase must appear in before it is offered. */
  offerAfter: 3,
};

/** Words that open a clause asking for a way of answering. */
const LEADS = new Set([
  'keep', 'make', 'be', 'use', 'answer', 'reply', 'respond', 'write', 'explain', 'avoid', 'no', 'never', 'always', 'dont',
  'without', 'skip', 'stick', 'limit', 'cite', 'include', 'format', 'prefer', 'stay', 'do',
]);
/** After these leads only a word saying how ("answer in …", "write like …") makes a standing instruction; "write a poem" is a task. */
const HOW = new Set(['in', 'as', 'like', 'with', 'without', 'briefly', 'concisely', 'simply', 'plainly', 'only', 'using', 'for', 'formally', 'informally']);
const NEEDS_HOW = new Set(['answer', 'reply', 'respond', 'write', 'explain', 'format']);
/** "no idea", "no problem": not a rule. */
const NOT_AFTER_NO = new Set(['idea', 'problem', 'worries', 'thanks', 'way', 'one', 'matter', 'longer', 'doubt', 'need', 'clue']);
/** Words pointing at this one task ("use this table", "keep that in mind"): a phrase with one is not a standing rule. */
const DEICTIC = new Set(['this', 'that', 'these', 'those', 'above', 'below', 'attached', 'following', 'here', 'again', 'yesterday', 'today']);
/** Words that may come before the instruction in its clause: "please keep it short", "and also be brief". */
const OPENERS = new Set(['please', 'and', 'but', 'also', 'just', 'then', 'so', 'pls', 'plz']);
/** Words that end an instruction inside a clause ("keep it short and use British English" holds two). */
const JOINS = new Set(['and', 'but', 'or', 'so', 'because', 'please', 'then']);
const POLITE = [/^(can|could|would|will) you\s+/i, /^i (want|need|would like) you to\s+/i, /^(i'd|id) like you to\s+/i];

/**
 * A prompt's clauses as words: lower-cased (`ws`, what phrases are matched and counted by) and as written (`as`,
 * what an offer shows), "don't" and "do not" as "dont", everything but letters, digits and hyphens a boundary.
 */
function clauses(text: string): { ws: string[]; as: string[] }[] {
  return text
    .replace(/[’']/g, '')
    .replace(/\b(do not|dont)\b/gi, (m) => (m[0] === 'D' ? 'Dont' : 'dont'))
    .split(/[.!?;:,\n()"“”]+|\s[-–—]\s/)
    .map((c) => {
      let s = c.trim();
      for (const p of POLITE) s = s.replace(p, '');
      const as = s.split(/[^\p{L}\p{N}-]+/u).filter(Boolean);
      return { ws: as.map((w) => w.toLowerCase()), as };
    })
    .filter((c) => c.ws.length >= PHRASES.minWords);
}

function instructionAt(ws: string[], i: number): [number, number] | undefined {
  const lead = ws[i];
  const next = ws[i + 1];
  if (!LEADS.has(lead) || next === undefined) return undefined;
  if (lead === 'do') return undefined; // "do not" became "dont"; a bare "do" opens a task
  if (NEEDS_HOW.has(lead) && !HOW.has(next)) return undefined;
  if (lead === 'no' && NOT_AFTER_NO.has(next)) return undefined;
  // Up to the clause's end or a word joining another clause, and no longer than the longest phrase.
  let end = i + 1;
  while (end < ws.length && end - i < PHRASES.maxWords && !JOINS.has(ws[end])) end++;
  if (end < ws.length && !JOINS.has(ws[end])) return undefined; // runs on past six words: a sentence, not a rule
  const phrase = ws.slice(i, end);
  if (phrase.length < PHRASES.minWords || phrase.some((w) => DEICTIC.has(w) || /\d/.test(w))) return undefined;
  if (isStopWord(phrase[phrase.length - 1])) return undefined;
  if (phrase.slice(1).every((w) => isStopWord(w) || HOW.has(w))) return undefined;
  return [i, end];
}

export interface FoundPhrase {
  /** Lower-cased words: what is counted. */
  key: string;
  /** As the user wrote it. */
  text: string;
}

/** The instruction-like phrases of one prompt, each once, in the order they appear. */
export function instructionPhrases(text: string): string[] {
  return findPhrases(text).map((p) => p.key);
}

/** The same, with each phrase as the user wrote it. */
export function findPhrases(text: string): FoundPhrase[] {
  const out = new Map<string, FoundPhrase>();
  for (const { ws, as } of clauses(text)) {
    let i = 0;
    while (i < ws.length && OPENERS.has(ws[i])) i++;
    // The clause's own start, and the start of each clause joined to it by "and", "but" …
    const starts = [i];
    for (let j = i + 1; j < ws.length; j++) if (JOINS.has(ws[j - 1]) && !JOINS.has(ws[j]) && !OPENERS.has(ws[j])) starts.push(j);
    for (let j = i + 1; j < ws.length - 1; j++) if (JOINS.has(ws[j - 1]) && OPENERS.has(ws[j])) starts.push(j + 1);
    for (const s of starts) {
      const at = instructionAt(ws, s);
      if (!at) continue;
      const key = ws.slice(...at).join(' ');
      if (!out.has(key)) out.set(key, { key, text: as.slice(...at).join(' ') });
    }
  }
  return [...out.values()];
}

/** How a phrase reads as a saved instruction: "Keep it short." */
export function asInstruction(phrase: string): string {
  const t = phrase.replace(/\bdont\b/gi, (m) => (m[0] === 'D' ? 'Do not' : 'do not'));
  return t.charAt(0).toUpperCase() + t.slice(1) + '.';
}

/** Whether an instruction's text already says the phrase (then it is never offered). */
export function saysPhrase(instruction: string, phrase: string): boolean {
  const norm = (s: string) => ` ${s.toLowerCase().replace(/[’']/g, '').replace(/\bdo not\b/g, 'dont').split(/[^\p{L}\p{N}-]+/u).filter(Boolean).join(' ')} `;
  return norm(instruction).includes(norm(phrase));
}
