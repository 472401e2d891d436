import { isSecretField } from '../dom/editable';
import type { SiteAdapter } from './adapter';
import { nameAndAddress } from './text';

const HEADINGS = 'h1, h2, h3, h4, [role="heading"]';
const MAX_SCAN = 300;

/** Headings nearest the field (the closest ones before it, then the page's h1), or the page's first headings. */
export function nearbyHeadings(doc: Document, focused: HTMLElement | null, max = 5): string[] {
  const all = Array.from(doc.querySelectorAll<HTMLElement>(HEADINGS)).slice(0, MAX_SCAN);
  const text = (h: Element) => (h.textContent ?? '').replace(/\s+/g, ' ').trim().slice(0, 200);
  let picked: Element[];
  if (focused) {
    const before = all.filter((h) => h.compareDocumentPosition(focused) & Node.DOCUMENT_POSITION_FOLLOWING);
    const closest = before.slice(-(max - 1)).reverse();
    const h1 = all.find((h) => h.tagName === 'H1');
    picked = h1 && !closest.includes(h1) ? [...closest, h1] : closest;
    if (!picked.length) picked = all.slice(0, max);
  } else picked = all.slice(0, max);
  return Array.from(new Set(picked.map(text).filter(Boolean))).slice(0, max);
}

const ADDRESS_FIELD = /^(to|cc|bcc)\b|recipients?/i;
const SUBJECT_FIELD = /^subject\b|^subjectbox$/i;
const MAX_PEOPLE = 20;
const MAX_ADDRESS_CHARS = 10_000;

function fieldName(el: HTMLInputElement): string {
  return el.getAttribute('aria-label') || el.name || el.id || '';
}

/**
 * Any webmail-like form (Outlook, Fastmail, a CRM's "email contact"): when the field sits in a dialog or form that
 * also has To/Cc inputs and a Subject, those are the recipients and the subject. Found by labels and names only.
 */
export function composeFields(focused: HTMLElement | null): { people?: string[]; subject?: string } {
  const scope = focused?.closest('form, [role="dialog"], [role="form"], dialog');
  if (!scope) return {};
  const inputs = Array.from(scope.querySelectorAll<HTMLInputElement>('input:not([type="hidden"])')).filter((i) => !isSecretField(i));
  const people: string[] = [];
  for (const input of inputs.filter((i) => ADDRESS_FIELD.test(fieldName(i)))) {
    // A page sets the field's value: only the length real recipients take is parsed.
    for (const part of input.value.slice(0, MAX_ADDRESS_CHARS).split(/[,;]/)) {
      const m = nameAndAddress(part);
      const at = m ? m.bracketed.indexOf('@', 1) : -1;
      if (m && at > 0 && at < m.bracketed.length - 1) people.push(...[m.name, m.address].filter(Boolean));
      else if (/\S@\S/.test(part)) people.push(part.trim());
    }
  }
  const subject = inputs.find((i) => SUBJECT_FIELD.test(fieldName(i)))?.value.trim();
  return {
    ...(people.length ? { people: Array.from(new Set(people)).slice(0, MAX_PEOPLE) } : {}),
    ...(subject ? { subject: subject.slice(0, 300) } : {}),
  };
}

/** Any page: the nearest headings give the field its topic; a compose form gives recipients and subject. */
export const genericAdapter: SiteAdapter = {
  name: 'generic',
  hosts: [],
  destination: 'documents',
  matches: () => true,
  read(doc, focused) {
    const headings = nearbyHeadings(doc, focused);
    // Other webmail (a mail.* host: Yahoo, Proton, Zoho...) is written to as email.
    const mail = /^mail\./i.test(doc.location?.hostname ?? '');
    return { ...(headings.length ? { headings } : {}), ...composeFields(focused), ...(mail ? { destination: 'email' as const } : {}) };
  },
};
