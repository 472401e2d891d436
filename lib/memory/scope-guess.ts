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

// A condition about what, stated at the head of a rule: "When writing about a vendor contract renewal, …", "For
// anything about pricing, …", "Anything about reserves: …", "If it's about make-up tests, …", "When the subject is
// warranty, …", "When discussing deadlines, …", "For field trip planning, …". What it is about runs to the clause's end.
const TOPIC_LEADS = [
  /^(?:when(?:ever)?|if|while|for|in)\s+(?:i'm\s+|i am\s+|we're\s+|we are\s+|you're\s+|you are\s+)?(?:writing|talking|asking|answering|emailing|posting|drafting|replying)\s+(?:anything\s+|something\s+)?(?:about|on|regarding)\s+/i,
  /^(?:for|in)\s+(?:anything|everything|all|any(?:thing)? (?:messages?|emails?|docs?|documents?))\s+(?:about|on|regarding|related to|to do with)\s+/i,
  /^(?:anything|everything)\s+(?:about|on|regarding|related to|to do with)\s+/i,
  /^(?:if|when(?:ever)?)\s+(?:it's|it is|the (?:task|message|email|question|document|post|topic|subject) is)\s+(?:about\s+|on\s+)?/i,
  /^(?:when(?:ever)?|if)\s+(?:the\s+)?(?:topic|subject|task|question|message|email)\s+(?:is|involves|concerns|mentions|touches on)\s+(?:about\s+)?/i,
  /^(?:when(?:ever)?|if)\s+(?:i'm\s+|i am\s+|we're\s+)?(?:discussing|covering|mentioning|explaining)\s+/i,
];
/** Words that end a condition's subject when no comma does ("Anything about security incidents goes to …"). */
const SUBJECT_END =
  /\s+(?:goes|go|should|must|needs?|is|are|has|have|always|never|please|make|use|include|add|say|mention|keep|put|write|state|remind|point|give|copy|link|ask|tell|note|list|follow|quote|send|don't|do not|can|cannot|will)\b/i;
/** "For logo work, …", "For field trip planning, …": a subject before a word for the work on it. */
const FOR_WORK = /^for\s+(?:my\s+|the\s+|our\s+|any\s+|all\s+)?((?:[\p{L}\p{N}-]+\s+){0,2}?[\p{L}\p{N}-]+)\s+(?:work|planning|projects?|tasks?|jobs?|requests?|questions?|topics?|matters|issues)\s*[,:]/iu;

/** The subjects a rule's head names as its condition (several for "invoices or late payment"), if it names any. */
function conditionSubjects(text: string): string[] {
  const head = text.trim().split(/\n/)[0];
  for (const lead of TOPIC_LEADS) {
    const m = head.match(lead);
    if (!m) continue;
    let rest = head.slice(m[0].length);
    const stop = rest.search(/[,;:.!?()]|\s[-–—]\s/);
    if (stop >= 0) rest = rest.slice(0, stop);
    const end = rest.search(SUBJECT_END);
    if (end >= 0) rest = rest.slice(0, end);
    const subjects = rest
      .split(/\s+(?:or|and)\s+|\s*\/\s*/i)
      .map((p) => subjectOf(p.split(/\s+/).slice(0, 5).join(' ')))
      .filter((x): x is string => !!x);
    if (subjects.length) return [...new Set(subjects)];
  }
  const w = head.match(FOR_WORK);
  const sub = w && subjectOf(w[1]);
  return sub ? [sub] : [];
}

// A person the rule is for: "When emailing Nadia Haddad", "In emails to Raj Patel", "When writing to or about Dana",
// "Copy Priya on anything I send to Marco Bellini", "With my manager Kwame Asante, …", "For messages to or about my
// mentee Lucía". What follows the lead may name a role first ("my accountant Henrik", "Principal Okafor").
const PERSON_LEADS = [
  /\b(?:emailing|e-mailing|messaging|texting|pinging|calling|cc'?ing)\s+(?:to\s+)?(?:or\s+about\s+)?/giu,
  /\b(?:writing|write|emailing|email(?:s|ing)?|e-mails?|mails?|replying|reply|replies|talking|speaking|messaging|messages?|texting|texts?|sending|send|sent|anything|everything|something)\s+(?:i\s+(?:send|write)\s+)?(?:to|with)(?:\s+or\s+about)?\s+/giu,
  /^(?:with|for)\s+(?=(?:my|our|the)\s|\p{Lu})/giu,
];
/** Words between a lead and the name: a role, a title, a relation. Capitalised titles are listed; lower-case words pass. */
const HONORIFIC = /^(?:mr|mrs|ms|miss|mx|dr|prof|professor|principal|coach|sir|madam|dame|uncle|aunt|auntie|grandma|grandpa)\.?$/i;
const NAME_WORD = /^\p{Lu}[\p{L}'’-]*\.?$|^\p{Lu}\.$/u;
const NOT_A_NAME = new Set(['I', 'The', 'A', 'An', 'My', 'Our', 'When', 'If', 'In', 'For', 'With', 'Always', 'Never', 'Do', "Don't", 'Please', 'Keep', 'Use']);

/**
 * The first `n` words of `text` from `from`, read no further: a head of person leads over and over ("send to a send to
 * a …") asks this at each, so splitting the rest of the head every time cost its length squared.
 */
function wordsFrom(text: string, from: number, n: number): string[] {
  const word = /\S+/g;
  word.lastIndex = from;
  const out: string[] = [];
  for (let m = word.exec(text); m && out.length < n; m = word.exec(text)) out.push(m[0]);
  return out;
}

/** The name a person lead is followed by (at `from` in `head`): past a role, relation or title, one to three capitalised words. */
function nameAfter(head: string, from: number): string | undefined {
  const words = wordsFrom(head, from, 10);
  const name: string[] = [];
  let skipped = 0;
  for (const raw of words) {
    const w = raw.replace(/[,:;)!?]+$/, '');
    const ended = raw !== w;
    const bare = w.replace(/['’]s$/, '');
    const isName = NAME_WORD.test(bare) && !HONORIFIC.test(bare) && !NOT_A_NAME.has(bare) && !/^\p{Lu}{2,}$/u.test(bare);
    if (isName) {
      // "Studio Pell's art director Ines Moreau": a name that owns something is not the person.
      if (bare !== w) {
        name.length = 0;
        continue;
      }
      // A full stop ends a name unless it is an initial ("Ola B.", "Sam R.").
      name.push(/\.$/.test(bare) && !/^\p{Lu}\.$/u.test(bare) ? bare.slice(0, -1) : bare);
      if (ended || name.length === 3 || (/\.$/.test(bare) && !/^\p{Lu}\.$/u.test(bare))) break;
      continue;
    }
    if (name.length) break;
    // "my son's teacher Mr. Adeyemi", "the on-call lead Tariq", "the CEO Piotr Zielinski", "our auditor, Paul …".
    const role = HONORIFIC.test(bare) || /^[\p{Ll}'’-]+$/u.test(w) || /^\p{Lu}{2,}$/u.test(bare);
    if (!role || ++skipped > 5) return undefined;
    // A clause ended by a word that is no name ("emailing clients, always …"): only a name right after may follow.
    if (ended && /[:;)!?]$/.test(raw)) return undefined;
  }
  return name.length ? name.join(' ') : undefined;
}

/** "Mrs. Delgado reads English as a second language; …": a rule that opens on someone named with a title is about them. */
const TITLED_HEAD = /^(?:Mr|Mrs|Ms|Mx|Dr|Prof|Professor)\.?\s+(\p{Lu}[\p{L}'’-]+(?:\s+\p{Lu}[\p{L}'’-]+)?)/u;

/** The person a rule names as the one it is for, if it names one. */
function conditionPerson(text: string): string | undefined {
  const head = text.trim().split(/\n/)[0];
  const titled = head.match(TITLED_HEAD);
  if (titled) return titled[1];
  for (const lead of PERSON_LEADS) {
    lead.lastIndex = 0;
    for (let m = lead.exec(head); m; m = lead.exec(head)) {
      const name = nameAfter(head, m.index + m[0].length);
      if (name) return name;
    }
  }
  return undefined;
}

const DESTINATIONS: [Destination, RegExp][] = [
  ['email', /\b(?:in|for|when writing|when sending|when replying to)\s+(?:an? |my |all |work |every |parent |client |customer )?(?:e-?mails?|mail)\b/i],
  ['chat', /\b(?:in|for|with|to|when talking to|when asking)\s+(?:the |an? |my )?(?:ai )?(?:chats?|chat assistants?|assistants?|chatbots?|chatgpt|claude|prompts?)\b/i],
  // "When I use ChatGPT", "When prompting an AI assistant", "When using Claude or ChatGPT".
  ['chat', /\b(?:when|whenever|if)\s+(?:i\s+)?(?:use|using|prompt|prompting|ask|asking|talk to|talking to|chat with|chatting with)\s+(?:an?\s+|the\s+|my\s+)?(?:ai\s+|chat\s+)?(?:assistants?|chatbots?|chatgpt|claude|gemini|copilot|llms?)\b/i],
  // "In documents", "In policy documents", "In reports and other documents", "Worksheets and other documents".
  ['documents', /\b(?:in|for)\s+(?:my |the |all |every |any )?(?:[\p{L}-]+\s+)?(?:docs|documents|reports|write-?ups|proposals)\b|\b(?:and|or) other (?:docs|documents)\b|\bdocuments like\b/iu],
];

/**
 * Well-known sites a rule may name as where it applies ("On GitHub, …", "In Google Classroom posts, …"), by the
 * names people call them: the host the rule is scoped to.
 */
const SITE_NAMES: [RegExp, string][] = [
  [/github/i, 'github.com'],
  [/gitlab/i, 'gitlab.com'],
  [/linkedin/i, 'linkedin.com'],
  [/jira|confluence/i, 'atlassian.net'],
  [/slack/i, 'slack.com'],
  [/facebook/i, 'facebook.com'],
  [/instagram/i, 'instagram.com'],
  [/reddit/i, 'reddit.com'],
  [/stack\s?overflow/i, 'stackoverflow.com'],
  [/notion/i, 'notion.so'],
  [/overleaf/i, 'overleaf.com'],
  [/behance/i, 'behance.net'],
  [/xero/i, 'xero.com'],
  [/workday/i, 'myworkday.com'],
  [/google\s+classroom/i, 'classroom.google.com'],
  [/google\s+docs/i, 'docs.google.com'],
  [/gmail/i, 'mail.google.com'],
  [/discord/i, 'discord.com'],
  [/trello/i, 'trello.com'],
  [/medium/i, 'medium.com'],
  [/substack/i, 'substack.com'],
  [/youtube/i, 'youtube.com'],
  [/wikipedia/i, 'wikipedia.org'],
];
const SITE_LEAD =
  /^(?:on|in|for|when (?:posting|writing|commenting) on|when (?:i(?:'m| am) )?(?:using|on))\s+(?:the\s+)?(?:[\p{L}'’]+['’]s\s+)?(github|gitlab|linkedin|jira|confluence|slack|facebook|instagram|reddit|stack\s?overflow|notion|overleaf|behance|xero|workday|google\s+classroom|google\s+docs|gmail|discord|trello|medium|substack|youtube|wikipedia)\b/iu;

/** The host of a well-known site the rule's head names as where it applies. */
function namedSite(text: string): string | undefined {
  const m = text.trim().match(SITE_LEAD);
  return m ? SITE_NAMES.find(([re]) => re.test(m[1]))?.[1] : undefined;
}

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
  // A condition the rule states at its head ("When writing about X, …") is its subject before anything it mentions.
  const stated = conditionSubjects(input.text);
  const subjects = stated.length ? stated : [(boundary && subjectOf(boundary[1])) || (named && subjectOf(named[1])) || (CODE_WORDS.test(text) ? 'code' : undefined)].filter((x): x is string => !!x);
  const subject = subjects[0];
  if (origin) {
    // Captured from a page: that site. Imported: the subject it names, else the kind of app it came from.
    if (origin.host) return { kind: 'sites', values: [origin.host], set: 'source' };
    // A page with no site to tie it to: its subject, else documents (what such pages are), never everywhere.
    if (subject) return { kind: 'subject', values: subjects, set: 'source' };
    return { kind: 'destination', values: [formatDestination(origin.format)], set: 'source' };
  }
  // A stated topic first ("When writing about the renewal, copy Priya": Priya is who to copy, not who it is for).
  if (stated.length) return { kind: 'subject', values: stated, set: 'guess' };
  const person = conditionPerson(input.text);
  if (person) return { kind: 'people', values: [person], set: 'guess' };
  const site = namedSite(input.text);
  if (site) return { kind: 'sites', values: [site], set: 'guess' };
  if (subject) return { kind: 'subject', values: subjects, set: 'guess' };
  const dest = [...new Set(DESTINATIONS.filter(([, re]) => re.test(text)).map(([d]) => d))];
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
