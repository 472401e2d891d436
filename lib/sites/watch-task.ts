import { deepActiveElement, editableRoot, eventOrigin } from '../dom/editable';
import { isInserting, noteUserInput, saveSelection } from '../insert/state';
import type { TaskReading } from '../rank/types';

/**
 * When the content script reads the task again: on the user's focus, typing, selection and caret moves, and on
 * changes in the site's container around the field, debounced. What a reading is, and which container a site
 * watches, the sites decide (lib/sites/index.ts).
 */

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

/** Quiet time before the content script reports a changed task, ms. */
export const DEBOUNCE_MS = 50;

/** What the watcher asks of the page's site. */
export interface WatchedSite {
  /** The task as it stands, the user working in `field`; it may throw on a page mid-change. */
  read(field: HTMLElement | null): TaskReading;
  /** Resolves true when the site's server added something to read (Docs' text export). */
  preload(): Promise<boolean>;
  /** The container around `field` whose changes are a new task, and how to observe it; it may throw. */
  scope(field: HTMLElement | null): { element: Element; observe: MutationObserverInit } | null;
}

// An observer does not see its own target leave the page (a closed compose window is removed from above), so a
// cheap check this often notices the field or its scope going away and reads again.
const LIVENESS_MS = 1000;

/**
 * Watches focus, typing, selection and the site's scoped container; calls onTask with a fresh reading, debounced.
 * The scoped observer is disconnected when the field goes away, when focus moves to another site scope, and on stop.
 */
export function watchSite(doc: Document, site: WatchedSite, onTask: (t: TaskReading) => void, opts: WatchOptions = {}): TaskWatcher {
  return new Watch(doc, site, onTask, opts);
}

/** Calls `take` once changes go quiet for `debounceMs`, and at least every `maxWaitMs` while they keep coming. */
class Debounced {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private firstPending = 0;

  constructor(
    private readonly take: () => void,
    private readonly debounceMs: number,
    private readonly maxWaitMs: number,
  ) {}

  schedule(): void {
    const now = Date.now();
    if (!this.firstPending) this.firstPending = now;
    clearTimeout(this.timer);
    const wait = Math.max(0, Math.min(this.debounceMs, this.firstPending + this.maxWaitMs - now));
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.firstPending = 0;
      this.take();
    }, wait);
  }

  cancel(): void {
    clearTimeout(this.timer);
  }
}

/** Observes the site's container around the field; `onMutation` hears of every change in it. */
class ScopeObserver {
  /** The container observed, if any. */
  observed: Element | null = null;
  private observer: MutationObserver | null = null;

  constructor(
    private readonly site: WatchedSite,
    private readonly onMutation: () => void,
  ) {}

  /** Observes the container around `field`, unless it is the one already observed. */
  rescope(field: HTMLElement | null): void {
    let scope: ReturnType<WatchedSite['scope']> = null;
    try {
      scope = this.site.scope(field);
    } catch {
      scope = null;
    }
    if ((scope?.element ?? null) === this.observed) return;
    this.disconnect();
    if (!scope) return;
    this.observed = scope.element;
    this.observer = new MutationObserver(this.onMutation);
    this.observer.observe(scope.element, scope.observe);
  }

  gone(): boolean {
    return !!this.observed && !this.observed.isConnected;
  }

  disconnect(): void {
    this.observer?.disconnect();
    this.observer = null;
    this.observed = null;
  }
}

/** The gestures that may mean a new task, and the handler of each (capturing where the page may stop them). */
const GESTURES = [
  ['focusin', 'onFocus', true],
  ['input', 'onInput', true],
  ['selectionchange', 'onSelection', false],
  ['keyup', 'onCaretMove', true],
  ['mouseup', 'onCaretMove', true],
  ['select', 'onCaretMove', true],
] as const;

class Watch implements TaskWatcher {
  /** The field the user last worked in. */
  private field: HTMLElement | null = null;
  private lastSent = '';
  private stopped = false;
  private readonly timing: Debounced;
  private readonly scope: ScopeObserver;
  private readonly liveness: ReturnType<typeof setInterval>;

  constructor(
    private readonly doc: Document,
    private readonly site: WatchedSite,
    private readonly onTask: (t: TaskReading) => void,
    opts: WatchOptions,
  ) {
    const debounceMs = opts.debounceMs ?? DEBOUNCE_MS;
    this.timing = new Debounced(() => this.take(), debounceMs, opts.maxWaitMs ?? Math.max(2000, debounceMs * 4));
    this.scope = new ScopeObserver(site, () => this.onMutation());
    this.liveness = setInterval(() => {
      if (this.fieldGone() || this.scope.gone()) this.schedule();
    }, LIVENESS_MS);
    for (const [type, handler, capture] of GESTURES) doc.addEventListener(type, this[handler], capture);
    this.onFocus();
    this.scope.rescope(this.current());
    this.schedule();
  }

  lastEditable = (): HTMLElement | null => this.current();

  stop(): void {
    this.stopped = true;
    this.timing.cancel();
    clearInterval(this.liveness);
    this.scope.disconnect();
    for (const [type, handler, capture] of GESTURES) this.doc.removeEventListener(type, this[handler], capture);
  }

  private current(): HTMLElement | null {
    return this.field && this.field.isConnected ? this.field : null;
  }

  private fieldGone(): boolean {
    return !!this.field && !this.field.isConnected;
  }

  private schedule(): void {
    if (!this.stopped) this.timing.schedule();
  }

  /** Reads the task and reports it when it differs from the last one reported. */
  private take(): void {
    if (this.stopped) return;
    if (this.fieldGone()) {
      this.field = null;
      this.scope.rescope(this.current());
    } else if (this.scope.gone()) this.scope.rescope(this.current());
    let reading: TaskReading;
    try {
      reading = this.site.read(this.current());
    } catch {
      return;
    }
    // What the site's server adds (Docs' text export) arrives later: read again when it does.
    void this.site.preload().then((fresh) => fresh && this.schedule());
    const key = JSON.stringify({ ...reading, at: 0 });
    if (key === this.lastSent) return;
    this.lastSent = key;
    this.onTask(reading);
  }

  private onMutation(): void {
    if (this.fieldGone() || this.scope.gone()) {
      // The field or its scope went away (compose closed, conversation switched): stop watching it.
      if (this.fieldGone()) this.field = null;
      this.scope.disconnect();
      this.scope.rescope(this.current());
    }
    this.schedule();
  }

  private track(root: HTMLElement): void {
    if (root !== this.field) {
      this.field = root;
      this.scope.rescope(this.current());
    }
    saveSelection(root);
  }

  // Only the user's own gestures move the field Backstory reads and inserts into: a page can dispatch any event
  // (isTrusted false), and Backstory's own insertion dispatches some too (read again, but never a move).
  private readonly onFocus = (e?: Event): void => {
    if (e && !e.isTrusted) return;
    const root = editableRoot(deepActiveElement(this.doc));
    if (root) {
      this.track(root);
      this.schedule();
    }
  };

  private readonly onInput = (e: Event): void => {
    const root = editableRoot(eventOrigin(e));
    if (!root) return;
    if (!e.isTrusted) {
      if (isInserting()) this.schedule();
      return;
    }
    this.track(root);
    if (!isInserting()) noteUserInput(root);
    this.schedule();
  };

  private readonly onSelection = (e: Event): void => {
    if (!e.isTrusted) return;
    const field = this.current();
    const active = deepActiveElement(this.doc);
    const inField = !!field && !!active && (field === active || field.contains(active));
    if (field && inField) saveSelection(field);
    // A moved caret is a new task in a long document (another section); elsewhere the reading comes out the same
    // and is not sent again.
    if (inField || this.doc.getSelection()?.toString().trim()) this.schedule();
  };

  private readonly onCaretMove = (e: Event): void => {
    if (!e.isTrusted) return;
    const root = editableRoot(eventOrigin(e));
    if (root && root === this.current()) {
      saveSelection(root);
      this.schedule();
    }
  };
}
