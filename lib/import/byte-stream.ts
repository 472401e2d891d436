import { concatBytes } from '../core/concat-bytes';

export { concatBytes };
/** Byte streams shared by the readers: a file read chunk by chunk, a look at its first bytes, and abort checks. */

export type Bytes = AsyncIterable<Uint8Array>;

export function throwIfAborted(signal?: AbortSignal): void {
  if (signal?.aborted) throw signal.reason ?? new DOMException('The import was cancelled.', 'AbortError');
}

/**
 * Chunks handed on are at most this long. Some runtimes give a Blob's stream in very large chunks, and a chunk of a
 * zip inflates to many times its size: small pieces keep each step's memory small and batches flowing.
 */
export const CHUNK = 64 * 1024;

/** A Blob as a stream of chunks; `onBytes` hears each chunk's length (progress by bytes). */
export async function* blobChunks(blob: Blob, signal?: AbortSignal, onBytes?: (n: number) => void): Bytes {
  const reader = blob.stream().getReader();
  try {
    for (;;) {
      throwIfAborted(signal);
      const { done, value } = await reader.read();
      if (done) return;
      for (let at = 0; at < value.length; at += CHUNK) {
        const piece = value.subarray(at, at + CHUNK);
        onBytes?.(piece.length);
        yield piece;
        throwIfAborted(signal);
      }
    }
  } finally {
    reader.releaseLock();
  }
}

/** Bytes as a stream (tests, and entries already in memory). */
export async function* bytesOf(...parts: Uint8Array[]): Bytes {
  for (const p of parts) if (p.length) yield p;
}

/**
 * The first `want` bytes of a stream (fewer if it is shorter) and the whole stream again, those bytes included, so
 * a reader can be chosen from the content and then read it from the start.
 */
export async function peek(source: Bytes, want = 4096): Promise<{ head: Uint8Array; bytes: Bytes }> {
  const it = source[Symbol.asyncIterator]();
  const first: Uint8Array[] = [];
  let have = 0;
  let ended = false;
  while (have < want) {
    const r = await it.next();
    if (r.done) {
      ended = true;
      break;
    }
    first.push(r.value);
    have += r.value.length;
  }
  const head = concatBytes(first, have).subarray(0, want);
  async function* again(): Bytes {
    for (const c of first) yield c;
    if (ended) return;
    for (;;) {
      const r = await it.next();
      if (r.done) return;
      yield r.value;
    }
  }
  return { head, bytes: again() };
}

/** A stream longer than its reader takes whole (`limit` bytes); `size` is how long it says it is, when it says. */
export class TooLargeError extends Error {
  constructor(
    readonly limit: number,
    readonly size?: number,
  ) {
    super(`more than ${limit} bytes`);
  }
}

/** Reads a (small) stream whole: one mail message, one note. Past `limit` bytes it stops with TooLargeError. */
export async function readAll(source: Bytes, limit = Infinity): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let total = 0;
  for await (const c of source) {
    total += c.length;
    if (total > limit) throw new TooLargeError(limit);
    parts.push(c);
  }
  return concatBytes(parts, total);
}
