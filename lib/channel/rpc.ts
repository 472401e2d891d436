import { browser, type Browser } from 'wxt/browser';

/**
 * Typed request/answer messages over the extension's runtime channel, for any protocol: a protocol is a map from
 * message type to `{ req; res }`. The extension's own protocols are in lib/messaging/protocol.ts (bound in
 * lib/messaging/rpc.ts) and lib/embed/offscreen-wire.ts.
 */
export type Req<P, K extends keyof P> = P[K] extends { req: infer R } ? R : never;
export type Res<P, K extends keyof P> = P[K] extends { res: infer R } ? R : never;

/** Errors cross the message boundary as data, then are thrown again on the caller's side. */
type Wire<T> = { ok: true; value: T } | { ok: false; error: string };

/**
 * Nobody answered: no listener in that tab, frame or document (never injected, navigated away, closed), or the
 * extension was reloaded under the caller. The one error callers branch on: inject and retry, or open the document
 * again. Any other error is the receiver's own and is passed on as it is.
 */
export class NoReceiverError extends Error {
  constructor(detail?: string) {
    super(`No answer from Backstory${detail ? ` (${detail})` : ' (the extension may have been reloaded)'}.`);
    this.name = 'NoReceiverError';
  }
}

/** The browsers' wordings for "no one is listening" and "the listener went away before answering". */
const NO_RECEIVER = /Receiving end does not exist|Could not establish connection|message (port|channel) closed|closed before a response/i;

async function unwrap<T>(p: Promise<unknown>): Promise<T> {
  let wire: Wire<T> | undefined;
  try {
    wire = (await p) as Wire<T> | undefined;
  } catch (e) {
    if (NO_RECEIVER.test(String(e))) throw new NoReceiverError(e instanceof Error ? e.message : String(e));
    throw e;
  }
  if (!wire) throw new NoReceiverError();
  if (!wire.ok) throw new Error(wire.error);
  return wire.value;
}

/** A message to the extension's runtime (the service worker, its pages, the offscreen document). */
export function sendRuntime<P, K extends keyof P>(type: K, payload: Req<P, K>): Promise<Res<P, K>> {
  return unwrap(browser.runtime.sendMessage({ type, payload }));
}

/** A message to one frame of a tab (its content script). */
export function sendTab<P, K extends keyof P>(tabId: number, type: K, payload: Req<P, K>, frameId = 0): Promise<Res<P, K>> {
  return unwrap(browser.tabs.sendMessage(tabId, { type, payload }, { frameId }));
}

export type Handlers<P> = { [K in keyof P]?: (payload: Req<P, K>, sender: Browser.runtime.MessageSender) => Promise<Res<P, K>> | Res<P, K> };

/** True when a message comes from this extension: one of its pages, or its content script in a tab. */
export function fromThisExtension(sender: Browser.runtime.MessageSender): boolean {
  return sender.id === browser.runtime.id;
}

/** An extension page (side panel, options), whether in the panel, a window or a tab; content scripts have the page's URL. */
export function isExtensionPage(sender: Browser.runtime.MessageSender): boolean {
  const origin = new URL(browser.runtime.getURL('/')).origin;
  return typeof sender.url === 'string' && new URL(sender.url).origin === origin;
}

/** Starts answering; the returned function stops (a content script that is told to stop must not answer twice). */
export function serve<P>(handlers: Handlers<P>, allowed: (type: keyof P, sender: Browser.runtime.MessageSender) => boolean): () => void {
  const listener = ((msg: unknown, sender: Browser.runtime.MessageSender, sendResponse: (r: unknown) => void) => {
    const m = msg as { type?: keyof P; payload?: unknown } | undefined;
    if (!m || typeof m.type !== 'string' || !(m.type in handlers)) return false;
    if (!allowed(m.type, sender)) {
      sendResponse({ ok: false, error: `Message "${String(m.type)}" refused from this sender.` } satisfies Wire<never>);
      return false;
    }
    const handler = handlers[m.type] as (p: unknown, s: Browser.runtime.MessageSender) => unknown;
    Promise.resolve()
      .then(() => handler(m.payload, sender))
      .then(
        (value) => sendResponse({ ok: true, value }),
        (e: unknown) => sendResponse({ ok: false, error: e instanceof Error ? e.message : String(e) }),
      );
    return true; // answer asynchronously
  }) as Parameters<typeof browser.runtime.onMessage.addListener>[0];
  browser.runtime.onMessage.addListener(listener);
  return () => browser.runtime.onMessage.removeListener(listener);
}

/** The extension's service worker: no tab, and the background script's URL (pages and content scripts have their own). */
export function isServiceWorker(sender: Browser.runtime.MessageSender): boolean {
  if (sender.tab || typeof sender.url !== 'string') return false;
  const url = new URL(sender.url);
  return url.origin === new URL(browser.runtime.getURL('/')).origin && url.pathname === '/background.js';
}
