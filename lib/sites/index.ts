import type { TaskReading } from '../rank/types';
import { boundReading } from '../rank/reading-bounds';
import { INSERTED_ATTR, isInserting, noteUserInput, saveSelection, stripInsertedText } from '../insert/state';
import { adapterPatterns, type SiteAdapter } from './adapter';
import { chatgptAdapter, claudeAdapter, copilotAdapter, deepseekAdapter, geminiAdapter, mistralAdapter, perplexityAdapter } from './chat';
import { deepActiveElement, editableKind, editableRoot, editableText, eventOrigin, fieldLabel, isSecretField } from '../dom/editable';
import { genericAdapter } from './generic';
import { gdocsAdapter } from './gdocs';
import { gmailAdapter } from './gmail';
import { notionAdapter } from './notion';
import { outlookAdapter } from './outlook';
import { caretSection, sectionText } from './section';

export type { SiteAdapter } from './adapter';
export { INSERTED_ATTR };

/** Site adapters, most specific first; the generic adapter is the last and matches every page. */
export const ADAPTERS: SiteAdapter[] = [
  gmailAdapter,
  outlookAdapter,
  gdocsAdapter,
  notionAdapter,
  chatgptAdapter,
  claudeAdapter,
  geminiAdapter,
  copilotAdapter,
  perplexityAdapter,
  deepseekAdapter,
  mistralAdapter,
  genericAdapter,
];

/** Every host a site adapter reads. */
export const ADAPTER_HOSTS: string[] = [...new Set(ADAPTERS.flatMap((a) => a.hosts))];
/** Every page a site adapter reads, as match patterns (a host, narrowed to a path where the adapter says so): asked for at install (lib/sites/site-access.ts). */
export const ADAPTER_PATTERNS: string[] = [...new Set(ADAPTERS.flatMap(adapterPatterns))];

const MAX_FIELD_CHARS = 20_000;
const MAX_SELECTION_CHARS = 5_000;

export function pickAdapter(loc: Location): SiteAdapter {
  return ADAPTERS.find((a) => a.matches(loc)) ?? genericAdapter;
}

/** One reading of the task: the focused editable, selection, page, plus what the site adapter adds. */
export function readTask(doc: Document, focused: HTMLElement | null): TaskReading {
  const loc = doc.location;
  const adapter = pickAdapter(loc);
  const reading: TaskReading = {
    url: loc.href,
    title: doc.title,
    site: loc.hostname,
    adapter: adapter.name,
    destination: adapter.destination,
    at: Date.now(),
  };
  const root = focused && focused.isConnected ? editableRoot(focused) : null;
  const kind = root ? editableKind(root) : null;
  if (root && kind) {
    reading.field = {
      text: stripInsertedText(root, editableText(root)).slice(0, MAX_FIELD_CHARS),
      kind,
      label: fieldLabel(root),
    };
  }
  const sel = readSelection(doc);
  if (sel) reading.selection = sel.slice(0, MAX_SELECTION_CHARS);
  let site: Partial<TaskReading> | null = null;
  if (adapter !== genericAdapter) {
    try {
      site = adapter.read(doc, root);
    } catch {
      site = null;
    }
  }
  if (site) {
    Object.assign(reading, site);
    if (reading.field) reading.field.text = reading.field.text.slice(0, MAX_FIELD_CHARS);
  } else {
    // A site changed under us (or this is any other page): the generic reading still stands.
    reading.adapter = genericAdapter.name;
    Object.assign(reading, genericAdapter.read(doc, root));
  }
  if (root && reading.field && (!site || adapter.sections)) readSection(reading, root);
  return boundReading(reading);
}

/** In a long document the ask is the section around the caret, and its headings lead the page's. */
function readSection(reading: TaskReading, root: HTMLElement): void {
  const field = reading.field;
  if (!field) return;
  let section;
  try {
    section = caretSection(root, field.text);
  } catch {
    section = null;
  }
  if (!section) return;
  const text = stripInsertedText(root, sectionText(section));
  if (!text) return;
  field.text = text;
  reading.headings = Array.from(new Set([...section.trail, ...(reading.headings ?? [])])).slice(0, 5);
}

function readSelection(doc: Document): string {
  // A selection inside a password field never leaves the page.
  const active = deepActiveElement(doc);
  if (active && isSecretField(active)) return '';
  if (active instanceof HTMLTextAreaElement || (active instanceof HTMLInputElement && editableKind(active))) {
    const { selectionStart: a, selectionEnd: b } = active;
    if (a != null && b != null && b > a) return active.value.slice(a, b).trim();
  }
  return doc.getSelection()?.toString().trim() ?? '';
}

/** Fetches what the page's site adapter reads from the site's own server (SiteAdapter.preload); true when new. */
export function preloadSite(doc: Document): Promise<boolean> {
  try {
    return pickAdapter(doc.location).preload?.(doc).catch(() => false) ?? Promise.resolve(false);
  } catch {
    return Promise.resolve(false);
  }
}

/** A reading the user asked for (a shortcut, a menu): what the site's server adds is waited for first. */
export async function readTaskNow(doc: Document, focused: HTMLElement | null): Promise<TaskReading> {
  await preloadSite(doc);
  return readTask(doc, focused);
}

export interface TaskWatcher {
  /** The editable the user last focused on this page (kept when the side panel takes focus). */
  lastEditable(): HTMLElement | null;
  stop(): void;
}

export interface WatchOptions {
  /** Quiet time before a reading, ms. */
  debounceMs?: number;
  /** A reading is taken at least this often while changes keep coming (a streaming reply), ms. */
  maxWaitMs?: number;
}

/** Quiet time before the content script reports a changed task, ms (see watchTask). */
export const DEBOUNCE_MS = 50;

/**
 * Watches focus, typing, selection and the site's scoped container; calls onTask with a fresh reading, debounced.
 * The scoped observer is disconnected when the field goes away, when focus moves to another site scope, and on stop.
 */
export function watchTask(doc: Document, onTask: (t: TaskReading) => void, debounceOrOptions: number | WatchOptions = DEBOUNCE_MS): TaskWatcher {
  const opts = typeof debounceOrOptions === 'number' ? { debounceMs: debounceOrOptions } : debounceOrOptions;
  const debounceMs = opts.debounceMs ?? DEBOUNCE_MS;
  const maxWaitMs = opts.maxWaitMs ?? Math.max(2000, debounceMs * 4);
  let last: HTMLElement | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let firstPending = 0;
  let lastSent = '';
  let stopped = false;
  let observer: MutationObserver | null = null;
  let observed: Element | null = null;

  const current = () => (last && last.isConnected ? last : null);
  // An observer does not see its own target leave the page (a closed compose window is removed from above), so a
  // cheap check notices the field or its scope going away and reads again.
  const LIVENESS_MS = 1000;
  const liveness = setInterval(() => {
    if ((last && !last.isConnected) || (observed && !observed.isConnected)) schedule();
  }, LIVENESS_MS);

  const take = () => {
    timer = undefined;
    firstPending = 0;
    if (stopped) return;
    if (last && !last.isConnected) {
      last = null;
      rescope();
    } else if (observed && !observed.isConnected) rescope();
    let reading: TaskReading;
    try {
      reading = readTask(doc, current());
    } catch {
      return;
    }
    // What the site's server adds (Docs' text export) arrives later: read again when it does.
    void preloadSite(doc).then((fresh) => fresh && schedule());
    const key = JSON.stringify({ ...reading, at: 0 });
    if (key === lastSent) return;
    lastSent = key;
    onTask(reading);
  };
  const schedule = () => {
    if (stopped) return;
    const now = Date.now();
    if (!firstPending) firstPending = now;
    clearTimeout(timer);
    const wait = Math.max(0, Math.min(debounceMs, firstPending + maxWaitMs - now));
    timer = setTimeout(take, wait);
  };

  const disconnect = () => {
    observer?.disconnect();
    observer = null;
    observed = null;
  };
  const rescope = () => {
    const adapter = pickAdapter(doc.location);
    let scope: Element | null = null;
    try {
      scope = adapter.scope?.(doc, current()) ?? null;
    } catch {
      scope = null;
    }
    if (scope === observed) return;
    disconnect();
    if (!scope) return;
    observed = scope;
    observer = new MutationObserver(() => {
      if ((last && !last.isConnected) || (observed && !observed.isConnected)) {
        // The field or its scope went away (compose closed, conversation switched): stop watching it.
        if (last && !last.isConnected) last = null;
        disconnect();
        rescope();
      }
      schedule();
    });
    observer.observe(scope, adapter.observe ?? { childList: true, subtree: true });
  };

  const track = (root: HTMLElement) => {
    if (root !== last) {
      last = root;
      rescope();
    }
    saveSelection(root);
  };
  // Only the user's own gestures move the field Backstory reads and inserts into: a page can dispatch any event
  // (isTrusted false), and Backstory's own insertion dispatches some too (read again, but never a move).
  const onFocus = (e?: Event) => {
    if (e && !e.isTrusted) return;
    const root = editableRoot(deepActiveElement(doc));
    if (root) {
      track(root);
      schedule();
    }
  };
  const onInput = (e: Event) => {
    const root = editableRoot(eventOrigin(e));
    if (!root) return;
    if (!e.isTrusted) {
      if (isInserting()) schedule();
      return;
    }
    track(root);
    if (!isInserting()) noteUserInput(root);
    schedule();
  };
  const onSelection = (e: Event) => {
    if (!e.isTrusted) return;
    const l = current();
    const active = deepActiveElement(doc);
    const inField = !!l && !!active && (l === active || l.contains(active));
    if (l && inField) saveSelection(l);
    // A moved caret is a new task in a long document (another section); elsewhere the reading comes out the same
    // and is not sent again.
    if (inField || doc.getSelection()?.toString().trim()) schedule();
  };
  const onCaretMove = (e: Event) => {
    if (!e.isTrusted) return;
    const root = editableRoot(eventOrigin(e));
    if (root && root === current()) {
      saveSelection(root);
      schedule();
    }
  };
  doc.addEventListener('focusin', onFocus, true);
  doc.addEventListener('input', onInput, true);
  doc.addEventListener('selectionchange', onSelection);
  doc.addEventListener('keyup', onCaretMove, true);
  doc.addEventListener('mouseup', onCaretMove, true);
  doc.addEventListener('select', onCaretMove, true);
  onFocus();
  rescope();
  schedule();
  return {
    lastEditable: current,
    stop() {
      stopped = true;
      clearTimeout(timer);
      clearInterval(liveness);
      disconnect();
      doc.removeEventListener('focusin', onFocus, true);
      doc.removeEventListener('input', onInput, true);
      doc.removeEventListener('selectionchange', onSelection);
      doc.removeEventListener('keyup', onCaretMove, true);
      doc.removeEventListener('mouseup', onCaretMove, true);
      doc.removeEventListener('select', onCaretMove, true);
    },
  };
}

/** What "Remember this page" saves: title, URL and the focused field's text or the page's main text. */
export function readPageForCapture(doc: Document, focused: HTMLElement | null): { title: string; url: string; text: string; thread?: { id: string } } {
  const root = focused && focused.isConnected ? editableRoot(focused) : null;
  const fieldText = root ? editableText(root).trim() : '';
  const main = doc.querySelector('main, article, [role="main"]') as HTMLElement | null;
  let sitePage: string | null = null;
  try {
    sitePage = pickAdapter(doc.location).pageText?.(doc) ?? null;
  } catch {
    sitePage = null;
  }
  const text = fieldText || sitePage || withoutSecretEditables(doc, ((main ?? doc.body)?.innerText ?? '').trim());
  let thread: { id: string } | undefined;
  try {
    thread = readTask(doc, root).thread;
  } catch {
    thread = undefined;
  }
  return { title: doc.title, url: doc.location.href, text, ...(thread ? { thread } : {}) };
}

/** A page's text keeps what a password-like contenteditable shows (inputs' values are never in it): take that out. */
function withoutSecretEditables(doc: Document, text: string): string {
  let out = text;
  for (const el of Array.from(doc.querySelectorAll<HTMLElement>('[contenteditable]:not([contenteditable="false"])')).slice(0, 200)) {
    if (!el.isContentEditable || !isSecretField(el)) continue;
    const secret = (el.innerText ?? el.textContent ?? '').trim();
    if (secret) out = out.split(secret).join('');
  }
  return out.trim();
}
