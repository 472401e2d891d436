import type { MemoryKind } from './types';

// Imperatives and standing rules read as instructions; everything else is evidence. "Always" and "never" make a rule
// where they lead a sentence or follow the writer ("Never share…", "I always sign…"), not in a description ("the
// backoff cap was never read", "she has always liked…"): notes of what happened say them as often as rules do.
const INSTRUCTION_PATTERNS: RegExp[] = [
  /\b(don't|do not|dont|prefer|avoid|must not|mustn't|should not|shouldn't|make sure|remember to|please)\b/i,
  /(^|[.;:!?]\s+|\n\s*|\b(i|we|you)\s+(will\s+|should\s+|must\s+)?)(always|never)\b/i,
  /^\s*(use|keep|write|sign|address|reply|respond|mention|include|call|refer|cc|bcc|be)\b/i,
  /\b(my (style|tone|preference)|i (like|prefer|want) (to be|my|replies|emails|answers))\b/i,
];

export function guessKind(text: string): MemoryKind {
  const head = text.slice(0, 600);
  return INSTRUCTION_PATTERNS.some((re) => re.test(head)) ? 'instruction' : 'evidence';
}
