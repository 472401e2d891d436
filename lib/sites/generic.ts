import type { SiteAdapter } from './adapter';

const HEADINGS = 'h1, h2, h3, h4, [role="heading"]';
const MAX_SCAN = 300;

/** Headings nearest the field (the closest ones before it, then the page's h1), or the page's first headings. */
export function nearbyHeadings(doc: Document, focused: HTMLElement | null, max = 5): string[] {
  const all = Array.from(doc.querySelectorAll<HTMLElement>(HEADINGS)).slice(0, MAX_SCAN);
  const text = (h: Element) => (h.textContent ?? '').replace(/\s+/g, ' ').trim().slice(0, 200);
  let picked: Element[];
  if (focused) {
    const before = all.filter((h) => h.compareDocumentPosition(focused) & Node.DOCUMENT_POSITION_FOLLOWING);
    const closest = before.slice(-(max - 1)).reverse();
    const h1 = all.find((h) => h.tagName === 'H1');
    picked = h1 && !closest.includes(h1) ? [...closest, h1] : closest;
    if (!picked.length) picked = all.slice(0, max);
  } else picked = all.slice(0, max);
  return Array.from(new Set(picked.map(text).filter(Boolean))).slice(0, max);
}

/** Any page: the nearest headings give the field its topic. */
export const genericAdapter: SiteAdapter = {
  name: 'generic',
  matches: () => true,
  read(doc, focused) {
    const headings = nearbyHeadings(doc, focused);
    return headings.length ? { headings } : {};
  },
};
