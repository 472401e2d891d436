import { TooLargeError, concatBytes, type Bytes } from './byte-stream';
import { MBOX_SEPARATOR } from './detect';
import { IMPORT_LIMITS } from './limits';

const NL = 0x0a;
const F = 0x46;
const GT = 0x3e;
const FROM_ = [0x46, 0x72, 0x6f, 0x6d, 0x20]; // "From "
const latin1 = new TextDecoder('latin1');
/** A "From " line longer than this is a line of a message, not a separator: it is not carried to the next chunk. */
const SEPARATOR_MAX = 4096;

function startsFrom(b: Uint8Array, i: number): boolean {
  for (let k = 0; k < 5; k++) if (b[i + k] !== FROM_[k]) return false;
  return true;
}


/** One message of an mbox: its bytes, and the "From " line before it (whose date is when it was delivered). */
export interface MboxMessage {
  raw: Uint8Array;
  envelope: string;
}

/** A message's bytes without its "From " line, with mboxrd's ">From " quoting taken off (">>From " → ">From "). */
function unmangle(msg: Uint8Array): MboxMessage {
  const start = msg.indexOf(NL) + 1;
  if (start <= 0) return { raw: new Uint8Array(0), envelope: '' };
  const envelope = latin1.decode(msg.subarray(0, start)).trim();
  const out: Uint8Array[] = [];
  let from = start;
  for (let i = start; i < msg.length; i++) {
    if ((i === start || msg[i - 1] === NL) && msg[i] === GT) {
      let j = i;
      while (msg[j] === GT) j++;
      if (startsFrom(msg, j)) {
        out.push(msg.subarray(from, i));
        from = i + 1;
      }
    }
  }
  out.push(msg.subarray(from));
  return { raw: concatBytes(out), envelope };
}

/**
 * The messages of an mbox file (Gmail Takeout's "All mail Including Spam and Trash.mbox"), split at "From " lines
 * as the stream goes, one message in memory at a time. A message longer than `limit` bytes stops the reading with
 * TooLargeError.
 */
export async function* mboxMessages(bytes: Bytes, limit: number = IMPORT_LIMITS.mailBytes): AsyncGenerator<MboxMessage> {
  let parts: Uint8Array[] = [];
  let held = 0;
  let started = false;
  let prev = NL;
  let carry: Uint8Array | undefined;
  const keep = (part: Uint8Array) => {
    held += part.length;
    if (held > limit) throw new TooLargeError(limit);
    parts.push(part);
  };
  const finish = () => {
    const msg = unmangle(concatBytes(parts));
    parts = [];
    held = 0;
    return msg;
  };
  for await (let chunk of bytes) {
    if (carry) {
      chunk = concatBytes([carry, chunk]);
      carry = undefined;
    }
    let start = 0;
    let stop = chunk.length;
    for (let i = 0; i < chunk.length; i++) {
      if (chunk[i] !== F || (i === 0 ? prev : chunk[i - 1]) !== NL) continue;
      const eol = chunk.indexOf(NL, i);
      if (eol < 0) {
        // The line goes on in the next chunk: decide there (a line already too long for a separator is text).
        if (chunk.length - i > SEPARATOR_MAX) break;
        stop = i;
        break;
      }
      if (!startsFrom(chunk, i) || !MBOX_SEPARATOR.test(latin1.decode(chunk.subarray(i, eol)))) continue;
      if (i > start) keep(chunk.subarray(start, i));
      if (started && parts.length) yield finish();
      parts = [];
      held = 0;
      started = true;
      start = i;
    }
    if (stop > start) keep(chunk.subarray(start, stop));
    if (stop < chunk.length) {
      carry = chunk.slice(stop);
      prev = NL;
    } else prev = chunk[chunk.length - 1] ?? prev;
  }
  if (carry) keep(carry);
  if (parts.length) {
    const msg = finish();
    if (msg.raw.length) yield msg;
  }
}
