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
