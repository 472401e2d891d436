import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findSecrets } from '../../lib/memory/secrets';
import { costGrowth, GROWTH_LIMIT, repeatTo } from './cost-growth';

// Every text that enters memory is scanned for secrets, and pages and files choose that text: a 100 KB string must
// cost about four times a 25 KB one, never sixteen (what a regex that backtracks over the rest of a run costs).

/** How much more a scan of 100 KB of repeated `unit` costs than one of 25 KB. */
const growth = (unit: string) => costGrowth(findSecrets, (size) => repeatTo(unit, size));

/** Pieces of the shapes the scanner looks for, whose repeats make a backtracking regex retry the same run. */
const FRAGMENTS = [
  'a', 'Z', '=', ':', ' ', '0', '7', '-', '_', '.', '/', '@', '"', "'", '\n', '+',
  '-----BEGIN ', '-----BEGIN RSA ', 'PuTTY-User-Key-File-', 'sk-', 'sk-proj-', 'eyJ', 'AKIA', 'ghp_', 'glpat-', 'npm_',
  'hf_', 'SG.', 'xoxb-', 'ya29.', 'AA', 'hooks.slack.com/services/', 'AccountKey=', 'https://', 'a:', 'b@',
  'Authorization: Bearer ', 'Bearer ', 'API_KEY=', '_KEY=', 'token=', 'secret: ', 'password', 'password: ', 'pwd=',
  'Passwort ist ', ' for the ', ' is ', 'login a ', '密码', 'пароль: ', 'PIN: ', 'CVV ', '4111 ', '4111-', '1234',
  'DE89', 'DE89 ', 'GB82WEST',
];

describe('the secret scan costs linear time', () => {
  it.each([
    ['a run of one letter', 'a'],
    ['a run of =', '='],
    ['a run of :', ':'],
    ['a run of digits', '4'],
    ['digits and spaces', '4111 '],
    ['digits and dashes', '1-'],
    ['a run of spaces', ' '],
    ['repeated key headers', '-----BEGIN '],
    ['repeated sk-', 'sk-'],
    ['repeated token starts', 'eyJ-'],
    ['token starts with dots', 'eyJa.eyJ-'],
    ['repeated password labels', 'password: '],
    ['a label with a long qualifier', 'password for the '],
    ['repeated IBAN starts', 'DE89 '],
    ['repeated web address starts', 'https://a:'],
    ['letters and digits', 'a1-'],
    ['repeated assignments', 'API_KEY='],
    ['a mix', 'sk-eyJ password: 4111 DE89 https://a:b@ -----BEGIN '],
  ])('%s', async (_name, unit) => {
    expect(await growth(unit)).toBeLessThan(GROWTH_LIMIT);
  });

  it('for any repeated mix of the shapes it looks for', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom(...FRAGMENTS), { minLength: 1, maxLength: 6 }), async (parts) => {
        expect(await growth(parts.join(''))).toBeLessThan(GROWTH_LIMIT);
      }),
      { numRuns: 25 },
    );
  });
});
