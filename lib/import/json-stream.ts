import { JSONParser } from '@streamparser/json';
import type { Bytes } from './byte-stream';

const PIECE = 64 * 1024;

export interface JsonValue {
  value: unknown;
  key: string | number | undefined;
  /** How deep the value sits: 1 for members of the top-level array or object. */
  depth: number;
}

/** Why a JSON stream could not be read: not JSON at all, or cut off before its end. */
export class JsonStreamError extends Error {
  constructor(
    readonly kind: 'invalid' | 'truncated',
    message: string,
  ) {
    super(message);
  }
}

/**
 * The values at `paths` (jsonpath subset: "$.*", "$.items.*") of a JSON document read as a stream, a chunk's worth
 * at a time; values already handed out are dropped from the parser, so memory stays flat across a huge array.
 */
export async function* jsonValues(bytes: Bytes, paths: string[]): AsyncGenerator<JsonValue[]> {
  const parser = new JSONParser({ paths, keepStack: false });
  let out: JsonValue[] = [];
  let failure: Error | undefined;
  parser.onValue = ({ value, key, stack }) => {
    out.push({ value, key, depth: stack.length });
  };
  parser.onError = (e) => {
    failure ??= e;
  };
  // Text is handed to the parser rather than bytes: its tokenizer is faster on strings. The decoder
  // drops a byte order mark and keeps characters split across chunks whole.
  const decoder = new TextDecoder('utf-8', { fatal: false });
  for await (const chunk of bytes) {
    const text = decoder.decode(chunk, { stream: true });
    if (parser.isEnded) {
      // Only white space may follow the JSON value.
      if (text.trim()) throw new JsonStreamError('invalid', 'there is more after the end of the JSON');
      continue;
    }
    // Written a piece at a time so the values of a large chunk come out in turn, not all at once.
    for (let at = 0; at < text.length; at += PIECE) {
      if (parser.isEnded) {
        if (text.slice(at).trim()) throw new JsonStreamError('invalid', 'there is more after the end of the JSON');
        break;
      }
      parser.write(text.slice(at, at + PIECE));
      if (failure) {
        // The values read before the fault are handed out first, so the caller can say where the file breaks.
        if (out.length) yield out;
        throw new JsonStreamError('invalid', failure.message);
      }
      if (out.length) {
        yield out;
        out = [];
      }
    }
  }
  if (!parser.isEnded) {
    parser.end();
    if (failure) throw new JsonStreamError('truncated', failure.message);
  }
  if (out.length) yield out;
}
