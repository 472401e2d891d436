import { GptEncoding } from 'gpt-tokenizer/GptEncoding';
import { mergingLongPiecesFast } from './bpe-merge';
import { loadTokenRanks, tokenRanks } from './token-ranks-node';

let encoding: GptEncoding | undefined;

/**
 * Reads what counting tokens needs and makes the encoder, so the first ranking does not: in the extension the worker
 * awaits it before it first makes or ranks an item (MemoryStore.load and add); in Node the ranks are there already.
 */
export async function loadTokenCounter(): Promise<void> {
  await loadTokenRanks();
  encoder();
}

/** gpt-tokenizer's o200k_base encoder, made at the first count (its 200k-entry map is built then). */
function encoder(): GptEncoding {
  return (encoding ??= mergingLongPiecesFast(GptEncoding.getEncodingApi('o200k_base', tokenRanks)));
}

/**
 * Special tokens ("<|endoftext|>") spelled in a note or a page are ordinary text to the model the user sends them to;
 * gpt-tokenizer's default refuses such text with an error.
 */
const AS_TEXT = { disallowedSpecial: new Set<string>() };

/** Token count as the destination model would see it (cl100k/o200k-style BPE from gpt-tokenizer). */
export function countTokens(text: string): number {
  if (!text) return 0;
  // Very long texts: count a prefix and extrapolate so one paste cannot stall the worker.
  if (text.length > 200_000) {
    const head = text.slice(0, 50_000);
    return Math.ceil((encoder().countTokens(head, AS_TEXT) * text.length) / head.length);
  }
  return encoder().countTokens(text, AS_TEXT);
}

/**
 * The token count of `text` when it is at most `limit`, else undefined: BPE stops once the count passes the limit, so
 * asking whether a long excerpt fits a nearly full budget costs a few dozen tokens' work, not the whole text's.
 * Without a limit (`Infinity`) it is `countTokens`.
 */
export function countTokensUpTo(text: string, limit: number): number | undefined {
  if (limit < 0) return undefined;
  if (limit === Infinity || text.length > 200_000) {
    const n = countTokens(text);
    return n <= limit ? n : undefined;
  }
  const n = encoder().isWithinTokenLimit(text, limit, AS_TEXT);
  return n === false ? undefined : n;
}
