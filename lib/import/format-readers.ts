import { ImportError } from '../memory/memory-file';
import { TooLargeError, type Bytes } from './byte-stream';
import { ConversationsError, conversationItems } from './conversations';
import { EntryProblem, firstByte, readWhole, within, type Context, type Entry, type Part } from './entry';
import { IMPORT_LIMITS, sizeInWords } from './limits';
import { mailItems, mailProblem } from './mail';
import { mboxMessages } from './mbox';
import { memoryFileItems } from './memory-file-stream';
import { noteFormat, noteItems } from './notes';
import { textItems } from './plain-text';
import type { ImportFormat } from './types';

/** Reads one entry of a recognised format: its bytes (from the start), and the first of them as sniffed. */
export type FormatReader = (entry: Entry, bytes: Bytes, head: Uint8Array, ctx: Context) => AsyncGenerator<Part>;

/**
 * A chat export's conversations, ChatGPT's or Claude's; `hint` when the first bytes already told which (a
 * conversations.json whose first conversation says nothing is told apart conversation by conversation).
 */
export async function* readConversations(entry: Entry, bytes: Bytes, head: Uint8Array, ctx: Context, hint?: 'chatgpt' | 'claude'): AsyncGenerator<Part> {
  try {
    yield* conversationItems(bytes, ctx.offer, firstByte(head) === 0x7b, hint);
  } catch (e) {
    if (e instanceof ConversationsError) throw new EntryProblem(`${entry.inside || 'the file'} ${e.message}`);
    throw e;
  }
}

async function* readMemoryFile(entry: Entry, bytes: Bytes, _head: Uint8Array, ctx: Context): AsyncGenerator<Part> {
  try {
    const key = await ctx.signingKey?.();
    const verdict = (v: { signed: boolean }) => ctx.memoryFile?.(v);
    for await (const items of memoryFileItems(bytes, ctx.feedback, { key, verdict })) yield { items, format: 'memory-file' };
  } catch (e) {
    if (e instanceof ImportError) throw new EntryProblem(entry.inside ? `${entry.inside}: ${e.message}` : e.message, e.itemIndex);
    throw e;
  }
}

/** An mbox, message by message; mail is held until every file is read, when its threads are known. */
async function* readMbox(entry: Entry, bytes: Bytes, _head: Uint8Array, ctx: Context): AsyncGenerator<Part> {
  let n = 0;
  try {
    for await (const { raw, envelope } of mboxMessages(bytes)) {
      n++;
      const mail = await mailItems(raw, 'mbox', envelope).catch((e: Error) => {
        throw new EntryProblem(`message ${n}${entry.inside ? ` of ${entry.inside}` : ''} could not be read: ${mailProblem(e)}`);
      });
      if (!mail.items.length) continue;
      ctx.threads.add(mail.links, mail.items);
      yield { items: mail.items, format: 'mbox', held: true };
    }
  } catch (e) {
    if (!(e instanceof TooLargeError)) throw e;
    const limit = sizeInWords(e.limit);
    throw new EntryProblem(`${within(entry.inside, `has a message larger than ${limit} (message ${n + 1})`)}; Backstory reads mail messages up to ${limit}`);
  }
}

async function* readEml(entry: Entry, bytes: Bytes, _head: Uint8Array, ctx: Context): AsyncGenerator<Part> {
  const raw = await readWhole(entry, bytes, IMPORT_LIMITS.mailBytes, 'mail messages');
  const mail = await mailItems(raw, 'eml').catch((e: Error) => {
    throw new EntryProblem(`${within(entry.inside, 'is not a mail message that can be read')}: ${mailProblem(e)}`);
  });
  if (!mail.items.length) return;
  ctx.threads.add(mail.links, mail.items);
  yield { items: mail.items, format: 'eml', held: true };
}

/** A Markdown note; a page of a Notion export is told by its name ("Title <32 hex digits>.md"). */
async function* readNote(entry: Entry, bytes: Bytes): AsyncGenerator<Part> {
  const raw = await readWhole(entry, bytes, IMPORT_LIMITS.noteBytes, 'notes');
  const format = noteFormat(entry.path);
  yield { items: noteItems(raw, entry.path, { format, lastModified: entry.lastModified }), format };
}

async function* readText(entry: Entry, bytes: Bytes): AsyncGenerator<Part> {
  const raw = await readWhole(entry, bytes, IMPORT_LIMITS.noteBytes, 'notes');
  yield { items: textItems(raw, entry.path, entry.lastModified), format: 'text' };
}

/** The reader of each format (lib/core/import-formats.ts): a format without one does not compile. */
export const FORMAT_READERS: Record<ImportFormat, FormatReader> = {
  'memory-file': readMemoryFile,
  chatgpt: (entry, bytes, head, ctx) => readConversations(entry, bytes, head, ctx, 'chatgpt'),
  claude: (entry, bytes, head, ctx) => readConversations(entry, bytes, head, ctx, 'claude'),
  mbox: readMbox,
  eml: readEml,
  markdown: readNote,
  notion: readNote,
  text: readText,
};
