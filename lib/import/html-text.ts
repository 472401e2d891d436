import { decodeEntities } from './html-entities';
import { NextOf, asciiLower } from './scan';

/** Elements whose content is not text: dropped with it. */
const DROPPED = new Set(['head', 'style', 'script', 'title', 'template', 'svg']);
/** Elements that end a block: a blank line after them; their start (li aside) is a line break. */
const BLOCKS = new Set(['p', 'div', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'tr', 'table', 'blockquote', 'ul', 'ol', 'section', 'article', 'header', 'footer', 'pre']);

const WORD = /[a-z0-9_]/;
const SPACE = /\s/;

/** The name after "<" or "</" at `at` (lower case; '' when none). */
function nameAt(lower: string, at: number): string {
  let end = at;
  while (end < lower.length && WORD.test(lower[end])) end++;
  return lower.slice(at, end);
}

/** Whether only white space lies between `from` and `to`. */
function onlySpace(s: string, from: number, to: number): boolean {
  for (let k = from; k < to; k++) if (!SPACE.test(s[k])) return false;
  return true;
}

/** Where "</name>" (white space allowed before ">") next closes, each answer kept while the scan is before it. */
class Closings {
  private readonly last = new Map<string, { from: number; at?: { start: number; end: number } }>();
  private readonly next: NextOf;
  constructor(private readonly lower: string) {
    this.next = new NextOf(lower);
  }

  find(name: string, from: number): { start: number; end: number } | undefined {
    const got = this.last.get(name);
    if (got && got.from <= from && (!got.at || got.at.start >= from)) return got.at;
    const open = `</${name}`;
    let at: { start: number; end: number } | undefined;
    for (let c = this.next.find(open, from); c >= 0; c = this.next.find(open, c + 1)) {
      const gt = this.next.find('>', c + open.length);
      if (gt < 0) break;
      if (onlySpace(this.lower, c + open.length, gt)) {
        at = { start: c, end: gt + 1 };
        break;
      }
    }
    this.last.set(name, { from, at });
    return at;
  }
}

/** `html` without its tags (a "<" with no ">" after it stays). */
function withoutTags(html: string): string {
  let out = '';
  let i = 0;
  for (let lt = html.indexOf('<'); lt >= 0; lt = html.indexOf('<', i)) {
    const gt = html.indexOf('>', lt);
    if (gt < 0) break;
    out += html.slice(i, lt);
    i = gt + 1;
  }
  return out + html.slice(i);
}

/** How far into an `<a>` start tag its href is looked for: real tags are short, and each "<a" looks once. */
const LINK_TAG_MAX = 2048;

/**
 * The link of an `<a>` start tag at `lt`: its href (the first href="…" or href='…' in the tag) and where the tag ends,
 * which may be past the first ">" when the address holds one.
 */
function linkTag(html: string, lower: string, lt: number, next: NextOf): { href: string; end: number } | undefined {
  const firstGt = next.find('>', lt);
  if (firstGt < 0) return undefined;
  const stop = Math.min(firstGt, lt + LINK_TAG_MAX);
  for (let h = lower.indexOf('href', lt + 2); h >= 0 && h < stop; h = lower.indexOf('href', h + 1)) {
    let p = h + 4;
    while (p < stop && SPACE.test(html[p])) p++;
    if (html[p] !== '=') continue;
    p++;
    while (p < stop && SPACE.test(html[p])) p++;
    const quote = html[p];
    if (quote !== '"' && quote !== "'") continue;
    const closeQuote = next.find(quote, p + 1);
    if (closeQuote < 0) continue;
    const end = next.find('>', closeQuote + 1);
    if (end < 0) continue;
    return { href: html.slice(p + 1, closeQuote), end: end + 1 };
  }
  return undefined;
}

/**
 * HTML mail as plain text, without a DOM (the service worker has none): head, styles, scripts and comments dropped,
 * block ends as line breaks, links as "words (address)", entities decoded. Never HTML in memory. One pass from left
 * to right: a sender's markup (100,000 "<", tags that never close) costs no more than its length.
 */
export function htmlToText(html: string): string {
  const lower = asciiLower(html);
  const next = new NextOf(html);
  const closings = new Closings(lower);
  let out = '';
  let i = 0;
  // An open link: where its "</a>" is and what follows its words there.
  let link: { start: number; end: number; suffix: string } | undefined;
  for (;;) {
    const lt = next.find('<', i);
    if (link && (lt < 0 || lt >= link.start)) {
      out += html.slice(i, link.start) + link.suffix;
      i = link.end;
      link = undefined;
      continue;
    }
    if (lt < 0) break;
    out += html.slice(i, lt);
    // Nothing inside a link may reach past its end.
    const limit = link ? link.start : Infinity;
    const gt = next.find('>', lt);
    if (html.startsWith('<!--', lt)) {
      const c = next.find('-->', lt + 4);
      if (c >= 0 && c + 3 <= limit) {
        i = c + 3;
        continue;
      }
    }
    const closing = html[lt + 1] === '/';
    const name = nameAt(lower, lt + (closing ? 2 : 1));
    if (!closing && DROPPED.has(name)) {
      const c = closings.find(name, lt + 1 + name.length);
      if (c && c.end <= limit) {
        i = c.end;
        continue;
      }
    }
    if (!closing && name === 'a' && !link) {
      const tag = linkTag(html, lower, lt, next);
      const c = tag && closings.find('a', tag.end);
      if (tag && c) {
        const href = decodeEntities(tag.href).trim();
        const words = withoutTags(html.slice(tag.end, c.start)).trim();
        const suffix = !/^https?:/i.test(href) || !words || decodeEntities(words) === href ? '' : ` (${href})`;
        link = { start: c.start, end: c.end, suffix };
        i = tag.end;
        continue;
      }
    }
    const nextLt = next.find('<', lt + 1);
    if (gt < 0 || gt >= limit || (nextLt >= 0 && nextLt < gt)) {
      // A "<" that opens no tag is text (of "<<br>", the tag is the last "<" before the ">").
      out += '<';
      i = lt + 1;
      continue;
    }
    const after = lt + (closing ? 2 : 1) + name.length;
    if (closing) {
      if (BLOCKS.has(name) || name === 'li') out += onlySpace(html, after, gt) ? '\n\n' : '';
      else if (name === 'td' || name === 'th') out += onlySpace(html, after, gt) ? '\t' : '';
    } else if (name === 'br') {
      const slash = html[gt - 1] === '/' ? gt - 1 : gt;
      if (onlySpace(html, after, slash)) out += '\n';
    } else if (name === 'li') out += '\n- ';
    else if (BLOCKS.has(name)) out += '\n';
    i = gt + 1;
  }
  out += html.slice(i);
  const s = decodeEntities(out).replace(/\u00a0/g, ' ');
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
