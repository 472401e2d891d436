import type { TaskReading } from '../rank/types';
import { onHosts, type SiteAdapter } from './adapter';
import { stripInsertedText } from '../insert/state';
import { blockText, firstEmail, tidy, uniq } from './text';

/**
 * Outlook on the web. The To / Cc fields are contenteditables holding recipient chips (not inputs, so the generic
 * compose reader finds none), the subject is the input labelled "Add a subject", the body a contenteditable
 * labelled "Message body". Found by aria labels only. Last seen working on the live site: 2026-11-20.
 */
// Work and school accounts are moving from outlook.office.com to outlook.cloud.microsoft (Microsoft's own domain).
const OUTLOOK_HOSTS = ['outlook.live.com', 'outlook.office.com', 'outlook.office365.com', 'outlook.cloud.microsoft'];
const BODY = '[contenteditable="true"][aria-label^="Message body" i], [role="textbox"][aria-label^="Message body" i]';
const ADDRESS = '[contenteditable="true"][aria-label="To" i], [contenteditable="true"][aria-label="Cc" i], [contenteditable="true"][aria-label="Bcc" i], [role="textbox"][aria-label="To" i], [role="textbox"][aria-label="Cc" i]';
const SUBJECT = 'input[aria-label="Add a subject" i], input[placeholder="Add a subject" i], input[aria-label="Subject" i]';

/** The compose form around a field: the nearest ancestor that also holds the subject or an address field. */
function findCompose(doc: Document, focused: HTMLElement | null): Element | null {
  for (let el: Element | null = focused, depth = 0; el && depth < 25; el = el.parentElement, depth++) {
    if (el.querySelector(`${SUBJECT}, ${ADDRESS}`)) return el;
  }
  const subject = doc.querySelector(SUBJECT);
  for (let el: Element | null = subject?.parentElement ?? null, depth = 0; el && depth < 25; el = el.parentElement, depth++) {
    if (el.querySelector(BODY)) return el;
  }
  return null;
}

/** Recipients from the chips of the address fields: the name shown, and an address when the chip carries one. */
export function outlookRecipients(compose: Element): string[] {
  const people: string[] = [];
  for (const field of Array.from(compose.querySelectorAll<HTMLElement>(ADDRESS))) {
    const chips = Array.from(field.querySelectorAll<HTMLElement>('[role="button"], [data-email], span[title], [aria-label]'));
    for (const chip of chips) {
      const shown = (chip.textContent ?? '').replace(/\s+/g, ' ').trim();
      const attrs = [chip.getAttribute('data-email'), chip.getAttribute('title'), chip.getAttribute('aria-label')].join(' ');
      const email = firstEmail(attrs) ?? firstEmail(shown);
      if (shown && !firstEmail(shown) && shown.length < 80) people.push(shown);
      if (email) people.push(email);
    }
    // Addresses typed but not yet turned into chips.
    for (const part of (field.innerText ?? field.textContent ?? '').split(/[;,\n]/)) {
      const email = firstEmail(part);
      if (email) people.push(email);
    }
  }
  return uniq(people).slice(0, 20);
}

export const outlookAdapter: SiteAdapter = {
  name: 'outlook',
  hosts: OUTLOOK_HOSTS,
  destination: 'email',
  seen: '2026-11-20',
  matches: onHosts(OUTLOOK_HOSTS),
  read(doc, focused) {
    const compose = findCompose(doc, focused);
    if (!compose) return null;
    const out: Partial<TaskReading> = {};
    const people = outlookRecipients(compose);
    if (people.length) out.people = people;
    const subject = compose.querySelector<HTMLInputElement>(SUBJECT)?.value.trim();
    if (subject) out.subject = subject;
    const body = compose.querySelector<HTMLElement>(BODY);
    if (body && (!focused || body === focused || body.contains(focused))) {
      const text = tidy(blockText(body, { exclude: '#divRplyFwdMsg, #appendonsend, [id^="Signature"], blockquote', maxChars: 20_000 }));
      out.field = { text: stripInsertedText(body, text), kind: 'contenteditable', label: body.getAttribute('aria-label') ?? 'Message body' };
    }
    return out;
  },
  scope(doc, focused) {
    return findCompose(doc, focused) ?? doc.querySelector('[role="main"]');
  },
  observe: { childList: true, subtree: true, characterData: true },
};
