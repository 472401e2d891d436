import PostalMime, { type Address, type Email } from 'postal-mime';
import type { MemoryInput } from '../memory/types';
import { htmlToText } from './html-text';
import { replyText } from './mail-text';
import { messagePieces } from './note-text';

// Windows-1252's 0x80-0x9F (curly quotes, dashes, the euro sign). Mail labelled windows-1252 or ISO-8859-1 (which
// WHATWG decodes as windows-1252) comes out of some runtimes' TextDecoder as C1 control characters instead; those
// never stand for themselves in mail text, so they are read as what the sender typed.
const CP1252_HIGH = '€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008dŽ\u008f\u0090‘’“”•–—˜™š›œ\u009džŸ';
const fixC1 = (s: string) => s.replace(/[\u0080-\u009f]/g, (c) => CP1252_HIGH[c.charCodeAt(0) - 0x80]);

/**
 * The threads of the mail read so far in one import, so each message gets a distinct, stable place (seq) in its
 * thread: its depth in the References chain, moved down to the next free place when two share it.
 */
export class MailThreads {
  private used = new Map<string, Set<number>>();
  place(thread: string, depth: number): number {
    let taken = this.used.get(thread);
    if (!taken) this.used.set(thread, (taken = new Set()));
    let seq = depth;
    while (taken.has(seq)) seq++;
    taken.add(seq);
    return seq;
  }
}

const bare = (id: string) => id.trim().replace(/^<|>$/g, '');

function messageIds(header: string | undefined): string[] {
  return header ? [...header.matchAll(/<([^<>\s]+)>/g)].map((m) => m[1]) : [];
}

function headerValue(email: Email, key: string): string | undefined {
  return email.headers.find((h) => h.key === key)?.value.trim() || undefined;
}

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

/**
 * One mail message (raw RFC 822 bytes) as memory items (one, or parts of one very long mail): its own words (quoted reply and signature left out; an
 * HTML-only mail as text; attachments left out), the subject as title, From/To/Cc as people, the Date, Gmail's
 * labels as tags, the thread from X-GM-THRID or else the root of References / In-Reply-To. None when there is no
 * text at all, or the mail is in Gmail's Spam or Trash.
 */
export async function mailItems(raw: Uint8Array, format: 'mbox' | 'eml', threads: MailThreads): Promise<MemoryInput[]> {
  const email = await PostalMime.parse(raw, { attachmentEncoding: 'arraybuffer' });
  const tags = labels(headerValue(email, 'x-gmail-labels'));
  // Takeout's "All mail Including Spam and Trash": what the person threw away or never wanted is not background.
  if (tags.includes('Spam') || tags.includes('Trash')) return [];
  // The text part; an HTML-only mail (newsletters, many clients' replies) made text.
  const body = fixC1(email.text?.trim() ? email.text : email.html ? htmlToText(email.html) : '').replace(/\u00a0/g, ' ');
  const own = replyText(body);
  const text = own || body.trim();
  if (!text) return [];
  const subject = fixC1(email.subject ?? '').trim();
  const messageId = email.messageId ? bare(email.messageId) : undefined;
  const refs = messageIds(email.references);
  const parent = messageIds(email.inReplyTo)[0];
  const gmThread = headerValue(email, 'x-gm-thrid');
  const root = refs[0] ?? parent ?? messageId;
  const threadId = gmThread ? `mail-thread:${gmThread}` : root ? `mail-thread:${root}` : undefined;
  const date = email.date ? Date.parse(email.date) : NaN;
  const id = messageId ? `mail:${messageId}` : `mail:${hash(`${email.headerLines.map((h) => h.line).join('\n')}\n\n${body}`)}`;
  let url: string | undefined;
  if (gmThread && /^\d+$/.test(gmThread)) url = `https://mail.google.com/mail/u/0/#all/${BigInt(gmThread).toString(16)}`;
  const people = [...new Set(mailboxes([email.from, ...(email.to ?? []), ...(email.cc ?? [])]))];
  const depth = refs.length || (parent ? 1 : 0);
  return messagePieces(text).map((piece, k) => ({
    id: k ? `${id}#${k}` : id,
    text: piece,
    title: subject || '(no subject)',
    kind: 'evidence' as const,
    people: [...people],
    tags: [...tags],
    createdAt: Number.isFinite(date) ? date : undefined,
    source: { format, ...(subject ? { title: subject } : {}), ...(url ? { url } : {}) },
    ...(threadId ? { thread: { id: threadId, seq: threads.place(threadId, depth + k) } } : {}),
  }));
}
