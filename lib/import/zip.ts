import { Unzip, UnzipInflate, type UnzipFile } from 'fflate';
import { CHUNK, type Bytes } from './byte-stream';
import { IMPORT_LIMITS } from './limits';

/** One file inside a zip, its bytes read as the zip is read. */
export interface ZipEntry {
  /** Path inside the zip ("Export-1a2b/Notes/Plan 0123….md"). */
  name: string;
  bytes: Bytes;
  /** The unpacked size the zip gives for it, when it gives one (a zip written as a stream does not). */
  size?: number;
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
  constructor(
    readonly name: string,
    readonly size?: number,
  ) {}
}

/** Unpacked bytes against packed bytes read so far: a zip bomb is refused before it fills memory or takes minutes. */
function checkRatio(unpacked: number, packed: number): void {
  if (unpacked > IMPORT_LIMITS.zipRatioAfter && unpacked > IMPORT_LIMITS.zipRatio * packed) {
    throw new ZipReadError(
      `the zip unpacks to more than ${IMPORT_LIMITS.zipRatio} times its size, which real exports never do (it looks like a "zip bomb"); Backstory does not open it`,
    );
  }
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
  let packed = 0;
  let unpacked = 0;

  const unzip = new Unzip((file: UnzipFile) => {
    entriesSeen++;
    if (file.name.endsWith('/')) return;
    const wanted = want(file.name);
    const entry = new PendingEntry(file.name, file.originalSize);
    // Every entry is started: fflate keeps the compressed bytes of an entry that is not started until the end.
    file.ondata = (err, data, final) => {
      unpacked += data?.length ?? 0;
      if (!wanted) return;
      if (err) entry.error = err;
      else if (data.length) entry.chunks.push(data);
      if (final || err) entry.ended = true;
    };
    if (wanted) found.push(entry);
    file.start();
  });
  unzip.register(UnzipInflate);

  let rest: Uint8Array | undefined;
  /** Pushes the next piece of input through the unzip (a small one: it may inflate a hundredfold); false at the end. */
  async function pump(): Promise<boolean> {
    if (inputEnded) return false;
    let r: IteratorResult<Uint8Array>;
    if (rest?.length) r = { done: false, value: rest };
    else r = await input.next();
    if (!r.done && r.value.length > CHUNK / 4) {
      rest = r.value.subarray(CHUNK / 4);
      r = { done: false, value: r.value.subarray(0, CHUNK / 4) };
    } else rest = undefined;
    try {
      if (r.done) {
        inputEnded = true;
        unzip.push(new Uint8Array(0), true);
        return false;
      }
      unzip.push(r.value);
      packed += r.value.length;
    } catch (e) {
      const where = current && !current.ended ? current.name : found.find((f) => !f.ended)?.name;
      if (r.done) throw new ZipReadError(`the zip ends in the middle of ${where ?? 'a file'} (it was cut off: download it again)`, where);
      throw new ZipReadError(`the zip is damaged (${(e as Error).message})`, where);
    }
    checkRatio(unpacked, packed);
    return true;
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
      yield { name: next.name, bytes: entryBytes(next), size: next.size };
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
