import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { browser } from 'wxt/browser';
import { PANEL_PORT, type PanelPush, type PanelState, type PanelWatch } from '../messaging/protocol';

/** The tab this panel shows: `?tab=<id>` pins it; otherwise it follows the active tab of the focused window. */
export function useWatchedTab(): number | undefined {
  const pinned = Number(new URLSearchParams(location.search).get('tab'));
  const [tabId, setTabId] = useState<number | undefined>(Number.isInteger(pinned) && pinned > 0 ? pinned : undefined);
  // Asked as the panel first renders (see usePanelState).
  useLayoutEffect(() => {
    if (pinned > 0) return;
    const update = async () => {
      const [tab] = await browser.tabs.query({ active: true, lastFocusedWindow: true, windowType: 'normal' });
      if (tab?.id !== undefined) setTabId(tab.id);
    };
    void update();
    const onActivated = () => void update();
    browser.tabs.onActivated.addListener(onActivated);
    browser.windows.onFocusChanged.addListener(onActivated);
    return () => {
      browser.tabs.onActivated.removeListener(onActivated);
      browser.windows.onFocusChanged.removeListener(onActivated);
    };
  }, []);
  return tabId;
}

/**
 * A live ranked state for the tab, pushed by the service worker over a port. The port is reopened when MV3 stops
 * the worker, so the panel keeps working across restarts.
 */
export function usePanelState(tabId: number | undefined, search: string, onPush?: (push: PanelPush) => void): PanelState | undefined {
  const [state, setState] = useState<PanelState>();
  const onPushRef = useRef(onPush);
  onPushRef.current = onPush;
  const portRef = useRef<ReturnType<typeof browser.runtime.connect> | undefined>(undefined);
  const watchRef = useRef<PanelWatch | undefined>(undefined);

  // Layout effects: the port opens and the watch is posted as the panel first renders, not after the first paint
  // (a frame later), and before the other startup requests, since the ranking is what the user waits for.
  useLayoutEffect(() => {
    let closed = false;
    const connect = () => {
      if (closed) return;
      const port = browser.runtime.connect({ name: PANEL_PORT });
      portRef.current = port;
      port.onMessage.addListener((msg: unknown) => {
        const push = msg as PanelPush;
        if (push.type === 'state') {
          if (push.state.tabId === watchRef.current?.tabId) setState((prev) => shown(prev, push.state));
        } else onPushRef.current?.(push);
      });
      port.onDisconnect.addListener(() => {
        portRef.current = undefined;
        setTimeout(connect, 100);
      });
      if (watchRef.current) port.postMessage(watchRef.current);
    };
    connect();
    return () => {
      closed = true;
      portRef.current?.disconnect();
    };
  }, []);

  useLayoutEffect(() => {
    if (tabId === undefined) return;
    const watch: PanelWatch = { tabId, ...(search.trim() ? { search: search.trim() } : {}) };
    watchRef.current = watch;
    if (!search) return void portRef.current?.postMessage(watch);
    if (search.trim()) setState((s) => (s ? { ...s, status: 'searching' } : s));
    // Typing in the search box: one ranking when the typing pauses.
    const t = setTimeout(() => portRef.current?.postMessage(watch), 150);
    return () => clearTimeout(t);
  }, [tabId, search]);

  return state;
}

/**
 * "Searching" (the page was read again, a new ranking is on its way) keeps the cards on screen until it arrives:
 * cards and offers vanishing at every re-read would flicker, and move buttons away from under the pointer.
 */
function shown(prev: PanelState | undefined, next: PanelState): PanelState {
  if (next.status !== 'searching' || !prev || prev.tabId !== next.tabId || (prev.search ?? '') !== (next.search ?? '')) return next;
  return { ...prev, status: 'searching', model: next.model, memorySize: next.memorySize };
}

/** Pushes that are not about a tab (capture, indexing progress), for pages that show no ranking (options). */
export function useServicePush(onPush: (push: PanelPush) => void): void {
  const ref = useRef(onPush);
  ref.current = onPush;
  useEffect(() => {
    let closed = false;
    let port: ReturnType<typeof browser.runtime.connect> | undefined;
    const connect = () => {
      if (closed) return;
      port = browser.runtime.connect({ name: PANEL_PORT });
      port.onMessage.addListener((msg: unknown) => {
        const push = msg as PanelPush;
        if (push.type !== 'state') ref.current(push);
      });
      port.onDisconnect.addListener(() => setTimeout(connect, 200));
    };
    connect();
    return () => {
      closed = true;
      port?.disconnect();
    };
  }, []);
}
