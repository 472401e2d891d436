import type { MemoryInput } from '../memory/types';
import { blobChunks, peek, throwIfAborted } from './byte-stream';
import { sniffFormat } from './detect';
import { EntryProblem, firstByte, within, type Context, type Entry, type Part } from './entry';
import { FORMAT_READERS, readConversations } from './format-readers';
import { IMPORT_LIMITS } from './limits';
import { MailThreads } from './mail-threads';
import { ZipReadError, unzipEntries } from './zip';
import { ImportFileError, type ImportBatch, type ImportFile, type ImportFormat, type ReadOptions } from './types';

export { sniffFormat } from './detect';

/** Items read per batch. */
export const BATCH_SIZE = 200;

const basename = (p: string) => p.slice(p.lastIndexOf('/') + 1);

/** Folders and files of a notes folder or export that are not the person's notes or messages. */
function passedOver(path: string): boolean {
  return path.split('/').some((seg) => (seg.startsWith('.') && seg.length > 1) || seg === '__MACOSX' || seg === 'node_modules');
}

/** The entries of a zip worth reading: chat exports, mail, notes, and zips inside zips (Notion's Part-1.zip). */
function wantedInZip(name: string): boolean {
  if (passedOver(name)) return false;
  const base = basename(name).toLowerCase();
  return /^conversations(-\d+)?\.json$/.test(base) || /\.(md|markdown|mbox|eml|zip)$/.test(base);
}

/** Extensions read when a file comes with a folder; the rest (images, PDFs, canvas files, settings) is left. */
function wantedInFolder(path: string): boolean {
  return !passedOver(path) && /\.(md|markdown|txt|text|eml|mbox|json|zip)$/i.test(path);
}

const isConversationsName = (name: string) => /^conversations(-\d+)?\.json$/i.test(name);
/** A page of Notion's HTML export: "Title <32 hex digits>.html". */
const isNotionHtml = (name: string) => /\s[0-9a-f]{32}\.html$/i.test(name);

const NOTION_HTML =
  'this is a Notion export in HTML, which Backstory does not read. In Notion, export again choosing "Markdown & CSV" and import that zip.';
const hasMemoryFormat = (head: Uint8Array) => /"format"\s*:\s*"backstory-memory"/.test(new TextDecoder('latin1').decode(head));

/**
 * Backstory's own format carries instructions, pins and scopes, so it is read only from a .json file the user picked
 * as such: never from inside a zip or a picked folder, never under another app's export name (`conversations.json`),
 * never from a Markdown or text file. Anything can claim the format in its first bytes.
 */
function pickedAsMemoryFile(entry: Entry, name: string, ctx: Context): boolean {
  return !entry.inside && !ctx.folderPick && /\.json$/i.test(name) && !isConversationsName(name);
}

function notPickedAsMemoryFile(entry: Entry): string {
  const what = entry.inside ? `${entry.inside} (inside the zip)` : entry.path.includes('/') ? `${entry.path} (in the folder)` : 'the file';
  return (
    `${what} says it is a Backstory memory file, but Backstory reads a memory file only when you pick the .json file ` +
    'itself (not inside a zip or a folder, and not named like another app\'s export), so nothing was imported. ' +
    'If you exported it from Backstory, import that .json file on its own.'
  );
}

async function* readEntry(entry: Entry, ctx: Context): AsyncGenerator<Part> {
  const { head, bytes } = await peek(entry.bytes, 64 * 1024);
  const name = basename(entry.path);
  const kind = sniffFormat(head, name);
  if (kind === 'zip') {
    // Notion's export is a zip of zips; a zip deeper than that (one that holds itself never ends) is not opened.
    const zipDepth = ctx.zipDepth + 1;
    if (zipDepth > IMPORT_LIMITS.zipDepth) {
      throw new EntryProblem(`${entry.inside} is a zip inside a zip inside a zip; Backstory opens zips only ${IMPORT_LIMITS.zipDepth} deep`);
    }
    let read = 0;
    let items = 0;
    const want = (n: string) => {
      if (!passedOver(n) && isNotionHtml(basename(n))) ctx.pages.notion++;
      return wantedInZip(n);
    };
    try {
      for await (const z of unzipEntries(bytes, want)) {
        throwIfAborted(ctx.signal);
        read++;
        for await (const part of readEntry(
          { inside: entry.inside ? `${entry.inside}/${z.name}` : z.name, path: z.name, bytes: z.bytes, size: z.size },
          { ...ctx, inFolder: true, zipDepth },
        )) {
          items += part.items.length;
          yield part;
        }
      }
    } catch (e) {
      if (e instanceof ZipReadError) {
        throw new EntryProblem(entry.inside ? `${entry.inside}: ${e.message}` : e.message);
      }
      throw e;
    }
    if (entry.inside || items) return;
    if (ctx.pages.notion) throw new EntryProblem(NOTION_HTML);
    if (!read) throw new EntryProblem('the zip holds nothing Backstory reads: no conversations.json (ChatGPT, Claude), no .mbox or .eml mail, no Markdown notes');
    return;
  }
  if (kind === 'not-json') {
    if (ctx.inFolder && !isConversationsName(name)) return;
    const empty = firstByte(head) === undefined;
    throw new EntryProblem(
      empty
        ? within(entry.inside, 'is empty')
        : `${within(entry.inside, 'is not valid JSON')}, so it is neither a Backstory memory file nor a ChatGPT or Claude export.`,
    );
  }
  if (kind === 'html') {
    if (ctx.inFolder) return;
    const notion = isNotionHtml(name);
    throw new EntryProblem(
      `this is a web page (HTML), which Backstory does not read.${notion ? ' From Notion, export again choosing "Markdown & CSV" and import that zip.' : ' Import the Markdown, text or JSON files of the export instead.'}`,
    );
  }
  if (kind === 'unknown') {
    if (ctx.inFolder) return;
    throw new EntryProblem('not a file Backstory can read (it looks like binary data, not an export, mail or notes)');
  }
  // In a folder or zip, JSON is read only when it is a chat export or a memory file (not settings, not data).
  if (ctx.inFolder && (kind === 'memory-file' || kind === 'conversations') && !isConversationsName(name) && !hasMemoryFormat(head)) return;
  if (kind === 'memory-file' && !pickedAsMemoryFile(entry, name, ctx)) throw new EntryProblem(notPickedAsMemoryFile(entry));
  if (kind === 'conversations') yield* readConversations(entry, bytes, head, ctx);
  else yield* FORMAT_READERS[kind](entry, bytes, head, ctx);
}

/**
 * Reads the files of an import into batches of memory items (about BATCH_SIZE each, in file order; mail comes last,
 * once every file is read, because a reply may come before what it answers and its thread is known only then). Each file is
 * read as a stream, its format recognised from its content: a Backstory memory file, a ChatGPT or Claude data
 * export (the zip or its conversations.json), an mbox or .eml mail, Markdown notes (a folder or Obsidian vault,
 * a Notion export zip) or plain text. Progress is reported by bytes; `signal` stops the reading. A file that cannot
 * be read throws ImportFileError naming the file and the problem; the caller keeps nothing of a failed import.
 */
export async function* readImport(files: ImportFile[], opts: ReadOptions = {}): AsyncGenerator<ImportBatch> {
  const bytesTotal = files.reduce((n, f) => n + f.blob.size, 0);
  let bytesRead = 0;
  let itemCount = 0;
  const report = () => opts.onProgress?.({ bytesRead, bytesTotal, items: itemCount });
  const offered = new Set<string>();
  const ctx: Context = {
    signal: opts.signal,
    feedback: opts.onFeedback,
    threads: new MailThreads(),
    inFolder: files.length > 1 || files.some((f) => f.path?.includes('/')),
    pages: { notion: 0 },
    folderPick: files.some((f) => f.path?.includes('/')),
    memoryFile: opts.onMemoryFile,
    signingKey: opts.signingKey,
    zipDepth: 0,
    offer: (o) => {
      const key = `${o.title}\n${o.text}`;
      if (offered.has(key)) return;
      offered.add(key);
      opts.onOffer?.(o);
    },
  };
  // Mail waits for the end: a reply can come before what it answers, in the same file or another.
  const held: ImportBatch[] = [];
  const hold = (file: string, format: ImportFormat, items: MemoryInput[]) => {
    const last = held[held.length - 1];
    if (last && last.file === file && last.format === format && last.items.length + items.length <= BATCH_SIZE) last.items.push(...items);
    else held.push({ file, format, items: [...items] });
  };
  for (const file of files) {
    throwIfAborted(opts.signal);
    const path = file.path ?? file.name;
    if (ctx.inFolder && !wantedInFolder(path)) {
      bytesRead += file.blob.size;
      report();
      continue;
    }
    const entry: Entry = {
      inside: '',
      path,
      bytes: blobChunks(file.blob, opts.signal, (n) => {
        bytesRead += n;
        report();
      }),
      lastModified: (file.blob as Partial<File>).lastModified,
      size: file.blob.size,
    };
    let batch: MemoryInput[] = [];
    let format: ImportFormat | undefined;
    try {
      for await (const part of readEntry(entry, ctx)) {
        throwIfAborted(opts.signal);
        if (part.held) {
          hold(file.name, part.format, part.items);
          itemCount += part.items.length;
          continue;
        }
        if (format && part.format !== format && batch.length) {
          yield { items: batch, file: file.name, format };
          batch = [];
        }
        format = part.format;
        for (const item of part.items) {
          batch.push(item);
          itemCount++;
          if (batch.length >= BATCH_SIZE) {
            yield { items: batch, file: file.name, format };
            batch = [];
          }
        }
      }
    } catch (e) {
      if (e instanceof EntryProblem) throw new ImportFileError(file.name, e.message, e.itemIndex);
      if ((e as Error)?.name === 'AbortError' || opts.signal?.aborted) throw e;
      throw new ImportFileError(file.name, `could not be read (${(e as Error)?.message ?? String(e)})`);
    }
    if (batch.length && format) yield { items: batch, file: file.name, format };
    report();
  }
  ctx.threads.settle();
  for (const batch of held) {
    throwIfAborted(opts.signal);
    yield batch;
  }
}
