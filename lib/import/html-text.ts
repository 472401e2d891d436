import { decodeEntities } from './html-entities';

/**
 * HTML mail as plain text, without a DOM (the service worker has none): head, styles, scripts and comments dropped,
 * block ends as line breaks, links as "words (address)", entities decoded. Never HTML in memory.
 */
export function htmlToText(html: string): string {
  let s = html
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/<(head|style|script|title|template|svg)\b[\s\S]*?<\/\1\s*>/gi, '')
    .replace(/<a\b[^>]*?href\s*=\s*("([^"]*)"|'([^']*)')[^>]*>([\s\S]*?)<\/a\s*>/gi, (_m, _q, d: string, s1: string, inner: string) => {
      const href = decodeEntities(d ?? s1 ?? '').trim();
      const words = inner.replace(/<[^>]*>/g, '').trim();
      if (!/^https?:/i.test(href) || !words || decodeEntities(words) === href) return inner;
      return `${inner} (${href})`;
    })
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<li\b[^>]*>/gi, '\n- ')
    .replace(/<\/(p|div|h[1-6]|li|tr|table|blockquote|ul|ol|section|article|header|footer|pre)\s*>/gi, '\n\n')
    .replace(/<(p|div|h[1-6]|tr|table|blockquote|ul|ol|section|article|header|footer|pre)\b[^>]*>/gi, '\n')
    .replace(/<\/(td|th)\s*>/gi, '\t')
    .replace(/<[^>]*>/g, '');
  s = decodeEntities(s).replace(/\u00a0/g, ' ');
  return s
    .split('\n')
    .map((l) => l.replace(/[ \t]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** Element names whose start or end is a line break when HTML sits inside Markdown or plain text. */
const BLOCK_TAG = /<\/?(?:p|div|h[1-6]|li|tr|table|blockquote|ul|ol|section|article|header|footer|aside|details|summary|figure|figcaption|center|pre|hr|dl|dt|dd)\b[^<>]*>/gi;

/** Drops `<style>…</style>`-like elements with what they hold; linear (an unclosed one is left to the tag pass). */
function dropElements(s: string, names: string[]): string {
  const open = new RegExp(`<(${names.join('|')})\\b[^<>]*>`, 'gi');
  const lower = s.toLowerCase();
  let out = '';
  let at = 0;
  for (let m = open.exec(s); m; m = open.exec(s)) {
    const close = lower.indexOf(`</${m[1].toLowerCase()}`, open.lastIndex);
    if (close < 0) break;
    const end = s.indexOf('>', close);
    out += s.slice(at, m.index);
    at = end < 0 ? s.length : end + 1;
    open.lastIndex = at;
  }
  return out + s.slice(at);
}

/**
 * HTML written inside Markdown or plain text (<br>, <span …>, <div style…>, Notion's <aside>) as text: tags out,
 * their words kept, block elements and <br> as line breaks, character references decoded. Unlike htmlToText, the
 * rest of the text (Markdown line structure, indentation) is left as it is, and a "<" that opens no tag stays.
 */
export function markupToText(s: string): string {
  if (!/<[a-z/!]|&#?[a-z0-9]+;/i.test(s)) return s;
  return dropElements(s, ['style', 'script', 'template'])
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(BLOCK_TAG, '\n')
    .replace(/<\/?[a-z][a-z0-9-]*(?:\s[^<>]*)?\/?>/gi, '')
    .replace(/&(?:#x[0-9a-f]{1,6}|#\d{1,7}|[a-z][a-z0-9]{1,31});/gi, (m) => decodeEntities(m))
    .replace(/\u00a0/g, ' ');
}
