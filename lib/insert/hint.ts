/** A small visible note next to the field ("press Ctrl+V"), drawn in a closed shadow root with text only. */

const HINT_HOST_ATTR = 'data-backstory-hint';

export function showHint(anchor: HTMLElement | null, message: string, ms = 6000): void {
  const doc = anchor?.ownerDocument ?? document;
  if (!doc.body) return;
  doc.querySelectorAll(`[${HINT_HOST_ATTR}]`).forEach((n) => n.remove());
  const host = doc.createElement('div');
  host.setAttribute(HINT_HOST_ATTR, '');
  const rect = anchor?.getBoundingClientRect();
  const top = rect ? Math.max(8, Math.min(rect.bottom + 6, (doc.defaultView?.innerHeight ?? 600) - 48)) : 16;
  const left = rect ? Math.max(8, rect.left) : 16;
  host.style.cssText = `position:fixed;z-index:2147483647;top:${top}px;left:${left}px;pointer-events:none;`;
  const shadow = host.attachShadow({ mode: 'closed' });
  const box = doc.createElement('div');
  box.setAttribute('role', 'status');
  box.textContent = message;
  box.style.cssText =
    'font:13px/1.4 system-ui,sans-serif;background:#1f2937;color:#fff;padding:6px 10px;border-radius:6px;box-shadow:0 2px 8px rgba(0,0,0,.3);max-width:360px;';
  shadow.append(box);
  doc.body.append(host);
  setTimeout(() => host.remove(), ms);
}
