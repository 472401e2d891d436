import { Unzip, UnzipInflate, type UnzipFile } from 'fflate';
import type { Bytes } from './byte-stream';

/** One file inside a zip, its bytes read as the zip is read. */
export interface ZipEntry {
  /** Path inside the zip ("Export-1a2b/Notes/Plan 0123….md"). */
  name: string;
  bytes: Bytes;
}

/** The zip stream ended or broke; `entry` is the file it was in the middle of, if any. */
export class ZipReadError extends Error {
  constructor(
    message: string,
    readonly entry?: string,
  ) {
    super(message);
  }
}

const cutOff = (name: string) => new ZipReadError(`the zip ends in the middle of ${name} (it was cut off: download it again)`, name);

class PendingEntry {
  chunks: Uint8Array[] = [];
  ended = false;
  error?: Error;
  constructor(readonly name: string) {}
}

/**
 * The files of a zip, in the order they are stored, read from a stream with fflate's streaming `Unzip` (never the
 * whole archive in memory). Entries are read one after another: an entry's bytes must be consumed (or left) before
 * the next one is taken. Entries `want` rejects are skipped without being kept.
 */
export async function* unzipEntries(source: Bytes, want: (name: string) => boolean = () => true): AsyncGenerator<ZipEntry> {
  const input = source[Symbol.asyncIterator]();
  const found: PendingEntry[] = [];
  let inputEnded = false;
  let entriesSeen = 0;
  let current: PendingEntry | undefined;

  const unzip = new Unzip((file: UnzipFile) => {
    entriesSeen++;
    if (file.name.endsWith('/')) return;
    const wanted = want(file.name);
    const entry = new PendingEntry(file.name);
    // Every entry is started: fflate keeps the compressed bytes of an entry that is not started until the end.
    file.ondata = (err, data, final) => {
      if (!wanted) return;
      if (err) entry.error = err;
      else if (data.length) entry.chunks.push(data);
      if (final || err) entry.ended = true;
    };
    if (wanted) found.push(entry);
    file.start();
  });
  unzip.register(UnzipInflate);

  /** Pushes the next input chunk through the unzip; false once the input is over. */
  async function pump(): Promise<boolean> {
    if (inputEnded) return false;
    const r = await input.next();
    try {
      if (r.done) {
        inputEnded = true;
        unzip.push(new Uint8Array(0), true);
        return false;
      }
      unzip.push(r.value);
      return true;
    } catch (e) {
      const where = current && !current.ended ? current.name : found.find((f) => !f.ended)?.name;
      if (r.done) throw new ZipReadError(`the zip ends in the middle of ${where ?? 'a file'} (it was cut off: download it again)`, where);
      throw new ZipReadError(`the zip is damaged (${(e as Error).message})`, where);
    }
  }

  async function* entryBytes(entry: PendingEntry): Bytes {
    for (;;) {
      if (entry.chunks.length) {
        yield entry.chunks.shift()!;
        continue;
      }
      if (entry.error) throw new ZipReadError(`${entry.name} is damaged (${entry.error.message})`, entry.name);
      if (entry.ended) return;
      if (!(await pump()) && !entry.ended) throw cutOff(entry.name);
    }
  }

  for (;;) {
    const next = found.shift();
    if (next) {
      current = next;
      yield { name: next.name, bytes: entryBytes(next) };
      // Whatever the reader left of this entry is read through (and dropped) before the next one.
      while (!next.ended) {
        next.chunks.length = 0;
        if (!(await pump()) && !next.ended) throw cutOff(next.name);
      }
      next.chunks.length = 0;
      continue;
    }
    if (!(await pump())) break;
  }
  if (!entriesSeen) throw new ZipReadError('not a zip: no files found in it');
}
