import { JSONParser, TokenType } from '@streamparser/json';
import type { Bytes } from './byte-stream';
import { IMPORT_LIMITS } from './limits';

const PIECE = 64 * 1024;

export interface JsonValue {
  value: unknown;
  key: string | number | undefined;
  /** How deep the value sits: 1 for members of the top-level array or object. */
  depth: number;
}

/**
 * Why a JSON stream could not be read: not JSON at all, cut off before its end, nested deeper than any export
 * (`too-deep`), or one value larger than the reader builds (`too-large`).
 */
export class JsonStreamError extends Error {
  constructor(
    readonly kind: 'invalid' | 'truncated' | 'too-deep' | 'too-large',
    message: string,
  ) {
    super(message);
  }
}

/** Thrown from inside the parser's token callback; the parser hands it to onError, which stops it. */
class TooDeep extends Error {}

/**
 * The values at `paths` (jsonpath subset: "$.*", "$.items.*") of a JSON document read as a stream, a chunk's worth
 * at a time; values already handed out are dropped from the parser, so memory stays flat across a huge array.
 * Arrays and objects nested deeper than `limits.depth`, or more than `limits.valueChars` characters read without a
 * value handed out, stop the reading (a few kilobytes of "[" would otherwise build millions of arrays).
 */
export async function* jsonValues(
  bytes: Bytes,
  paths: string[],
  limits: { depth: number; valueChars: number } = { depth: IMPORT_LIMITS.jsonDepth, valueChars: IMPORT_LIMITS.jsonValueChars },
): AsyncGenerator<JsonValue[]> {
  const parser = new JSONParser({ paths, keepStack: false });
  let out: JsonValue[] = [];
  let failure: Error | undefined;
  let nesting = 0;
  let sinceValue = 0;
  parser.onToken = ({ token }) => {
    if (token === TokenType.LEFT_BRACE || token === TokenType.LEFT_BRACKET) {
      if (++nesting > limits.depth) throw new TooDeep(`arrays and objects nested more than ${limits.depth} deep`);
    } else if (token === TokenType.RIGHT_BRACE || token === TokenType.RIGHT_BRACKET) nesting--;
  };
  parser.onValue = ({ value, key, stack }) => {
    sinceValue = 0;
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
      const piece = text.slice(at, at + PIECE);
      parser.write(piece);
      if (failure) {
        if (failure instanceof TooDeep) throw new JsonStreamError('too-deep', failure.message);
        // The values read before the fault are handed out first, so the caller can say where the file breaks.
        if (out.length) yield out;
        throw new JsonStreamError('invalid', failure.message);
      }
      sinceValue += piece.length;
      if (sinceValue > limits.valueChars) throw new JsonStreamError('too-large', `one value is larger than ${limits.valueChars} characters`);
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
