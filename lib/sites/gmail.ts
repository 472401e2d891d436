import type { TaskReading } from '../rank/types';
import { onHosts, type SiteAdapter } from './adapter';
import { stripInsertedText } from '../insert/state';
import { blockText, clip, nameAndAddress, outermost, tidy, uniq } from './text';

/**
 * Gmail compose and reply. Found by structure Gmail keeps in every interface language (its form names, g_editable,
 * roles, data attributes), never by its generated class names; the English labels are one more hint, never needed:
 * - compose body: [g_editable="true"] (also a multi-line [role="textbox"])
 * - subject: input[name="subjectbox"]; recipients: the fields named to / cc / bcc (div[name="to"] holding the chips
 *   [role="option"][data-hovercard-id][data-name] and an input for addresses not yet turned into chips; older
 *   markup: input or textarea[name="to"])
 * - thread: messages carry data-message-id; senders are [email][name]; the open thread's subject is an h2 carrying
 *   data-thread-perm-id ("thread-f:<X-GM-THRID>", decimal, the id mail exports carry) and data-legacy-thread-id (the
 *   same id in hex). Gmail sometimes leaves out the first (or writes "undefined"): the second gives the same id. A
 *   message's body is .a3s inside .ii.gt (a div[dir] wrapper exists only in mail written in Gmail); a collapsed
 *   message has no body loaded and only its header shows, which is never the task.
 * Compared with InboxSDK and gmail.js on 2026-12-06 (lib/sites/REFERENCES.md; not checked on the live site).
 */
const BODY = '[g_editable="true"][contenteditable="true"], [contenteditable="true"][role="textbox"][aria-multiline="true"], [contenteditable="true"][aria-label="Message Body" i]';
const SUBJECT = 'input[name="subjectbox"]';
const RECIPIENT_FIELDS = '[name="to"], [name="cc"], [name="bcc"]';
const RECIPIENT_INPUTS = 'input[name="to"], input[name="cc"], input[name="bcc"], textarea[name="to"], textarea[name="cc"], textarea[name="bcc"]';
/**
 * Where addresses are typed before they become chips: inside a field named to / cc / bcc, or (a hint) an input labelled
 * so in English, German, French, Spanish or Japanese.
 */
const RECIPIENT_COMBO = [
  '[name="to"] input', '[name="cc"] input', '[name="bcc"] input',
  ...['recipients', 'empfänger', 'destinataires', 'destinatarios', '宛先'].map((w) => `input[aria-label*="${w}" i]`),
  ...['To', 'Cc', 'Bcc', 'An', 'À', 'Cci', 'Para', 'CCO'].map((w) => `input[aria-label="${w}" i]`),
].join(', ');
const CHIP = '[role="listbox"] [role="option"][data-hovercard-id], [role="option"][data-hovercard-id], [data-hovercard-id*="@"], [email]';
const CHIP_OPTION = '[role="listbox"] [role="option"][data-hovercard-id], [role="option"][data-hovercard-id][data-name]';
const MESSAGE_BODY = '.ii.gt .a3s, .a3s';
const QUOTED = 'blockquote, .gmail_quote, .gmail_extra, [data-smartmail="gmail_signature"]';
const MESSAGE = '[data-message-id]';
const THREAD_HEADING = 'h2[data-thread-perm-id], h2[data-legacy-thread-id]';
const MAX_TURNS = 3;
const TURN_CHARS = 1500;

/** The compose window around the body: the nearest ancestor that also holds the subject or recipients. */
export function findCompose(doc: Document, focused: HTMLElement | null): { root: Element; body: HTMLElement | null } | null {
  const start = focused?.closest<HTMLElement>(BODY) ?? focused;
  const fromNode = (node: Element | null): { root: Element; body: HTMLElement | null } | null => {
    for (let el = node, depth = 0; el && depth < 25; el = el.parentElement, depth++) {
      if (el.querySelector(`${SUBJECT}, ${RECIPIENT_FIELDS}, ${RECIPIENT_COMBO}, ${CHIP_OPTION}`)) {
        return { root: el, body: el.querySelector<HTMLElement>(BODY) };
      }
    }
    return null;
  };
  if (start) {
    const found = fromNode(start);
    if (found) return found;
  }
  // Nothing focused in a compose: the last open compose body on the page (new message dialog or inline reply).
  const bodies = Array.from(doc.querySelectorAll<HTMLElement>(BODY));
  for (let i = bodies.length - 1; i >= 0; i--) {
    const found = fromNode(bodies[i]);
    if (found) return found;
  }
  return null;
}

function addressParts(raw: string): string[] {
  // "Ana Lima <ana@x.com>, bo@y.org" -> ["Ana Lima", "ana@x.com", "bo@y.org"]
  const out: string[] = [];
  for (const part of raw.split(/[,;]/)) {
    const m = nameAndAddress(part);
    if (m) {
      if (m.name) out.push(m.name);
      out.push(m.address);
    } else if (part.trim()) out.push(part.trim());
  }
  return out;
}

export function readRecipients(compose: Element): string[] {
  const people: string[] = [];
  for (const chip of outermost(Array.from(compose.querySelectorAll<HTMLElement>(CHIP)))) {
    // Chips of the message being replied to (quoted headers) are not recipients.
    if (chip.closest(QUOTED) || chip.closest(BODY)) continue;
    const email = chip.getAttribute('email') ?? chip.getAttribute('data-hovercard-id') ?? '';
    const name = chip.getAttribute('name') ?? chip.getAttribute('data-name') ?? '';
    const shown = (chip.textContent ?? '').trim();
    if (name) people.push(name);
    else if (shown && shown !== email && !shown.includes('@')) people.push(shown);
    if (email.includes('@')) people.push(email);
  }
  for (const input of Array.from(compose.querySelectorAll<HTMLInputElement>(RECIPIENT_INPUTS))) people.push(...addressParts(input.value));
  for (const input of Array.from(compose.querySelectorAll<HTMLInputElement>(RECIPIENT_COMBO))) {
    if (input.value.includes('@') && !input.closest(BODY)) people.push(...addressParts(input.value));
  }
  return uniq(people).slice(0, 20);
}

function threadSubject(doc: Document): string | undefined {
  const h = doc.querySelector(THREAD_HEADING);
  const text = h?.textContent?.trim();
  if (text) return text;
  // Gmail titles a thread "Subject - account - Gmail".
  const m = doc.title.match(/^(.*) - [^-]+@[^-]+ - Gmail$/);
  return m && !/^(Inbox|Sent|Drafts|Starred)( \(\d+\))?$/.test(m[1]) ? m[1] : undefined;
}

/** The last messages of the open thread, oldest first, as "Sender: text". */
export function readThread(doc: Document): { turns: string[]; lastSender?: string[] } {
  const scope = doc.querySelector('[role="main"]') ?? doc.body;
  if (!scope) return { turns: [] };
  const messages = outermost(Array.from(scope.querySelectorAll<HTMLElement>(MESSAGE))).filter((m) => !m.closest(BODY));
  const turns: string[] = [];
  let lastSender: string[] | undefined;
  for (let i = messages.length - 1; i >= 0 && turns.length < MAX_TURNS; i--) {
    const msg = messages[i];
    const sender = msg.querySelector<HTMLElement>('[email][name], [email]');
    const name = sender?.getAttribute('name') || sender?.textContent?.trim() || '';
    const email = sender?.getAttribute('email') ?? '';
    // The body is the message's .a3s block (older markup: its div[dir]); headers (sender, date, the "to" line),
    // buttons and quotes are left out. A collapsed message has no body: its header is not a turn.
    const bodyEl = msg.querySelector<HTMLElement>(MESSAGE_BODY) ?? msg.querySelector<HTMLElement>(':scope [dir="ltr"], :scope [dir="auto"], :scope [dir="rtl"]');
    if (!bodyEl) continue;
    const text = tidy(blockText(bodyEl, { exclude: `${QUOTED}, [role="button"], [role="toolbar"], h3, [email], style`, maxChars: TURN_CHARS * 2 }));
    if (!text) continue;
    turns.unshift(clip(name ? `${name}: ${text}` : text, TURN_CHARS));
    if (!lastSender && (email || name)) lastSender = [name, email].filter(Boolean);
  }
  return { turns, lastSender };
}

/** "thread-f:1790…" (perhaps "#thread-f:…|msg-f:…") → the decimal X-GM-THRID. */
function fromPermId(value: string | null): string | undefined {
  return /^#?thread-[a-z]:(\d{1,20})(?:\|.*)?$/.exec(value ?? '')?.[1];
}

/** The hex thread id ("18d5…") → the same X-GM-THRID in decimal, as mail exports and the mbox import write it. */
export function fromLegacyId(value: string | null): string | undefined {
  return value && /^[0-9a-f]{1,16}$/i.test(value) ? BigInt(`0x${value}`).toString(10) : undefined;
}

/**
 * The open thread's id as mail exports carry it (X-GM-THRID), keyed as the mbox import keys it: `mail-thread:<id>`.
 * From the thread heading's data-thread-perm-id, else its data-legacy-thread-id (list rows carry that one too, so the
 * bare attribute counts only on the heading), else any perm id in the open view.
 */
export function threadId(doc: Document): string | undefined {
  const heading = doc.querySelector(THREAD_HEADING);
  const id =
    fromPermId(heading?.getAttribute('data-thread-perm-id') ?? null) ??
    fromLegacyId(heading?.getAttribute('data-legacy-thread-id') ?? null) ??
    fromPermId(doc.querySelector('[role="main"] [data-thread-perm-id]')?.getAttribute('data-thread-perm-id') ?? null);
  return id ? `mail-thread:${id}` : undefined;
}

const GMAIL_HOSTS = ['mail.google.com'];

export const gmailAdapter: SiteAdapter = {
  name: 'gmail',
  hosts: GMAIL_HOSTS,
  label: 'Gmail',
  destination: 'email',
  seen: '2026-12-06',
  landmarks: {
    'compose body': BODY,
    subject: SUBJECT,
    recipients: `${RECIPIENT_FIELDS}, ${CHIP_OPTION}`,
    'thread id': `${THREAD_HEADING}, [role="main"] [data-thread-perm-id]`,
    messages: MESSAGE,
    'mail view': '[role="main"]',
  },
  matches: onHosts(GMAIL_HOSTS),
  read(doc, focused) {
    const compose = findCompose(doc, focused);
    const thread = readThread(doc);
    if (!compose && !thread.turns.length) return null;
    const out: Partial<TaskReading> = {};
    if (compose) {
      const people = readRecipients(compose.root);
      if (people.length) out.people = people;
      const subject = compose.root.querySelector<HTMLInputElement>(SUBJECT)?.value.trim();
      if (subject) out.subject = subject;
      const body = compose.body;
      if (body && (!focused || focused === body || body.contains(focused))) {
        // The body being written, without the quoted history Gmail appends to replies.
        // An empty reply is empty: the quoted history under it is not the ask.
        const text = tidy(blockText(body, { exclude: QUOTED, maxChars: 20_000 }));
        out.field = { text: stripInsertedText(body, text), kind: 'contenteditable', label: body.getAttribute('aria-label') ?? 'Message Body' };
      }
    }
    out.subject ??= threadSubject(doc);
    if (thread.turns.length) out.turns = thread.turns;
    if (!out.people?.length && thread.lastSender && compose) out.people = thread.lastSender;
    const id = threadId(doc);
    if (id) out.thread = { id };
    return out;
  },
  scope(doc, focused) {
    return findCompose(doc, focused)?.root ?? doc.querySelector('[role="main"]');
  },
  observe: { childList: true, subtree: true, attributes: true, attributeFilter: ['email', 'data-hovercard-id', 'value'] },
};
