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
