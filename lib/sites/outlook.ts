import type { TaskReading } from '../rank/types';
import { onHosts, type SiteAdapter } from './adapter';
import { stripInsertedText } from '../insert/state';
import { blockText, firstEmail, tidy, uniq } from './text';

/**
 * Outlook on the web, read by the shape of its compose form, in any interface language:
 * - the body is the multi-line editable ([contenteditable][aria-multiline="true"]);
 * - the recipient wells (To, Cc, Bcc) are the single-line editables beside it holding person chips (Outlook's
 *   hover-card targets, [data-lpc-hover-target-id], or chips carrying an address), typed addresses as their text;
 * - the subject is the single-line text input of the form that is not inside a well;
 * - the form is the nearest ancestor of the body that also holds a well or the subject.
 * Labels ("To", "Add a subject", "Message body" and their German, French, Spanish and Japanese forms) are one more
 * hint, never needed. Compared with the references in lib/sites/REFERENCES.md on 2026-12-06 (not checked on the live
 * site).
 */
// Work and school accounts are moving from outlook.office.com to outlook.cloud.microsoft (Microsoft's own domain).
const OUTLOOK_HOSTS = ['outlook.live.com', 'outlook.office.com', 'outlook.office365.com', 'outlook.cloud.microsoft'];

/** Words as hints, matched at the start of a label: en, de, fr, es, ja. */
const BODY_WORDS = ['Message body', 'Nachrichtentext', 'Corps du message', 'Cuerpo del mensaje', 'メッセージ本文'];
const WELL_WORDS = ['To', 'Cc', 'Bcc', 'An', 'À', 'Cci', 'Para', 'CCO', '宛先'];
const SUBJECT_WORDS = ['Add a subject', 'Subject', 'Betreff', 'Objet', 'Asunto', '件名'];

const labelled = (tag: string, words: string[], exact: boolean) => words.map((w) => `${tag}[aria-label${exact ? '' : '^'}="${w}" i]`).join(', ');

const BODY = `[contenteditable="true"][aria-multiline="true"], ${labelled('[contenteditable="true"]', BODY_WORDS, false)}`;
/** A well: a single-line editable (the body is the multi-line one), or one labelled as an address field. */
const WELL = `[contenteditable="true"]:not([aria-multiline="true"]), [role="textbox"]:not([aria-multiline="true"]), ${labelled('div', WELL_WORDS, true)}`;
/** A person in a well: Outlook's hover-card target, or a chip that carries an address. */
const PERSONA = '[data-lpc-hover-target-id], [data-email], [role="button"], span[title*="@"], [aria-label*="@"]';
const TEXT_INPUT = 'input:not([type]), input[type="text"]';
const REPLY_HISTORY = '#divRplyFwdMsg, #appendonsend, [id^="Signature"], blockquote';

function isBody(el: Element): boolean {
  return el.matches(BODY);
}

/** The recipient wells of a compose form: single-line editables that are not the body, outermost only. */
function wells(compose: Element): HTMLElement[] {
  const list = Array.from(compose.querySelectorAll<HTMLElement>(WELL)).filter((w) => !isBody(w) && !w.closest(BODY) && !(w instanceof HTMLInputElement));
  // A chip is itself contenteditable="false" inside its well, and a well may nest an editable: keep the outermost.
  return list.filter((w) => !list.some((o) => o !== w && o.contains(w)));
}

/** The subject: a label that says so, else the form's last single-line text input outside the wells before the body. */
function subjectInput(compose: Element): HTMLInputElement | null {
  const ws = wells(compose);
  const inputs = Array.from(compose.querySelectorAll<HTMLInputElement>(TEXT_INPUT)).filter((i) => i.getAttribute('role') !== 'combobox' && !ws.some((w) => w.contains(i)));
  const byWords = inputs.find((i) => SUBJECT_WORDS.some((w) => [i.getAttribute('aria-label'), i.placeholder].some((l) => l?.toLowerCase() === w.toLowerCase())));
  if (byWords) return byWords;
  const body = compose.querySelector(BODY);
  const before = body ? inputs.filter((i) => i.compareDocumentPosition(body) & Node.DOCUMENT_POSITION_FOLLOWING) : inputs;
  return before.at(-1) ?? inputs.at(-1) ?? null;
}

/**
 * The compose form around a field: the nearest ancestor of the body that also holds a recipient well or the subject.
 * Cheap enough to ask per landmark: the climb stops at the form, and an input is looked for before the wells.
 */
export function findCompose(doc: Document, focused: HTMLElement | null): Element | null {
  const holdsForm = (el: Element) => el.querySelector(BODY) !== null && (el.querySelector(TEXT_INPUT) !== null || wells(el).length > 0);
  for (let el: Element | null = focused, depth = 0; el && depth < 25; el = el.parentElement, depth++) {
    if (holdsForm(el)) return el;
  }
  const bodies = Array.from(doc.querySelectorAll(BODY));
  for (let i = bodies.length - 1; i >= 0; i--) {
    for (let el: Element | null = bodies[i].parentElement, depth = 0; el && depth < 25; el = el.parentElement, depth++) {
      if (holdsForm(el)) return el;
    }
  }
  return null;
}

/** Recipients from the chips of the address wells: the name shown, and an address when the chip carries one. */
export function outlookRecipients(compose: Element): string[] {
  const people: string[] = [];
  for (const well of wells(compose)) {
    const chips = Array.from(well.querySelectorAll<HTMLElement>(PERSONA));
    for (const chip of chips.filter((c) => !chips.some((o) => o !== c && o.contains(c)))) {
      const shown = (chip.textContent ?? '').replace(/\s+/g, ' ').trim();
      const inner = Array.from(chip.querySelectorAll('[title], [data-email], [aria-label], [data-lpc-hover-target-id]'));
      const attrs = [chip, ...inner]
        .flatMap((el) => ['data-email', 'title', 'aria-label', 'data-lpc-hover-target-id'].map((a) => el.getAttribute(a) ?? ''))
        .join(' ');
      const email = firstEmail(attrs) ?? firstEmail(shown);
      if (shown && !firstEmail(shown) && shown.length < 80) people.push(shown);
      if (email) people.push(email);
    }
    // Addresses typed but not yet turned into chips.
    for (const part of (well.innerText ?? well.textContent ?? '').split(/[;,\n]/)) {
      const email = firstEmail(part);
      if (email) people.push(email);
    }
  }
  return uniq(people).slice(0, 20);
}

export const outlookAdapter: SiteAdapter = {
  name: 'outlook',
  label: 'Outlook',
  hosts: OUTLOOK_HOSTS,
  destination: 'email',
  seen: '2026-12-06',
  landmarks: {
    'compose form': (doc, focused) => findCompose(doc, focused) !== null,
    'message body': BODY,
    'recipient wells': (doc, focused) => {
      const form = findCompose(doc, focused);
      return !!form && wells(form).length > 0;
    },
    subject: (doc, focused) => {
      const form = findCompose(doc, focused);
      return !!form && subjectInput(form) !== null;
    },
    'mail view': '[role="main"]',
  },
  matches: onHosts(OUTLOOK_HOSTS),
  read(doc, focused) {
    const compose = findCompose(doc, focused);
    if (!compose) return null;
    const out: Partial<TaskReading> = {};
    const people = outlookRecipients(compose);
    if (people.length) out.people = people;
    const subject = subjectInput(compose)?.value.trim();
    if (subject) out.subject = subject;
    const body = compose.querySelector<HTMLElement>(BODY);
    if (body && (!focused || body === focused || body.contains(focused))) {
      const text = tidy(blockText(body, { exclude: REPLY_HISTORY, maxChars: 20_000 }));
      out.field = { text: stripInsertedText(body, text), kind: 'contenteditable', label: body.getAttribute('aria-label') ?? 'Message body' };
    }
    return out;
  },
  scope(doc, focused) {
    return findCompose(doc, focused) ?? doc.querySelector('[role="main"]');
  },
  observe: { childList: true, subtree: true, characterData: true },
};
