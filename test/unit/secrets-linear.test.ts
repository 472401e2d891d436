import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findSecrets } from '../../lib/memory/secrets';

// Every text that enters memory is scanned for secrets, and pages and files choose that text: a 100 KB string must
// cost about four times a 25 KB one, never sixteen (what a regex that backtracks over the rest of a run costs).

const SMALL = 25_000;
const LARGE = 100_000;
/** Linear growth is 4; noise on a busy machine stays well under 6, quadratic growth is 16. */
const MAX_GROWTH = 6;

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

const fill = (unit: string, size: number) => unit.repeat(Math.ceil(size / unit.length)).slice(0, size);

/**
 * How much more one scan of 100 KB costs than one of 25 KB, in CPU time (other processes' load does not count). Each
 * size is measured five times, interleaved, and the fastest run kept: it is the one least disturbed by the machine.
 */
function measureGrowth(unit: string): number {
  const texts = [fill(unit, SMALL), fill(unit, LARGE)];
  findSecrets(texts[0]);
  const warm = cpuMs();
  findSecrets(texts[0]);
  // Repeat short scans so that each measurement is a few milliseconds, well above the clock's grain.
  const reps = Math.min(50, Math.max(1, Math.ceil(3 / Math.max(cpuMs() - warm, 0.01))));
  const best = [Infinity, Infinity];
  for (let run = 0; run < 5; run++) {
    texts.forEach((text, i) => {
      const start = cpuMs();
      for (let r = 0; r < reps; r++) findSecrets(text);
      best[i] = Math.min(best[i], cpuMs() - start);
    });
    // Clearly quadratic already: no need to wait for four more runs of it.
    if (best[1] / best[0] > 2 * MAX_GROWTH) break;
  }
  return best[1] / best[0];
}

/** A busy machine can spoil one measurement; quadratic cost shows in every one, so a high reading is taken again. */
function growth(unit: string): number {
  let lowest = measureGrowth(unit);
  // Noise does not double the reading: far above the bound, one reading is enough.
  for (let again = 0; again < 2 && lowest >= MAX_GROWTH && lowest < 2 * MAX_GROWTH; again++) {
    lowest = Math.min(lowest, measureGrowth(unit));
  }
  return lowest;
}

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
  ])('%s', (_name, unit) => {
    expect(growth(unit)).toBeLessThan(MAX_GROWTH);
  });

  it('for any repeated mix of the shapes it looks for', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...FRAGMENTS), { minLength: 1, maxLength: 6 }), (parts) => {
        expect(growth(parts.join(''))).toBeLessThan(MAX_GROWTH);
      }),
      { numRuns: 25 },
    );
  });
});
