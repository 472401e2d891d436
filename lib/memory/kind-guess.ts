import type { MemoryKind } from './types';

// Imperatives and standing rules read as instructions; everything else is evidence.
const INSTRUCTION_PATTERNS: RegExp[] = [
  /\b(always|never|don't|do not|dont|prefer|avoid|must not|mustn't|should not|shouldn't|make sure|remember to|please)\b/i,
  /^\s*(use|keep|write|sign|address|reply|respond|mention|include|call|refer|cc|bcc|be)\b/i,
  /\b(my (style|tone|preference)|i (like|prefer|want) (to be|my|replies|emails|answers))\b/i,
];

export function guessKind(text: string): MemoryKind {
  const head = text.slice(0, 600);
  return INSTRUCTION_PATTERNS.some((re) => re.test(head)) ? 'instruction' : 'evidence';
}
