import type { TaskReading } from '../rank/types';
import { boundReading } from '../rank/reading-bounds';
import { INSERTED_ATTR, stripInsertedText } from '../insert/state';
import { adapterPatterns, type SiteAdapter } from './adapter';
import { chatgptAdapter, claudeAdapter, copilotAdapter, deepseekAdapter, geminiAdapter, mistralAdapter, perplexityAdapter } from './chat';
import { deepActiveElement, editableKind, editableRoot, editableText, fieldLabel, isSecretField } from '../dom/editable';
import { genericAdapter } from './generic';
import { readingLandmarks } from './landmarks';
import { gdocsAdapter } from './gdocs';
import { gmailAdapter } from './gmail';
import { notionAdapter } from './notion';
import { outlookAdapter } from './outlook';
import { caretSection, sectionText } from './section';
import { DEBOUNCE_MS, watchSite, type TaskWatcher, type WatchedSite, type WatchOptions } from './watch-task';

export type { SiteAdapter } from './adapter';
export { DEBOUNCE_MS, type TaskWatcher, type WatchOptions } from './watch-task';
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
  // Which of the site's landmarks the page has: none found, and the panel says only the focused field is read.
  if (adapter !== genericAdapter) reading.landmarks = readingLandmarks(adapter, doc, root, site !== null);
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

/**
 * Watches the page for a changed task (lib/sites/watch-task.ts: when to read) and calls onTask with each new reading
 * of this page's site; the site's adapter names the container whose changes are a new task.
 */
export function watchTask(doc: Document, onTask: (t: TaskReading) => void, debounceOrOptions: number | WatchOptions = DEBOUNCE_MS): TaskWatcher {
  const opts = typeof debounceOrOptions === 'number' ? { debounceMs: debounceOrOptions } : debounceOrOptions;
  const site: WatchedSite = {
    read: (field) => readTask(doc, field),
    preload: () => preloadSite(doc),
    scope: (field) => {
      const adapter = pickAdapter(doc.location);
      const element = adapter.scope?.(doc, field) ?? null;
      return element ? { element, observe: adapter.observe ?? { childList: true, subtree: true } } : null;
    },
  };
  return watchSite(doc, site, onTask, opts);
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
