import { JSONParser } from '@streamparser/json';
import type { Bytes } from './byte-stream';

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
  let first = true;
  for await (let chunk of bytes) {
    if (first) {
      first = false;
      if (chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) chunk = chunk.subarray(3);
    }
    if (parser.isEnded) {
      // Only white space may follow the document.
      if (chunk.some((b) => b !== 0x20 && b !== 0x0a && b !== 0x0d && b !== 0x09)) throw new JsonStreamError('invalid', 'there is more after the end of the JSON');
      continue;
    }
    parser.write(chunk);
    if (failure) throw new JsonStreamError('invalid', failure.message);
    if (out.length) {
      yield out;
      out = [];
    }
  }
  if (!parser.isEnded) {
    parser.end();
    if (failure) throw new JsonStreamError('truncated', failure.message);
  }
  if (out.length) yield out;
}
