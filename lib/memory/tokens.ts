import { countTokens as gptCount } from 'gpt-tokenizer';

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
