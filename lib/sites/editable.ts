/** Finding and reading the editable the user is writing in, never a secret field. */

const SECRET_AUTOCOMPLETE = /\b(current-password|new-password|one-time-code|cc-number|cc-csc|cc-exp|cc-exp-month|cc-exp-year)\b/i;
const TEXT_INPUT_TYPES = new Set(['text', 'search', 'email', 'url', '']);

export type EditableKind = 'textarea' | 'input' | 'contenteditable';

/** True for password, card and one-time-code fields, and inputs whose name says so. */
export function isSecretField(el: Element): boolean {
  if (el instanceof HTMLInputElement) {
    if (el.type === 'password') return true;
    if (SECRET_AUTOCOMPLETE.test(el.autocomplete || el.getAttribute('autocomplete') || '')) return true;
    if (/pass(word|code)|otp|cvc|cvv|card.?number/i.test(`${el.name} ${el.id}`)) return true;
  }
  return false;
}

export function editableKind(el: Element | null): EditableKind | null {
  if (!el) return null;
  if (el instanceof HTMLTextAreaElement) return el.disabled || el.readOnly ? null : 'textarea';
  if (el instanceof HTMLInputElement) {
    if (isSecretField(el) || el.disabled || el.readOnly) return null;
    return TEXT_INPUT_TYPES.has(el.type) ? 'input' : null;
  }
  if (el instanceof HTMLElement && el.isContentEditable) return 'contenteditable';
  return null;
}

/** The root editable element for a focus target (a contenteditable's outermost editable ancestor). */
export function editableRoot(el: Element | null): HTMLElement | null {
  if (!el || !editableKind(el)) return null;
  let node = el as HTMLElement;
  if (editableKind(node) === 'contenteditable') {
    while (node.parentElement && node.parentElement.isContentEditable) node = node.parentElement;
  }
  return node;
}

/** Focused element, looking through open shadow roots and same-origin iframes. */
export function deepActiveElement(doc: Document = document): Element | null {
  let el: Element | null = doc.activeElement;
  for (;;) {
    if (el?.shadowRoot?.activeElement) el = el.shadowRoot.activeElement;
    else if (el instanceof HTMLIFrameElement) {
      try {
        const inner = el.contentDocument?.activeElement;
        if (!inner) break;
        el = inner;
      } catch {
        break;
      }
    } else break;
  }
  return el;
}

/** The element an event really came from, inside open shadow roots too (the document sees only the host). */
export function eventOrigin(e: Event): Element | null {
  const first = e.composedPath?.()[0];
  return first instanceof Element ? first : e.target instanceof Element ? e.target : null;
}

export function editableText(el: HTMLElement): string {
  if (el instanceof HTMLTextAreaElement || el instanceof HTMLInputElement) return el.value;
  return el.innerText ?? el.textContent ?? '';
}

/** What the page calls the field: its <label>, aria-label(ledby), placeholder or title. */
export function fieldLabel(el: HTMLElement): string | undefined {
  const doc = el.ownerDocument;
  const byIds = el.getAttribute('aria-labelledby');
  if (byIds) {
    const t = byIds
      .split(/\s+/)
      .map((id) => doc.getElementById(id)?.textContent?.trim() ?? '')
      .filter(Boolean)
      .join(' ');
    if (t) return t.slice(0, 200);
  }
  const aria = el.getAttribute('aria-label');
  if (aria?.trim()) return aria.trim().slice(0, 200);
  const labels = (el as HTMLInputElement).labels;
  if (labels && labels.length) {
    const t = Array.from(labels)
      .map((l) => l.textContent?.trim() ?? '')
      .filter(Boolean)
      .join(' ');
    if (t) return t.slice(0, 200);
  }
  const ph = el.getAttribute('placeholder') ?? el.getAttribute('data-placeholder') ?? el.getAttribute('title');
  return ph?.trim() ? ph.trim().slice(0, 200) : undefined;
}
