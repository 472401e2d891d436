import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { termOf, words, writtenWords } from '../../lib/memory/index/tokenize';

/** What an explanation quotes, read word by word: each term's first word of the text that stands for it. */
function wordByWord(matched: readonly string[], text: string): string[] {
  const want = new Set(matched);
  const found = new Map<string, string>();
  // A word as `words` splits one: inner apostrophes, a decimal point between digits ("t7.7"), and a thousands comma
  // before exactly three digits ("1,200"; "7,7" is two words).
  for (const m of text.matchAll(/[\p{L}\p{N}]+(?:(?:['’]|(?<=\d)\.(?=\d)|(?<=\d),(?=\d{3}(?!\d)))[\p{L}\p{N}]+)*/gu)) {
    const term = termOf(m[0]);
    if (want.has(term) && !found.has(term)) found.set(term, m[0].replace(/['’]s$/i, ''));
  }
  return [...new Set(matched.map((t) => found.get(t) ?? t))];
}

// Pieces that exercise stemming (plurals, -ies, -ing, a final y), apostrophes of both kinds, capitals, and the
// characters whose lower case differs by context or length (Σ, İ) or takes two code units (𐐀).
const PIECES = ['part', 'ies', 'y', 'ing', 'ed', 's', 'e', 'ly', 'run', 'n', 'Don', "'t", '’s', "O'", 'Neil', 'ANA', "'s", 'x', '7', '200', ',',
  'Σ', 'İ', '𐐀', 'é', ' ', ' ', ' ', '. ', '.', '\n', '-', '/', "''", '(', '“'];

describe('the words an explanation quotes as written', () => {
  it('are the first words of the item that stand for the matched terms, for any text', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...PIECES), { maxLength: 60 }), fc.array(fc.string({ maxLength: 4 }), { maxLength: 3 }), (pieces, extra) => {
        const text = pieces.join('');
        const matched = [...new Set([...words(text).map(termOf).slice(0, 8), ...extra])];
        expect(writtenWords(matched, text)).toEqual(wordByWord(matched, text));
      }),
      { numRuns: 3000 },
    );
  });

  it('quote the word the item wrote, not the term', () => {
    const text = "Parties are planned. We're running O'Neil's retries; Party time, don't forget the RETRY.";
    expect(writtenWords(['parti', 'run', 'oneil', 'retri', 'dont', 'absent'], text)).toEqual(['Parties', 'running', "O'Neil", 'retries', "don't", 'absent']);
    // A capital sigma lower-cases by what is around it: here as a final sigma in the text, alone as a medial one.
    expect(writtenWords(['σ'], 'a.Σ b')).toEqual(['Σ']);
    // A number is quoted with its separators, as the budget line wrote it.
    expect(writtenWords(['1200', '2400.50', '12'], 'Venue £1,200; flowers £2,400.50 for 12 tables')).toEqual(['1,200', '2,400.50', '12']);
  });
});
