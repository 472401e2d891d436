import type { Destination } from '../core/destinations';
import { siteKey } from '../core/hosts';
import { IMPORT_FORMATS, isImportFormat } from '../core/import-formats';
import type { MemoryInput, MemoryScope, MemorySource } from './types';

/**
 * Where captured or imported text came from, when it was not typed into Backstory: a page's host, a page without one
 * (`file:`, `data:`, `about:srcdoc`: still a page, never the user's own text), or a format.
 */
export function outsideOrigin(source: MemorySource | undefined): { host?: string; page?: true; format?: string } | undefined {
  if (!source) return undefined;
  if (source.url) {
    const host = pageHost(source.url);
    if (host) return { host };
    if (host === '') return { page: true };
  }
  // Backstory's own file holds the user's own memory; every other format is text from elsewhere.
  if (source.format && !(isImportFormat(source.format) && IMPORT_FORMATS[source.format].scope === 'own')) return { format: source.format };
  return undefined;
}

/**
 * The host of a page's address (a `blob:` address names the page that made it); '' for a page with none (`file:`,
 * `data:`, `about:srcdoc`); undefined when the text is not an address.
 */
export function pageHost(url: string): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined;
  }
  if (u.protocol === 'blob:') return u.origin !== 'null' ? pageHost(u.origin) ?? '' : '';
  if (u.protocol === 'http:' || u.protocol === 'https:') return siteKey(u.hostname);
  return '';
}

/** The kind of place an outside format's text was written for; documents for a format Backstory does not know. */
function formatDestination(format: string | undefined): Destination {
  if (!isImportFormat(format)) return 'documents';
  const scope = IMPORT_FORMATS[format].scope;
  return scope === 'own' ? 'documents' : scope;
}

// Words that say how to write, not what about: a "subject" made only of these is no subject.
const STYLE_WORDS = new Set(
  (
    'answer answers reply replies response responses email emails mail mails message messages explanation explanations ' +
    'example examples question questions note notes text writing things stuff it them this that these those everything ' +
    'anything something my the a an our your their any all short brief long concise clear simple tone style format ' +
    'formal informal friendly polite detail details summary summaries way ways work'
  ).split(' '),
);

function subjectOf(phrase: string): string | undefined {
  const words = phrase
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s'-]/gu, ' ')
    .split(/\s+/)
    .filter((w) => w && !STYLE_WORDS.has(w));
  return words.length ? words.join(' ') : undefined;
}

// "Do not share the draft budget spreadsheet outside ...": the thing not to share is the subject.
const BOUNDARY_OBJECT =
  /\b(?:do not|don't|dont|never|must not|mustn't|should not|shouldn't)\s+(?:ever\s+)?(?:share|send|forward|disclose|reveal|mention|discuss|show|leak|post|paste|give out)\s+(?:the |my |our |any |this |these |those )?(.{2,60}?)(?=\s+(?:outside|with|to|beyond|unless|before|until|in|on|publicly|anywhere|externally)\b|[.;,:!?\n]|$)/i;
// "How I like code answers", "for budget questions", "about the offsite": a subject named before the style word.
const NAMED_SUBJECT =
  /\b(?:how i like|i like|i prefer|for|about|on|regarding|when writing about|when answering about)\s+(?:my |the |our |all |any )?((?:[\p{L}\p{N}-]+\s+){0,2}?[\p{L}\p{N}-]+)\s+(?:answers?|questions?|replies|responses|examples|reviews?|explanations|emails|messages|docs|documents)\b/iu;
const CODE_WORDS = /\b(code|coding|programming|source code|pull requests?|code reviews?|typescript|javascript|python|sql)\b/i;
const PERSON =
  /\b(?:when |while )?(?:writing|write|emailing|email|replying|reply|talking|speaking|messaging|sending)\s+(?:to|with)\s+((?:[A-Z][\p{L}'-]+)(?:\s+[A-Z][\p{L}'-]+)?)/u;
const DESTINATIONS: [Destination, RegExp][] = [
  ['email', /\b(?:in|for|when writing|when sending|when replying to)\s+(?:an? |my |all |work |every )?(?:e-?mails?|mail)\b/i],
  ['chat', /\b(?:in|for|with|to|when talking to|when asking)\s+(?:the |an? |my )?(?:chats?|chat assistants?|ai assistants?|assistants?|chatgpt|claude|prompts?)\b/i],
  ['documents', /\b(?:in|for)\s+(?:my |the |all |every )?(?:docs|documents|reports|write-?ups)\b/i],
];

/** True for "do not share …"-style boundaries: they may rank a little more generously than style rules. */
export function isBoundary(text: string): boolean {
  return /\b(do not|don't|dont|never|must not|mustn't)\s+(?:ever\s+)?(share|send|forward|disclose|reveal|mention|discuss|show|leak|post|paste)\b|\b(confidential|keep (?:it |this )?private)\b/i.test(text);
}

/**
 * The scope an item gets when it is saved, from its text and where it came from. Text captured from a page or
 * imported from another app is never an everywhere-instruction on its own say: it is limited to its subject or its
 * source (the page's site, the app's kind of destination) until the user widens it.
 */
export function guessScope(input: Pick<MemoryInput, 'text' | 'title' | 'people' | 'sites' | 'source'>): MemoryScope {
  const people = input.people?.filter((p) => p.trim()) ?? [];
  const sites = input.sites?.filter((s) => s.trim()) ?? [];
  if (people.length) return { kind: 'people', values: people, set: 'guess' };
  if (sites.length) return { kind: 'sites', values: sites.map((s) => s.toLowerCase()), set: 'guess' };
  const text = `${input.title ?? ''}\n${input.text}`.slice(0, 800);
  const origin = outsideOrigin(input.source);
  const boundary = text.match(BOUNDARY_OBJECT);
  const named = text.match(NAMED_SUBJECT);
  const subject = (boundary && subjectOf(boundary[1])) || (named && subjectOf(named[1])) || (CODE_WORDS.test(text) ? 'code' : undefined);
  if (origin) {
    // Captured from a page: that site. Imported: the subject it names, else the kind of app it came from.
    if (origin.host) return { kind: 'sites', values: [origin.host], set: 'source' };
    // A page with no site to tie it to: its subject, else documents (what such pages are), never everywhere.
    if (subject) return { kind: 'subject', values: [subject], set: 'source' };
    return { kind: 'destination', values: [formatDestination(origin.format)], set: 'source' };
  }
  const person = text.match(PERSON);
  if (person) return { kind: 'people', values: [person[1]], set: 'guess' };
  if (subject) return { kind: 'subject', values: [subject], set: 'guess' };
  const dest = DESTINATIONS.filter(([, re]) => re.test(text)).map(([d]) => d);
  if (dest.length) return { kind: 'destination', values: dest, set: 'guess' };
  return { kind: 'everywhere', values: [], set: 'guess' };
}

const SCOPE_KINDS = new Set(['everywhere', 'destination', 'sites', 'people', 'subject']);
const DEST_KINDS = new Set(['chat', 'email', 'documents']);

/** A scope read from a file or a message, or undefined when it is not one (the caller then guesses). */
export function parseScope(v: unknown): MemoryScope | undefined {
  if (!v || typeof v !== 'object') return undefined;
  const s = v as Record<string, unknown>;
  if (typeof s.kind !== 'string' || !SCOPE_KINDS.has(s.kind)) return undefined;
  const values = Array.isArray(s.values) ? s.values.filter((x): x is string => typeof x === 'string' && !!x.trim()).map((x) => x.trim()) : [];
  const kind = s.kind as MemoryScope['kind'];
  if (kind === 'destination' && !values.every((x) => DEST_KINDS.has(x))) return undefined;
  if (kind !== 'everywhere' && !values.length) return undefined;
  // Only a scope that says the user set it is the user's; one with no `set` (a hand-made file) is a guess.
  const set = s.set === 'user' || s.set === 'source' ? s.set : 'guess';
  return { kind, values: kind === 'everywhere' ? [] : values, set };
}
