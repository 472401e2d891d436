/** Reading visible text cheaply and without layout, with block boundaries as line breaks. */

const BLOCK = new Set([
  'ADDRESS', 'ARTICLE', 'ASIDE', 'BLOCKQUOTE', 'DD', 'DIV', 'DL', 'DT', 'FIELDSET', 'FIGCAPTION', 'FIGURE', 'FOOTER',
  'FORM', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'HEADER', 'HR', 'LI', 'MAIN', 'NAV', 'OL', 'P', 'PRE', 'SECTION', 'TABLE',
  'TR', 'UL',
]);
const SKIP = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'SVG', 'BUTTON', 'SELECT', 'INPUT', 'TEXTAREA', 'IMG']);

export interface TextOptions {
  /** Subtrees to leave out (quoted history, toolbars...). */
  exclude?: string;
  maxChars?: number;
}

export function blockText(root: Element, opts: TextOptions = {}): string {
  const max = opts.maxChars ?? 4000;
  let out = '';
  const walk = (node: Node): boolean => {
    if (out.length >= max) return false;
    if (node.nodeType === Node.TEXT_NODE) {
      out += (node.nodeValue ?? '').replace(/\s+/g, ' ');
      return true;
    }
    if (node.nodeType !== Node.ELEMENT_NODE) return true;
    const el = node as Element;
    if (SKIP.has(el.tagName.toUpperCase()) || el.hasAttribute('hidden') || el.getAttribute('aria-hidden') === 'true') return true;
    if (opts.exclude && el !== root && el.matches(opts.exclude)) return true;
    if (el.tagName === 'BR') {
      out += '\n';
      return true;
    }
    const block = BLOCK.has(el.tagName);
    if (block) out += '\n';
    for (let c = el.firstChild; c; c = c.nextSibling) if (!walk(c)) return false;
    if (block) out += '\n';
    return true;
  };
  walk(root);
  return tidy(out).slice(0, max);
}

export function tidy(s: string): string {
  return s
    .split('\n')
    .map((l) => l.replace(/[ \t\u00a0]+/g, ' ').trim())
    .filter(Boolean)
    .join('\n');
}

export function clip(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max - 1).trimEnd()}…`;
}

/** Keeps only the outermost of nested matches. */
export function outermost<T extends Element>(els: T[]): T[] {
  return els.filter((el) => !els.some((other) => other !== el && other.contains(el)));
}

export function uniq(list: string[]): string[] {
  const seen = new Set<string>();
  return list.filter((x) => {
    const k = x.trim().toLowerCase();
    if (!k || seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/*
 * Recipients, addresses and titles are text a page writes. The helpers below read them in one pass: patterns such as
 * /^"?([^"<]*?)"?\s*<([^>]+)>$/ or /[\w.+-]+@…/ are retried at every position and cost the square of a long field.
 */

const SPACE = /\s/;

/**
 * '"Ana Lima" <ana@x.com>' → { name: 'Ana Lima', address: 'ana@x.com' } (`bracketed`: what stood between the brackets,
 * untrimmed); null when the part is not written so.
 */
export function nameAndAddress(part: string): { name: string; address: string; bracketed: string } | null {
  const t = part.trim();
  if (!t.endsWith('>')) return null;
  const lt = t.indexOf('<');
  const address = t.slice(lt + 1, -1);
  if (lt < 0 || !address || address.includes('>')) return null;
  // Before "<": an optional opening quote, the name, an optional closing quote, then white space.
  let name = t.slice(t[0] === '"' ? 1 : 0, lt);
  let end = name.length;
  while (end > 0 && SPACE.test(name[end - 1])) end--;
  if (end > 0 && name[end - 1] === '"') end--;
  name = name.slice(0, end);
  return name.includes('"') ? null : { name: name.trim(), address: address.trim(), bracketed: address };
}

const LOCAL = /[\w.+-]/;
const LABEL = /[\w-]/;

/** The first address in `s` written as local@domain.tld (what /[\w.+-]+@[\w-]+(\.[\w-]+)+/ finds), or undefined. */
export function firstEmail(s: string): string | undefined {
  for (let at = s.indexOf('@'); at >= 0; at = s.indexOf('@', at + 1)) {
    let start = at;
    while (start > 0 && LOCAL.test(s[start - 1])) start--;
    if (start === at) continue;
    let end = at + 1;
    while (end < s.length && LABEL.test(s[end])) end++;
    if (end === at + 1) continue;
    let labels = 0;
    for (;;) {
      let next = end + 1;
      if (s[end] !== '.') break;
      while (next < s.length && LABEL.test(s[next])) next++;
      if (next === end + 1) break;
      end = next;
      labels++;
    }
    if (labels) return s.slice(start, end);
  }
  return undefined;
}

/**
 * A page title without its site's suffix ("Plan - Google Docs" → "Plan"): `suffix` is a pattern for what follows
 * the separator, matched at the end only.
 */
export function withoutTitleSuffix(title: string, separators: string, suffix: RegExp): string {
  const m = suffix.exec(title);
  if (!m) return title;
  let at = m.index;
  while (at > 0 && SPACE.test(title[at - 1])) at--;
  if (at === 0 || !separators.includes(title[at - 1])) return title;
  at--;
  while (at > 0 && SPACE.test(title[at - 1])) at--;
  return title.slice(0, at);
}
