/** Finding and reading the editable the user is writing in, never a secret field. */

const TEXT_INPUT_TYPES = new Set(['text', 'search', 'email', 'url', '']);

export type EditableKind = 'textarea' | 'input' | 'contenteditable';

/** Same text for the same word in any case, with or without accents (contraseña, şifre, jelszó). */
const fold = (s: string): string => s.normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase();
const words = (s: string): string[] => fold(s).split(/[^\p{L}\p{N}]+/u).filter(Boolean);

const SECRET_AUTOCOMPLETE = /\b(current-password|new-password|one-time-code|cc-number|cc-csc|cc-exp|cc-exp-month|cc-exp-year)\b/i;
/** Words that name a secret, in what the page shows (labels, placeholders) and in names and ids. */
const SECRET_WORDS = new Set(
  [
    'password', 'passwd', 'pwd', 'passcode', 'passphrase', 'pin', 'pincode', 'secret', 'token', 'otp', 'totp', 'cvc', 'cvv', 'apikey',
    // de, nl, es/pt, pl, tr/ro/it, sv, nb, da, fi, hu, cs/sk
    'passwort', 'kennwort', 'geheimzahl', 'wachtwoord', 'contraseña', 'senha', 'hasło', 'haslo', 'şifre', 'parola', 'parolă',
    'lösenord', 'passord', 'adgangskode', 'salasana', 'jelszó', 'heslo', 'пароль', 'пин',
  ].map(fold),
);
/** In names and ids only: words too common in labels ("pass the salt") but a secret as a field's name. */
const SECRET_NAME_WORDS = new Set(['pass', 'pw', 'pword', 'csc', 'cardnumber', 'ccnumber', 'ccnum']);
/** Several words, or scripts without spaces, found anywhere in the folded text. */
const SECRET_PHRASES = [
  'mot de passe', 'motdepasse', 'mot_de_passe', 'code pin', 'pin code', 'one-time code', 'one time code', 'verification code',
  'security code', 'api key', 'access key', 'пин-код', 'κωδικός πρόσβασης', 'סיסמה', 'كلمة المرور', 'كلمة السر', 'पासवर्ड',
  'mật khẩu', 'kata sandi', 'รหัสผ่าน', '密码', '密碼', '口令', 'パスワード', '暗証番号', '비밀번호', 'card number',
].map(fold);

/** Fields that ever were a password field: a "show password" toggle to type=text keeps them secret. */
const everPassword = new WeakSet<Element>();

function saysSecret(text: string, nameLike: boolean): boolean {
  if (!text) return false;
  // camelCase and snake_case names are words too (userPassword, api_token).
  const t = (nameLike ? text.replace(/(\p{Ll})(\p{Lu})/gu, '$1 $2') : text).slice(0, 500);
  for (const w of words(t)) if (SECRET_WORDS.has(w) || (nameLike && SECRET_NAME_WORDS.has(w))) return true;
  const folded = fold(t);
  return SECRET_PHRASES.some((p) => folded.includes(p)) || (nameLike && /pass(word|wd|code)|card.?number/.test(folded));
}

/** Everything the page says the field is: its labels, aria-label(ledby), placeholder and title. */
export function fieldLabels(el: Element): string[] {
  const doc = el.ownerDocument;
  const out: string[] = [];
  const byIds = el.getAttribute('aria-labelledby');
  if (byIds) {
    out.push(
      byIds
        .split(/\s+/)
        .slice(0, 10)
        .map((id) => doc.getElementById(id)?.textContent?.trim() ?? '')
        .filter(Boolean)
        .join(' '),
    );
  }
  out.push(el.getAttribute('aria-label')?.trim() ?? '');
  const labels = (el as HTMLInputElement).labels;
  if (labels?.length) {
    out.push(
      Array.from(labels)
        .map((l) => l.textContent?.trim() ?? '')
        .filter(Boolean)
        .join(' '),
    );
  }
  for (const a of ['placeholder', 'data-placeholder', 'title']) out.push(el.getAttribute(a)?.trim() ?? '');
  return out.map((t) => t.slice(0, 200)).filter(Boolean);
}

/** The page asks for the text to be masked (a home-made password field), in its styles or in the element's own. */
function masked(el: Element): boolean {
  try {
    const cs = el.ownerDocument.defaultView?.getComputedStyle(el);
    const v = cs?.getPropertyValue('-webkit-text-security') || (cs as unknown as { webkitTextSecurity?: string } | undefined)?.webkitTextSecurity;
    if (v && v !== 'none') return true;
  } catch {
    // a detached element has no style
  }
  return /-webkit-text-security\s*:\s*(?!none\b)[a-z]/i.test(el.getAttribute('style') ?? '');
}

/**
 * True for a field whose text Backstory must never read or write: one that is or ever was type=password, asks the
 * browser for a password, one-time code or card number (autocomplete), is named, labelled or described as a
 * password, PIN, secret or token in the major languages, or has its text masked by styling. The one check every
 * reader (task, section, sent messages, "Remember this") and the inserter go through, via editableKind.
 */
export function isSecretField(el: Element): boolean {
  if (el instanceof HTMLInputElement && el.type === 'password') {
    everPassword.add(el);
    return true;
  }
  if (everPassword.has(el)) return true;
  const editable = el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement || (el instanceof HTMLElement && el.isContentEditable);
  if (!editable) return false;
  if (SECRET_AUTOCOMPLETE.test(el.getAttribute('autocomplete') ?? '')) return true;
  if (saysSecret(`${el.getAttribute('name') ?? ''} ${el.id}`, true)) return true;
  if (fieldLabels(el).some((t) => saysSecret(t, false))) return true;
  return masked(el);
}

/**
 * Remembers the page's password fields before a "show password" toggle makes them type=text: those there now, those
 * switched away from password (the attribute's old value), and any focused or typed in (inside shadow roots too).
 */
export function watchSecretFields(doc: Document = document): () => void {
  for (const el of Array.from(doc.querySelectorAll('input[type="password" i]'))) everPassword.add(el);
  const observer = new MutationObserver((records) => {
    for (const r of records) {
      if (r.target instanceof Element && (r.oldValue ?? '').toLowerCase() === 'password') everPassword.add(r.target);
      if (r.target instanceof HTMLInputElement && r.target.type === 'password') everPassword.add(r.target);
    }
  });
  observer.observe(doc, { attributes: true, attributeFilter: ['type'], attributeOldValue: true, subtree: true });
  // Any event, trusted or not, may mark a field secret: a page can only hide its own fields from Backstory this way.
  const note = (e: Event) => {
    const el = eventOrigin(e);
    if (el) isSecretField(el);
  };
  doc.addEventListener('focusin', note, true);
  doc.addEventListener('beforeinput', note, true);
  return () => {
    observer.disconnect();
    doc.removeEventListener('focusin', note, true);
    doc.removeEventListener('beforeinput', note, true);
  };
}

/** What kind of editable the element is, or null when it is none or a secret field (never read, never written). */
export function editableKind(el: Element | null): EditableKind | null {
  if (!el) return null;
  if (el instanceof HTMLTextAreaElement) return el.disabled || el.readOnly || isSecretField(el) ? null : 'textarea';
  if (el instanceof HTMLInputElement) {
    if (isSecretField(el) || el.disabled || el.readOnly) return null;
    return TEXT_INPUT_TYPES.has(el.type) ? 'input' : null;
  }
  if (el instanceof HTMLElement && el.isContentEditable) return isSecretField(el) ? null : 'contenteditable';
  return null;
}

/** The root editable element for a focus target (a contenteditable's outermost editable ancestor), never a secret one. */
export function editableRoot(el: Element | null): HTMLElement | null {
  const kind = editableKind(el);
  if (!el || !kind) return null;
  let node = el as HTMLElement;
  if (kind === 'contenteditable') {
    while (node.parentElement && node.parentElement.isContentEditable) node = node.parentElement;
    // The host is what the page labels (aria-label="PIN" on the editor, not on its paragraphs).
    if (node !== el && !editableKind(node)) return null;
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

/** What the page calls the field: its <label>, aria-label(ledby), placeholder or title (the first of them). */
export function fieldLabel(el: HTMLElement): string | undefined {
  return fieldLabels(el)[0];
}
