import PostalMime, { decodeWords, type Address, type Email } from 'postal-mime';
import type { MemoryInput } from '../memory/types';
import { htmlToText } from './html-text';
import { mailDate } from './mail-date';
import { headersAsUtf8 } from './mail-headers';
import { replyText } from './mail-text';
import type { MailLinks } from './mail-threads';
import { messagePieces } from './note-text';

// Windows-1252's 0x80-0x9F (curly quotes, dashes, the euro sign). Mail labelled windows-1252 or ISO-8859-1 (which
// WHATWG decodes as windows-1252) comes out of some runtimes' TextDecoder as C1 control characters instead; those
// never stand for themselves in mail text, so they are read as what the sender typed.
const CP1252_HIGH = '€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008dŽ\u008f\u0090‘’“”•–—˜™š›œ\u009džŸ';
const fixC1 = (s: string) => s.replace(/[\u0080-\u009f]/g, (c) => CP1252_HIGH[c.charCodeAt(0) - 0x80]);

const bare = (id: string) => id.trim().replace(/^<|>$/g, '');

function messageIds(header: string | undefined): string[] {
  return header ? [...header.matchAll(/<([^<>\s]+)>/g)].map((m) => m[1]) : [];
}

function headerValue(email: Email, key: string): string | undefined {
  return email.headers.find((h) => h.key === key)?.value.trim() || undefined;
}

// Mailman's pipermail archives hide addresses as "andy at example.com (Andy Grunwald)".
const PIPERMAIL_SENDER = /^\s*([^\s@<>()",]+) at ([A-Za-z0-9.-]+\.[A-Za-z]{2,})\s*(?:\(([^()]*)\))?\s*$/;

/** "Name <email>" for each mailbox (group members included). */
function mailboxes(list: (Address | undefined)[]): string[] {
  const out: string[] = [];
  for (const a of list) {
    if (!a) continue;
    if (a.group) out.push(...mailboxes(a.group));
    else if (a.address) out.push(a.name ? `${fixC1(a.name)} <${a.address}>` : a.address);
    else if (a.name) out.push(fixC1(a.name));
  }
  return out;
}

/** The sender: a pipermail archive's "user at host (Name)" read as the mailbox it stands for. */
function sender(email: Email): (Address | undefined)[] {
  const m = PIPERMAIL_SENDER.exec(headerValue(email, 'from') ?? '');
  if (!m) return [email.from];
  const address = `${m[1]}@${m[2]}`;
  return [{ name: wordsIn(m[3]?.trim() ?? ''), address }];
}

/** RFC 2047 words decoded; words labelled UTF-8 that are not (Latin-1 bytes) read as windows-1252. */
function wordsIn(s: string): string {
  const decoded = decodeWords(s);
  return decoded.includes('\ufffd') ? decodeWords(s.replace(/=\?utf-8\?/gi, '=?windows-1252?')) : decoded;
}

// A whole HTML document inside what was sent as plain text (a second "text/plain" alternative that is really HTML).
const HTML_DOCUMENT = /^[ \t]*<(!doctype\s+html|html|head|body)\b/im;

// A line that opens with a tag: where a second alternative in HTML would begin.
const MARKUP_LINE = /^[ \t]*<[a-z][a-z0-9]*\b[^<>\n]*>/im;
const squash = (s: string) => s.replace(/\s+/g, ' ').trim();

/**
 * One body, as text. A plain body that holds an HTML document after its text (two "text/plain" alternatives, the
 * second really HTML) is cut before the document, or read as HTML when it is nothing else; one that goes on with the
 * same words as HTML is cut there. HTML that a plain mail is about (other words around it) is kept.
 */
function bodyText(email: Email): string {
  const text = email.text ?? '';
  if (!text.trim()) return email.html ? htmlToText(email.html) : '';
  const doc = HTML_DOCUMENT.exec(text);
  if (doc) {
    const before = text.slice(0, doc.index);
    return before.trim() ? before : htmlToText(text.slice(doc.index));
  }
  const tag = MARKUP_LINE.exec(text);
  if (tag && tag.index > 0) {
    const before = squash(text.slice(0, tag.index));
    if (before && squash(htmlToText(text.slice(tag.index))) === before) return text.slice(0, tag.index);
  }
  return text;
}

/** Gmail labels: comma-separated, a label holding a comma in quotes; read/unread state is not a topic. */
function labels(header: string | undefined): string[] {
  if (!header) return [];
  const out: string[] = [];
  for (const m of header.matchAll(/"((?:[^"\\]|\\.)*)"|([^,]+)/g)) {
    const label = (m[1] ?? m[2] ?? '').trim();
    if (label && label !== 'Opened' && label !== 'Unread') out.push(label);
  }
  return out;
}

/** FNV-1a over the text, as hex: an id for a message without a Message-ID that stays the same on re-import. */
function hash(s: string): string {
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995);
  }
  return (h1 >>> 0).toString(16).padStart(8, '0') + (h2 >>> 0).toString(16).padStart(8, '0');
}

/** Why a mail could not be read, in words (the parser's limits are against mail built to exhaust memory). */
export function mailProblem(e: unknown): string {
  const message = e instanceof Error ? e.message : String(e);
  const depth = /nesting depth of (\d+)/i.exec(message);
  if (depth) return `its parts are nested more than ${depth[1]} levels deep.`;
  const size = /header size of (\d+)/i.exec(message);
  if (size) return `its header is larger than ${Math.round(Number(size[1]) / 1048576)} MB, more than any real mail has.`;
  return 'its content is not in mail format.';
}

/** One mail read: its items, and what places it in a thread (MailThreads sets the items' thread once all are read). */
export interface MailRead {
  items: MemoryInput[];
  links: MailLinks;
}

/**
 * One mail message (raw RFC 822 bytes) as memory items (one, or parts of one very long mail): its own words (quoted
 * reply and signature left out; an HTML-only mail as text; attachments left out), the subject as title, From/To/Cc
 * as people, its date (see mail-date.ts; `undated` when it has none to trust), Gmail's labels as tags. No items when
 * there is no text at all, or the mail is in Gmail's Spam or Trash. `envelope` is the mbox "From " line.
 */
export async function mailItems(raw: Uint8Array, format: 'mbox' | 'eml', envelope?: string): Promise<MailRead> {
  const email = await PostalMime.parse(headersAsUtf8(raw), { attachmentEncoding: 'arraybuffer' });
  const tags = labels(headerValue(email, 'x-gmail-labels'));
  // Takeout's "All mail Including Spam and Trash": what the person threw away or never wanted is not background.
  const none = { items: [], links: { key: '', inReplyTo: [], references: [] } };
  if (tags.includes('Spam') || tags.includes('Trash')) return none;
  // The text part; an HTML-only mail (newsletters, many clients' replies) made text.
  const body = fixC1(bodyText(email)).replace(/\u00a0/g, ' ');
  const own = replyText(body);
  const text = own || body.trim();
  if (!text) return none;
  const subject = fixC1(email.subject ?? '').trim();
  const messageId = email.messageId ? bare(email.messageId) : undefined;
  const refs = messageIds(email.references);
  const inReplyTo = messageIds(email.inReplyTo);
  const gmThread = headerValue(email, 'x-gm-thrid');
  const date = mailDate({
    date: headerValue(email, 'date'),
    envelope,
    received: email.headers.filter((h) => h.key === 'received').map((h) => h.value),
  });
  const key = messageId ?? hash(`${email.headerLines.map((h) => h.line).join('\n')}\n\n${body}`);
  const id = `mail:${key}`;
  let url: string | undefined;
  if (gmThread && /^\d+$/.test(gmThread)) url = `https://mail.google.com/mail/u/0/#all/${BigInt(gmThread).toString(16)}`;
  const people = [...new Set(mailboxes([...sender(email), ...(email.to ?? []), ...(email.cc ?? [])]))];
  const items = messagePieces(text).map(
    (piece, k): MemoryInput => ({
      id: k ? `${id}#${k}` : id,
      text: piece,
      title: subject || '(no subject)',
      kind: 'evidence' as const,
      people: [...people],
      tags: [...tags],
      ...(date === undefined ? { undated: true } : { createdAt: date }),
      source: { format, ...(subject ? { title: subject } : {}), ...(url ? { url } : {}) },
    }),
  );
  return { items, links: { key, inReplyTo, references: refs, gmail: gmThread, date } };
}
