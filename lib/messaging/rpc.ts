import { serve, sendRuntime, sendTab, fromThisExtension, isExtensionPage, type Handlers, type Req, type Res } from '../channel/rpc';
import { CONTENT_SCRIPT_MESSAGES, type BackgroundProtocol, type ContentProtocol } from './protocol';

export { NoReceiverError, isExtensionPage, type Handlers } from '../channel/rpc';

export function callBackground<K extends keyof BackgroundProtocol>(
  type: K,
  payload: Req<BackgroundProtocol, K>,
): Promise<Res<BackgroundProtocol, K>> {
  return sendRuntime<BackgroundProtocol, K>(type, payload);
}

export function callTab<K extends keyof ContentProtocol>(
  tabId: number,
  type: K,
  payload: Req<ContentProtocol, K>,
  frameId = 0,
): Promise<Res<ContentProtocol, K>> {
  return sendTab<ContentProtocol, K>(tabId, type, payload, frameId);
}

/** Service worker side: content scripts may only send what CONTENT_SCRIPT_MESSAGES allows. */
export function serveBackground(handlers: Handlers<BackgroundProtocol>): void {
  void serve(handlers, (type, sender) => fromThisExtension(sender) && (isExtensionPage(sender) || CONTENT_SCRIPT_MESSAGES.has(type)));
}

/** Content script side: only the service worker (no tab, this extension) may ask a page to act. */
export function serveContent(handlers: Handlers<ContentProtocol>): () => void {
  return serve(handlers, (_type, sender) => fromThisExtension(sender) && !sender.tab);
}
