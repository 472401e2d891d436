/**
 * Words for lexical matching: lower-cased, stop words dropped, lightly stemmed so that "painted", "painting" and
 * "paints" meet. Shared by the index and the query so both sides agree.
 */

// Common English function words; they carry no topic and would swamp BM25 on short asks.
const STOP = new Set(
  (
    'a about above after again against all am an and any are as at be because been before being below between both ' +
    'but by can could did do does doing down during each few for from further had has have having he her here hers ' +
    'herself him himself his how i if in into is it its itself just me more most my myself no nor not now of off on ' +
    'once only or other our ours ourselves out over own same she should so some such than that the their theirs them ' +
    'themselves then there these they this those through to too under until up very was we were what when where ' +
    'which while who whom why will with would you your yours yourself yourselves s t d ll m re ve don doesn didn ' +
    'isn wasn aren weren won wouldn couldn shouldn hasn haven hadn let us also may might must shall ever yet'
  ).split(' '),
);

/** A common English function word (carries no topic). */
export function isStopWord(w: string): boolean {
  return STOP.has(w.toLowerCase());
}

/** Light suffix stemming: plural, -ing, -ed, -ly, and a final e, so inflections of one word meet. */
export function stem(w: string): string {
  if (w.length <= 3 || /\d/.test(w)) return w;
  let s = w;
  if (s.endsWith('ies') && s.length > 4) s = s.slice(0, -3) + 'y';
  else if (s.endsWith('sses')) s = s.slice(0, -2);
  else if (/(ches|shes|xes|zzes)$/.test(s)) s = s.slice(0, -2);
  else if (s.endsWith('s') && !/(ss|us|is|ous)$/.test(s)) s = s.slice(0, -1);

  if (s.endsWith('ied') && s.length > 4) s = s.slice(0, -3) + 'y';
  else if (s.endsWith('ing') && s.length > 5) s = undouble(s.slice(0, -3));
  else if (s.endsWith('ed') && s.length > 4 && !s.endsWith('eed')) s = undouble(s.slice(0, -2));
  else if (s.endsWith('ly') && s.length > 5) s = s.slice(0, -2);

  if (s.endsWith('e') && s.length > 3) s = s.slice(0, -1);
  if (s.endsWith('y') && s.length > 3) s = s.slice(0, -1) + 'i';
  return s;
}

function undouble(s: string): string {
  const n = s.length;
  if (n > 3 && s[n - 1] === s[n - 2] && !/[aeiouslz]/.test(s[n - 1])) return s.slice(0, -1);
  return s;
}

/**
 * A number with its separators is one word: "£1,200" is "1200" and "3.5" is "3.5", never a "1" or a "5" that would
 * match "Bed 1" or "5 minutes". A thousands comma is dropped (so "1,200" meets "1200"); a decimal point stays.
 */
const NUMBER_GROUPS = /(\d),(?=\d{3}(?!\d))/g;
const DECIMAL_POINT = /(\d)\.(?=\d)/g;

/** Raw words (lower-cased, possessives removed), stop words kept. */
export function words(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/['’]s\b/g, '')
    .replace(/['’]/g, '')
    .replace(NUMBER_GROUPS, '$1')
    .replace(DECIMAL_POINT, '$1\u2024')
    .split(/[^\p{L}\p{N}\u2024]+/u)
    .map((w) => (w.includes('\u2024') ? w.replace(/\u2024/g, '.').replace(/^\.+|\.+$/g, '') : w))
    .filter((w) => w.length > 0 && w.length < 40);
}

/** The index term a word as written stands for ("Retries" → "retri"), made the way `words` and `terms` make it. */
export function termOf(written: string): string {
  return stem(written.toLowerCase().replace(/['’]s$/, '').replace(/['’]/g, '').replace(NUMBER_GROUPS, '$1'));
}

/**
 * A word as written, as `words` reads one: letters and digits, with inner apostrophes ("don't", "Ana's"), a decimal
 * point between digits ("3.5") and a thousands comma before three digits ("1,200"; "7,7" is two words).
 */
const WRITTEN_WORD = /[\p{L}\p{N}]+(?:(?:['’]|(?<=\d)\.(?=\d)|(?<=\d),(?=\d{3}(?!\d)))[\p{L}\p{N}]+)*/gu;

/**
 * The text cut where its words stand for one of `matched` (index terms): pieces alternating unmatched, matched,
 * unmatched..., as `split` with a capture group gives them. How a card marks the words it shares with the task.
 */
export function splitByTerms(text: string, matched: Iterable<string>): string[] {
  const want = new Set(matched);
  const out: string[] = [];
  let from = 0;
  if (want.size) {
    for (const m of text.matchAll(WRITTEN_WORD)) {
      if (!want.has(termOf(m[0]))) continue;
      out.push(text.slice(from, m.index), m[0]);
      from = m.index + m[0].length;
    }
  }
  out.push(text.slice(from));
  return out;
}

/**
 * Matched index terms as the text writes them, for explanations: each term becomes the first word of `text` that
 * stands for it ("retri" → "Retry", "exampl" → "example"), or stays as it is where the text has no such word.
 */
export function writtenWords(matched: readonly string[], text: string): string[] {
  const found = firstWritten(new Set(matched), text);
  return [...new Set(matched.map((t) => found.get(t) ?? t))];
}

const asWritten = (word: string) => word.replace(/['’]s$/i, '');

/**
 * Each wanted term's first word in the text, as written. The ranker explains every candidate it traces, long items
 * included, so the text is not read word by word: a term less its last letter begins the lower-cased word it stands
 * for (stemming only cuts endings and turns a final y into i; a term with a digit is not stemmed, and begins its word
 * up to its first digit), unless the word has an apostrophe, so only the places
 * where that beginning occurs, and the words with an apostrophe, are read. Texts whose lower case is not the same
 * length, or that hold a capital sigma (lower-cased by context), are read word by word.
 */
function firstWritten(want: Set<string>, text: string): Map<string, string> {
  const found = new Map<string, string>();
  if (!want.size) return found;
  const lower = text.toLowerCase();
  if (lower.length !== text.length || text.includes('Σ')) {
    for (const m of text.matchAll(WRITTEN_WORD)) {
      if (found.size === want.size) break;
      const term = termOf(m[0]);
      if (want.has(term) && !found.has(term)) found.set(term, asWritten(m[0]));
    }
    return found;
  }
  const at = new Map<string, number>();
  // Words with an apostrophe ("don't", "O'Neil"): stemmed where they are.
  for (const q of ["'", '’']) {
    let end = 0;
    for (let i = text.indexOf(q); i >= 0; i = text.indexOf(q, i + 1)) {
      if (i < end || !wordCharBefore(text, i) || !WORD_CHAR.test(text.codePointAt(i + 1) === undefined ? '' : String.fromCodePoint(text.codePointAt(i + 1)!))) continue;
      const start = wordStart(text, i);
      const m = wordAt(text, start);
      if (!m) continue;
      end = start + m.length;
      const term = termOf(m);
      if (want.has(term) && !(at.get(term)! <= start)) {
        at.set(term, start);
        found.set(term, asWritten(m));
      }
    }
  }
  for (const t of want) {
    if (!t) continue;
    // A term with a digit is not stemmed, but its number may be written with thousands commas ("1200" as "1,200"):
    // only up to its first digit is sure to be written as it is.
    const digit = t.search(/\d/);
    const head = digit >= 0 ? t.slice(0, digit + 1) : t.length > 1 ? t.slice(0, -1) : t;
    const before = at.get(t) ?? Infinity;
    for (let i = lower.indexOf(head); i >= 0 && i < before; i = lower.indexOf(head, i + 1)) {
      if (!isWordStart(text, i)) continue;
      const m = wordAt(text, i);
      if (m && termOf(m) === t) {
        found.set(t, asWritten(m));
        break;
      }
    }
  }
  return found;
}

const WORD_CHAR = /^[\p{L}\p{N}]$/u;
const STICKY_WORD = new RegExp(WRITTEN_WORD.source, 'uy');

/** The written word starting at `i`, if one does. */
function wordAt(text: string, i: number): string | undefined {
  STICKY_WORD.lastIndex = i;
  return STICKY_WORD.exec(text)?.[0];
}

/** Whether the character ending just before `i` (a whole surrogate pair counted as one) is a letter or digit. */
function wordCharBefore(text: string, i: number): boolean {
  if (i <= 0) return false;
  const low = text.charCodeAt(i - 1);
  const from = low >= 0xdc00 && low <= 0xdfff && i >= 2 ? i - 2 : i - 1;
  return WORD_CHAR.test(String.fromCodePoint(text.codePointAt(from)!));
}

/**
 * Whether a written word starts at `i` as `WRITTEN_WORD` reads the text: not inside a word, nor after its apostrophe
 * or a separator inside its number (read from every "1" of "1,1,1…", 100 KB of it took 19 s).
 */
function isWordStart(text: string, i: number): boolean {
  if (wordCharBefore(text, i)) return false;
  const prev = text[i - 1];
  if ((prev === "'" || prev === '’') && wordCharBefore(text, i - 1)) return false;
  if ((prev === '.' || prev === ',') && isDigit(text, i - 2) && isDigit(text, i)) {
    return prev === ',' && !(isDigit(text, i + 1) && isDigit(text, i + 2) && !isDigit(text, i + 3));
  }
  return true;
}

const isDigit = (text: string, i: number) => i >= 0 && i < text.length && text.charCodeAt(i) >= 48 && text.charCodeAt(i) <= 57;

/** The start of the written word holding the inner apostrophe at `i` (back over apostrophes and a number's separators). */
function wordStart(text: string, i: number): number {
  let s = i;
  for (;;) {
    while (wordCharBefore(text, s)) s -= text.charCodeAt(s - 1) >= 0xdc00 && text.charCodeAt(s - 1) <= 0xdfff && s >= 2 ? 2 : 1;
    if (isWordStart(text, s)) return s;
    s -= 1;
  }
}

/** Index terms of a text: stop words removed, stemmed. Repeats are kept (term frequency). */
export function terms(text: string): string[] {
  const out: string[] = [];
  for (const w of words(text)) {
    if (STOP.has(w)) continue;
    if (w.length === 1 && !/\d/.test(w)) continue;
    out.push(stem(w));
  }
  return out;
}

/**
 * Phrase terms of a text: each pair of adjacent content words ("support group", "pottery class"), so an ask that
 * names a thing in two words prefers items naming that very thing. Stop words between them do not break a pair.
 */
export function phrases(text: string): string[] {
  const ts = terms(text);
  const out: string[] = [];
  for (let i = 1; i < ts.length; i++) out.push(ts[i - 1] + ' ' + ts[i]);
  return out;
}

/** Prefix of person terms (an item's people, indexed as a field of their own). */
export const PERSON_PREFIX = '@';

/** A pseudo-term indexed for every text that says when something happened. */
export const TIME_TERM = '⌚time';

const TIME_RE = new RegExp(
  '\\b(yesterday|today|tonight|tomorrow|ago|last (week|month|year|night|weekend|summer|winter|spring|fall|time)|' +
    'next (week|month|year|weekend)|this (week|month|year|weekend|morning|afternoon|evening)|' +
    '(few|couple of|two|three|several) (days|weeks|months|years)|' +
    'monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekend|' +
    'january|february|march|april|june|july|august|september|october|november|december|' +
    '(19|20)\\d\\d|\\d{1,2}(st|nd|rd|th)|\\d{1,2}[/.-]\\d{1,2}([/.-]\\d{2,4})?)\\b',
  'i',
);

export function hasTimeExpression(text: string): boolean {
  return TIME_RE.test(text);
}

/** Prefix of date pseudo-terms: items are indexed under the day and month they are dated, asks under the dates they name. */
export const DATE_PREFIX = '⌚';

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const pad = (n: number) => String(n).padStart(2, '0');
const dayTerm = (y: number, m: number, d: number) => `${DATE_PREFIX}d${y}-${pad(m + 1)}-${pad(d)}`;
const monthTerm = (y: number, m: number) => `${DATE_PREFIX}m${y}-${pad(m + 1)}`;

/** Date terms of an item dated `at` (local calendar): its day and its month. */
export function itemDateTerms(at: number): string[] {
  if (!at || !Number.isFinite(at)) return [];
  const d = new Date(at);
  return [dayTerm(d.getFullYear(), d.getMonth(), d.getDate()), monthTerm(d.getFullYear(), d.getMonth())];
}

const MON = '(January|February|March|April|May|June|July|August|September|October|November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)';
const DAY_FIRST = new RegExp(`\\b(\\d{1,2})(?:st|nd|rd|th)?(?: of)? ${MON},? (\\d{4})\\b`, 'g');
const MONTH_FIRST = new RegExp(`\\b${MON} (\\d{1,2})(?:st|nd|rd|th)?,? (\\d{4})\\b`, 'g');
const MONTH_YEAR = new RegExp(`\\b${MON},? (\\d{4})\\b`, 'g');
const IN_MONTH = new RegExp(`\\b(?:in|during|of|since|last|this) ${MON}\\b`, 'g');

function monthIndex(name: string): number {
  const n = name.toLowerCase();
  return MONTHS.findIndex((m) => m.startsWith(n.slice(0, 3)));
}

/**
 * Date terms of the calendar dates an ask names ("on 13 October, 2023", "in June 2023", "in June"), matching the
 * terms of `itemDateTerms`: a named day also looks in its month. A month without a year is the latest such month
 * up to `now`. Month names must be capitalised ("may" is a verb).
 */
export function askDateTerms(text: string, now: number): string[] {
  const out = new Set<string>();
  let rest = text;
  const take = (re: RegExp, f: (m: RegExpExecArray) => void) => {
    rest = rest.replace(re, (...args) => {
      f(args.slice(0, -2) as unknown as RegExpExecArray);
      return ' ';
    });
  };
  take(DAY_FIRST, (m) => {
    const mo = monthIndex(m[2]);
    out.add(dayTerm(+m[3], mo, +m[1])).add(monthTerm(+m[3], mo));
  });
  take(MONTH_FIRST, (m) => {
    const mo = monthIndex(m[1]);
    out.add(dayTerm(+m[3], mo, +m[2])).add(monthTerm(+m[3], mo));
  });
  take(MONTH_YEAR, (m) => void out.add(monthTerm(+m[2], monthIndex(m[1]))));
  take(IN_MONTH, (m) => {
    const mo = monthIndex(m[1]);
    const n = new Date(now || Date.now());
    const y = mo <= n.getMonth() ? n.getFullYear() : n.getFullYear() - 1;
    out.add(monthTerm(y, mo));
  });
  return [...out];
}
