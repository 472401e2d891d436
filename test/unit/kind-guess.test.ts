import { describe, expect, it } from 'vitest';
import { guessKind } from '../../lib/memory/kind-guess';

describe('the kind guessed for the user’s own text', () => {
  it('reads rules as instructions', () => {
    for (const t of [
      'Never share the draft budget outside finance.',
      'Always cc Priya on vendor mails.',
      'Notes for replies. Never use exclamation marks.',
      'I never sign with my first name only.',
      'We always reply within one working day.',
      'Please keep answers short.',
      'Use British spelling in the newsletter.',
    ]) expect(guessKind(t), t).toBe('instruction');
  });

  it('reads a description that says "never" or "always" as evidence', () => {
    // A note about a bug read as a rule made no card on its own, so the one note that answered the task went missing.
    for (const t of [
      'The sync worker retried forever because the backoff cap was never read from the config file.',
      'Melanie has always loved painting sunsets by the lake.',
      'The invoice was never paid, and the vendor is always late with reminders.',
    ]) expect(guessKind(t), t).toBe('evidence');
  });
});
