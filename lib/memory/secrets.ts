/**
 * Credentials people paste by accident. A hit holds the text back from every card and package until the user
 * confirms it; the kinds found are what the review shows ("it looks like it contains a secret (password, card
 * number)"). Every detector scans the text once with bounded steps per position, so a 100 KB page or file costs
 * linear time whatever it holds.
 */
import { cardHits, ibanHits } from './secrets-numbers';
import { labelledHits } from './secrets-labelled';
import type { SecretHit } from './secrets-scan';
import { tokenHits } from './secrets-tokens';

export type { SecretHit } from './secrets-scan';

/** Kinds found by a label rather than a shape: where a specific shape covers the same text, the specific one is named. */
const GENERIC_KINDS = new Set(['password', 'API key or token', 'client secret', 'authorization header']);

const overlaps = (a: SecretHit, b: SecretHit) => a.start < b.end && b.start < a.end;

/** Every secret in the text with its span, in text order. */
export function findSecretHits(text: string): SecretHit[] {
  const all = [...tokenHits(text), ...cardHits(text), ...ibanHits(text), ...labelledHits(text)];
  const specific = all.filter((h) => !GENERIC_KINDS.has(h.kind));
  return all
    .filter((h) => !GENERIC_KINDS.has(h.kind) || !specific.some((s) => overlaps(s, h)))
    .sort((a, b) => a.start - b.start || b.end - a.end);
}

/** Kinds of secret the text seems to hold, each once, in the order they appear (empty when none). */
export function findSecrets(text: string): string[] {
  return [...new Set(findSecretHits(text).map((h) => h.kind))];
}

/**
 * Why an item is held, in the review's words: "it looks like it contains a secret (password, card number)". One
 * wording for every way into memory; the kinds are listed once each, in the order they appear.
 */
export function secretHoldReason(kinds: string[]): string {
  return `it looks like it contains a secret (${[...new Set(kinds)].join(', ')})`;
}
