import type { ImportFormat } from './types';

/** What the first bytes of a file say it is: one of the formats, a zip (whose entries say more), or nothing readable. */
export type Sniffed = ImportFormat | 'zip' | 'conversations' | 'html' | 'not-json' | 'unknown';

const latin1 = new TextDecoder('latin1');

/**
 * An mbox separator line: "From <sender> <asctime date>" ("From 1790…@xxx Mon Mar 03 10:00:00 +0000 2026"). A line
 * that merely starts with "From " (prose, or an unescaped body line in mboxo files) has no time of day in it.
 */
export const MBOX_SEPARATOR = /^From \S+ .*\d\d:\d\d/;

/** The first bytes as text for pattern tests (a BOM dropped; bytes above 0x7f stand for themselves). */
function headText(head: Uint8Array): string {
  let start = 0;
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) start = 3;
  return latin1.decode(head.subarray(start));
}

/** Share of control bytes other than tab, CR, LF, FF and ESC: binary files have many. */
function looksBinary(head: Uint8Array): boolean {
  if (!head.length) return false;
  if (head[0] === 0xff && head[1] === 0xfe) return false; // UTF-16 text
  if (head[0] === 0xfe && head[1] === 0xff) return false;
  let odd = 0;
  for (const b of head) if (b === 0 || (b < 0x20 && b !== 9 && b !== 10 && b !== 13 && b !== 12 && b !== 27)) odd++;
  return odd > head.length * 0.02;
}

// RFC 5322 header lines at the very top (after an optional mbox "From " line).
const HEADER_LINE = /^[!-9;-~]+:[^\n]*\n/;
const MAIL_HEADERS = /^(from|to|cc|subject|date|message-id|received|return-path|mime-version|delivered-to|x-[a-z-]+|content-type|reply-to|in-reply-to|references):/im;

function looksLikeMailHeaders(text: string): boolean {
  const lines = text.replace(/\r\n/g, '\n');
  let rest = lines;
  let count = 0;
  let known = 0;
  while (count < 40) {
    const m = HEADER_LINE.exec(rest);
    if (!m) break;
    count++;
    if (MAIL_HEADERS.test(m[0])) known++;
    rest = rest.slice(m[0].length);
    while (/^[ \t][^\n]*\n/.test(rest)) rest = rest.slice(rest.indexOf('\n') + 1); // folded continuation lines
  }
  return count >= 2 && known >= 2;
}

/**
 * The format of a file from its first bytes (4 KB is plenty), the name only breaking ties: a zip by its magic
 * number; JSON by its shape (a memory file names its format; an array is a chat export, its conversations telling
 * ChatGPT from Claude); a .json that is not JSON is 'not-json'; a web page is 'html'; mbox by its leading "From "
 * line; a single mail by RFC 822 headers; otherwise Markdown or text by name and content. Binary junk is 'unknown'.
 */
export function sniffFormat(head: Uint8Array, name = ''): Sniffed {
  if (head[0] === 0x50 && head[1] === 0x4b && (head[2] === 3 || head[2] === 5) && (head[3] === 4 || head[3] === 6)) return 'zip';
  if (looksBinary(head)) return 'unknown';
  const text = headText(head);
  const lead = text.trimStart();
  if (lead.startsWith('{')) {
    if (/"format"\s*:\s*"backstory-memory"/.test(text)) return 'memory-file';
    if (/"mapping"\s*:|"current_node"\s*:/.test(text)) return 'chatgpt';
    if (/"chat_messages"\s*:/.test(text)) return 'claude';
    return /\.json$/i.test(name) ? 'memory-file' : 'text';
  }
  if (lead.startsWith('[')) {
    if (/"mapping"\s*:|"current_node"\s*:/.test(text)) return 'chatgpt';
    if (/"chat_messages"\s*:/.test(text)) return 'claude';
    return 'conversations';
  }
  // A .json that does not start as JSON does is a damaged file, never a note.
  if (/\.json$/i.test(name)) return 'not-json';
  if (/^<(?:!doctype html|html|head|body)[\s>]/i.test(lead) || (/\.html?$/i.test(name) && /^</.test(lead))) return 'html';
  if (MBOX_SEPARATOR.test(text)) return 'mbox';
  if (looksLikeMailHeaders(text)) return 'eml';
  if (/\.(md|markdown|mdown|mkd)$/i.test(name)) return 'markdown';
  if (/\.eml$/i.test(name)) return 'eml';
  if (/\.mbox$/i.test(name)) return 'mbox';
  if (/\.txt$/i.test(name)) return 'text';
  if (/^---\r?\n[\s\S]*?\r?\n---\r?\n/.test(text) || /^#{1,6} \S/m.test(text)) return 'markdown';
  return 'text';
}
