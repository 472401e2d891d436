import { countTokens as gptCount, isWithinTokenLimit } from 'gpt-tokenizer';

/** Token count as the destination model would see it (cl100k/o200k-style BPE from gpt-tokenizer). */
export function countTokens(text: string): number {
  if (!text) return 0;
  // Very long texts: count a prefix and extrapolate so one paste cannot stall the worker.
  if (text.length > 200_000) {
    const head = text.slice(0, 50_000);
    return Math.ceil((gptCount(head) * text.length) / head.length);
  }
  return gptCount(text);
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
  const n = isWithinTokenLimit(text, limit);
  return n === false ? undefined : n;
}
