/**
 * Optional capture of the messages the user sends (options: "Remember the messages I send on these sites"; off by
 * default). Runs in the content script. It reads the settings itself and listens to nothing until capture is on for
 * this site; then, when the user sends from a composer (Enter without Shift, Ctrl/Cmd+Enter, a send button, or a
 * form submit), it takes the composer's text *before* the page clears it and hands it to the service worker
 * (`capture:sent`), which checks the settings again before saving. Secret fields are never read.
 *
 * Only the user's own send counts: the Enter, click or submit must be trusted (a page can dispatch any event, but
 * not a trusted one), and the composer must be a field the user typed into. Typing is a trusted `beforeinput`, which
 * real keystrokes, pastes, drops and IME composition fire; a page's `execCommand` or value change fires none, so a
 * hidden field the page fills itself is never a composer. The worker also caps sent captures per tab (capture.ts).
 *
 * Wiring (content-agent, owned by lib/sites): `const stop = startSentCapture({ readField, send, people })`, where
 * `readField(el)` returns the composer text (the content agent's `editableText` minus inserted cards) and `send`
 * posts `{ type: 'capture:sent', payload }` to the service worker.
 */

import { siteListed } from '../core/hosts';
import { readSettings, watchSettings } from '../settings/settings-item';
import type { Settings } from '../settings/types';
import { isInserting } from '../insert/state';
import { editableRoot, eventOrigin } from '../dom/editable';

export interface SentCaptureSettings {
  captureSent?: boolean;
  captureSites?: string[];
  excludedSites?: string[];
}

export interface SentMessage {
  text: string;
  url: string;
  title: string;
  site: string;
  people?: string[];
  /** The conversation or mail thread the message belongs to (`chatgpt:<id>`, `mail-thread:<id>`...). */
  thread?: { id: string };
}

export interface SentCaptureDeps {
  /** The composer's text for an editable element, or null when it is not one (or is a secret field). */
  readField(el: Element): string | null;
  /** Delivers a message to the service worker. */
  send(msg: SentMessage): Promise<unknown>;
  /** The people the page names (recipients, chat partner), if the site adapter knows them. */
  people?(): string[] | undefined;
  /** The thread on screen, if the site adapter knows it. */
  thread?(): { id: string } | undefined;
  /** Current settings and their changes; defaults to the settings item (lib/settings/settings-item.ts). */
  loadSettings?(): Promise<SentCaptureSettings | undefined>;
  onSettingsChanged?(cb: (s: SentCaptureSettings | undefined) => void): () => void;
  doc?: Document;
}

/** What can be clicked: a send control is one of these, or inside one (an icon in a button). */
const CLICKABLE = 'button, [role="button"], input[type="submit"]';
/** Send controls by their structure: the sites' test ids (ChatGPT, Claude, Copilot, Perplexity, Grok). */
const SEND_BY_ID = '[data-testid*="send" i], [data-testid*="submit" i], [data-testid="chat-input-send"]';
/** A control that stops a reply under way sits where the send button was; it sends nothing. */
const STOP = /(^|[^\p{L}])(stop|cancel|abort|interrupt|arr[eê]t|detener|anhalten|interromp)|停止|取消/iu;
/**
 * The word a send control is labelled with, in the languages the sites are used in (the label follows the user's
 * language: M365 Copilot's is "Enviar" in Spanish, Perplexity's "送信" in Japanese). One more hint after structure.
 */
const SEND_WORDS = new RegExp(
  '^(send|submit|envoyer|soumettre|senden|absenden|enviar|invia|inviare|verzenden|versturen|verstuur|wyślij|odeslat|odoslať|отправить|надіслати|' +
    '送信|发送|提交|傳送|送出|發送|보내기|전송|제출|gönder|skicka|lähetä|küldés|trimite|αποστολή|שלח|إرسال|ارسال|भेजें|kirim|gửi|ส่ง)(\\s|$)',
  'i',
);
/** How far above the composer a submit button may sit and still be its own (the composer's toolbar). */
const COMPOSER_REACH = 5;

/** The control's own words: its label or title, else its text when that is a button's few words (not a card's). */
function controlLabel(el: Element): string {
  const named = el.getAttribute('aria-label') ?? el.getAttribute('title') ?? (el instanceof HTMLInputElement ? el.value : null);
  if (named !== null) return named.trim().slice(0, 40);
  const text = (el.textContent ?? '').trim();
  return text.length <= 24 && text.split(/\s+/).length <= 3 ? text : '';
}

/** Whether a submit button belongs to the composer: in its form, or beside it in the composer's own box. */
function submitsComposer(control: Element, composer: Element | null): boolean {
  if (!composer || !(control instanceof HTMLButtonElement || control instanceof HTMLInputElement)) return false;
  // A <button> in a form submits unless it says otherwise; outside one only a declared type=submit counts.
  if (control.form) return control.type === 'submit' && control.form.contains(composer);
  if (control.getAttribute('type')?.toLowerCase() !== 'submit') return false;
  let box: Element | null = composer;
  for (let i = 0; box && box !== composer.ownerDocument.body && i < COMPOSER_REACH; i++, box = box.parentElement) if (box.contains(control)) return true;
  return false;
}

/**
 * Whether a click on `target` is a click on the composer's send control: by structure first (the sites' test ids,
 * type=submit in the composer's form or box), then by its label's word in one of several languages.
 */
export function isSendControl(target: Element, composer: Element | null): boolean {
  const control = target.closest(CLICKABLE);
  if (!control) return false;
  const label = controlLabel(control);
  if (STOP.test(label) || STOP.test(control.getAttribute('data-testid') ?? '')) return false;
  return control.matches(SEND_BY_ID) || submitsComposer(control, composer) || SEND_WORDS.test(label);
}

/** The settings item's fields capture reads. */
function sentCaptureSettings(s: Settings): SentCaptureSettings {
  return { captureSent: s.capture.sent, captureSites: s.capture.sites, excludedSites: s.ui.excludedSites };
}

/** Whether the settings allow capture on this site. */
export function captureAllowed(s: SentCaptureSettings | undefined, site: string): boolean {
  return !!s?.captureSent && siteListed(s.captureSites, site) && !siteListed(s.excludedSites, site);
}

/** Starts watching for sent messages; returns a function that stops it. */
export function startSentCapture(deps: SentCaptureDeps): () => void {
  const doc = deps.doc ?? document;
  const site = doc.location.hostname;
  let settings: SentCaptureSettings | undefined;
  let lastText = '';
  let lastAt = 0;
  let composer: Element | null = null;
  let composerText = '';

  const load = deps.loadSettings ?? (async () => sentCaptureSettings(await readSettings()));
  void load().then((s) => (settings = s)).catch(() => {});
  const unsubscribe = (deps.onSettingsChanged ?? ((cb) => watchSettings((s) => cb(sentCaptureSettings(s)))))((s) => (settings = s));

  const deliver = (text: string) => {
    const t = text.trim();
    if (!t || !captureAllowed(settings, site)) return;
    const now = Date.now();
    if (t === lastText && now - lastAt < 3000) return; // one send seen by two listeners
    lastText = t;
    lastAt = now;
    const thread = deps.thread?.();
    void deps.send({ text: t, url: doc.location.href, title: doc.title, site, people: deps.people?.(), ...(thread ? { thread } : {}) }).catch(() => {});
  };

  /** The composer an event belongs to: the editable root (a contenteditable's outermost host), or the element. */
  const fieldOf = (e: Event): Element | null => {
    const el = eventOrigin(e);
    return el ? (editableRoot(el) ?? el) : null;
  };
  /** Fields whose text the user edited since their last send (or since the page last changed it). */
  const typedByUser = new WeakSet<Element>();
  /** The field of the user's edit under way: its trusted beforeinput came, its input event not yet. */
  let userEdit: Element | null = null;
  const userSending = () => (doc.defaultView?.navigator as { userActivation?: { isActive: boolean } } | undefined)?.userActivation?.isActive !== false;

  const onBeforeInput = (e: Event) => {
    const el = e.isTrusted ? fieldOf(e) : null;
    if (!el) return;
    typedByUser.add(el);
    userEdit = el;
    // An editor that cancels beforeinput and edits itself fires no input event: the edit is over with this task.
    setTimeout(() => userEdit === el && (userEdit = null), 0);
  };
  /**
   * Keeps the composer's text after each of the user's edits, so a send button that clears the field first still
   * has it. A trusted input with no beforeinput before it is the page's own (execCommand): the field is no longer
   * the user's until they type in it again. Backstory's own insertion is neither.
   */
  const track = (e: Event) => {
    if (!e.isTrusted || isInserting()) return;
    const el = fieldOf(e);
    if (!el) return;
    const byUser = el === userEdit;
    userEdit = null;
    if (!byUser) {
      typedByUser.delete(el);
      if (el === composer) composerText = '';
      return;
    }
    const text = captureAllowed(settings, site) ? deps.readField(el) : null;
    if (text !== null) {
      composer = el;
      composerText = text;
    }
  };
  /** The composer's text when the user typed there, else nothing to send. */
  const typedComposer = (): string => (composer && composer.isConnected && typedByUser.has(composer) ? composerText : '');
  /** A sent composer is the user's again only once they type in it again. */
  const sentFrom = (el: Element | null, text: string) => {
    if (el) typedByUser.delete(el);
    if (el === composer) composerText = '';
    deliver(text);
  };
  const onKey = (e: KeyboardEvent) => {
    if (!e.isTrusted || e.key !== 'Enter' || e.isComposing || !captureAllowed(settings, site)) return;
    const el = fieldOf(e);
    if (!el || !typedByUser.has(el)) return;
    const text = deps.readField(el);
    if (text === null) return;
    const isTextarea = el instanceof HTMLTextAreaElement || (el as HTMLElement).isContentEditable;
    // In multi-line composers Enter sends on chat sites, Shift+Enter is a new line; Ctrl/Cmd+Enter sends mail.
    if (isTextarea && e.shiftKey) return;
    sentFrom(el, text);
  };
  const onClick = (e: MouseEvent) => {
    if (!e.isTrusted) return;
    if (e.target instanceof Element && isSendControl(e.target, composer)) sentFrom(composer, typedComposer());
  };
  // form.requestSubmit() fires a trusted submit: it counts only while the user is acting (transient activation).
  const onSubmit = (e: Event) => {
    if (e.isTrusted && userSending()) sentFrom(composer, typedComposer());
  };

  doc.addEventListener('beforeinput', onBeforeInput, true);
  doc.addEventListener('input', track, true);
  doc.addEventListener('keydown', onKey, true);
  doc.addEventListener('click', onClick, true);
  doc.addEventListener('submit', onSubmit, true);
  return () => {
    unsubscribe();
    doc.removeEventListener('beforeinput', onBeforeInput, true);
    doc.removeEventListener('input', track, true);
    doc.removeEventListener('keydown', onKey, true);
    doc.removeEventListener('click', onClick, true);
    doc.removeEventListener('submit', onSubmit, true);
  };
}
