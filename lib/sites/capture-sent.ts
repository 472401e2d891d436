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

const SEND_BUTTON = [
  'button[type="submit"]',
  '[data-testid="send-button"]',
  'button[aria-label^="Send" i]',
  '[role="button"][aria-label^="Send" i]',
  'button[data-testid*="send" i]',
].join(',');

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
    const btn = e.target instanceof Element ? e.target.closest(SEND_BUTTON) : null;
    if (btn) sentFrom(composer, typedComposer());
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
