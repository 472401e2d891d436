/**
 * Card numbers and IBANs. Their checksums (Luhn, ISO 7064 mod 97) and issuer rules tell them from order numbers,
 * phone numbers, ISBNs and dates, which would otherwise be held all day.
 */
import { scanMatches, type SecretHit } from './secrets-scan';

/**
 * 13-19 digits, optionally in groups split by one space or dash, not part of a longer number, a decimal fraction
 * (`0.5768911502526741`) or a phone number (`+4915123456787`).
 */
const CARD_CANDIDATE = /(?<![\d+.,]|\d[ -])\d(?:[ -]?\d){12,18}(?![ -]?\d|[.,]\d)/g;

/** The Luhn check digit test used by every card network. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** Does a network issue numbers with this prefix and length? (Visa, Mastercard, Amex, Discover, JCB, Diners, UnionPay, Maestro.) */
export function cardNetworkAccepts(digits: string): boolean {
  const n = digits.length;
  const p2 = Number(digits.slice(0, 2));
  const p3 = Number(digits.slice(0, 3));
  const p4 = Number(digits.slice(0, 4));
  if (digits[0] === '4') return n === 13 || n === 16 || n === 19;
  if ((p2 >= 51 && p2 <= 55) || (p4 >= 2221 && p4 <= 2720)) return n === 16;
  if (p2 === 34 || p2 === 37) return n === 15;
  if (p4 === 6011 || p2 === 65 || (p3 >= 644 && p3 <= 649) || p2 === 62) return n >= 16 && n <= 19;
  if (p4 >= 3528 && p4 <= 3589) return n >= 16 && n <= 19;
  if ((p3 >= 300 && p3 <= 305) || p2 === 36 || p2 === 38 || p2 === 39) return n >= 14 && n <= 19;
  if (p2 === 50 || (p2 >= 56 && p2 <= 58) || p2 === 63 || p2 === 67) return n >= 13 && n <= 19;
  return false;
}

/** Printed the way cards are: no separators, or one kind of separator between groups of 4 (the last 1-4), or 4-6-5 / 4-6-4. */
function groupedLikeACard(candidate: string): boolean {
  const seps = candidate.match(/[ -]/g);
  if (!seps) return true;
  if (seps.some((s) => s !== seps[0])) return false;
  const groups = candidate.split(seps[0]).map((g) => g.length);
  const shape = groups.join('-');
  if (shape === '4-6-5' || shape === '4-6-4') return true;
  return groups.slice(0, -1).every((g) => g === 4) && groups[groups.length - 1] >= 1 && groups[groups.length - 1] <= 4;
}

export function cardHits(text: string): SecretHit[] {
  return scanMatches(CARD_CANDIDATE, text, (m) => {
    const digits = m[0].replace(/[ -]/g, '');
    if (!groupedLikeACard(m[0]) || !cardNetworkAccepts(digits) || !luhnValid(digits)) return null;
    return { kind: 'card number', start: m.index, end: m.index + m[0].length };
  });
}

/** IBAN length by country (ISO 13616 registry). */
const IBAN_LENGTH: Record<string, number> = {
  AD: 24, AE: 23, AL: 28, AT: 20, AZ: 28, BA: 20, BE: 16, BG: 22, BH: 22, BI: 27, BR: 29, BY: 28, CH: 21, CR: 22,
  CY: 28, CZ: 24, DE: 22, DJ: 27, DK: 18, DO: 28, EE: 20, EG: 29, ES: 24, FI: 18, FK: 18, FO: 18, FR: 27, GB: 22,
  GE: 22, GI: 23, GL: 18, GR: 27, GT: 28, HR: 21, HU: 28, IE: 22, IL: 23, IQ: 23, IS: 26, IT: 27, JO: 30, KW: 30,
  KZ: 20, LB: 28, LC: 32, LI: 21, LT: 20, LU: 20, LV: 21, LY: 25, MC: 27, MD: 24, ME: 22, MK: 19, MN: 20, MR: 27,
  MT: 31, MU: 30, NI: 28, NL: 18, NO: 15, OM: 23, PK: 24, PL: 28, PS: 29, PT: 25, QA: 29, RO: 24, RS: 22, RU: 33,
  SA: 24, SC: 31, SD: 18, SE: 24, SI: 19, SK: 24, SM: 27, SO: 23, ST: 25, SV: 28, TL: 23, TN: 24, TR: 26, UA: 29,
  VA: 22, VG: 24, XK: 20, YE: 30,
};

/** A letter's or digit's value in an IBAN (A=10 … Z=35), or -1. */
function ibanCharValue(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 65 && code <= 90) return code - 55;
  if (code >= 97 && code <= 122) return code - 87;
  return -1;
}

/** ISO 7064 mod 97-10 over the IBAN moved to put the country and check digits last. */
export function ibanChecksumValid(iban: string): boolean {
  const moved = iban.slice(4) + iban.slice(0, 4);
  let rest = 0;
  for (let i = 0; i < moved.length; i++) {
    const v = ibanCharValue(moved.charCodeAt(i));
    if (v < 0) return false;
    rest = (rest * (v > 9 ? 100 : 10) + v) % 97;
  }
  return rest === 1;
}

/** Where an IBAN can start: a country code and two check digits, not inside a longer word. */
const IBAN_START = /(?<![A-Za-z0-9])[A-Za-z]{2}\d{2}/g;

const isAlnumAt = (text: string, i: number) => i < text.length && ibanCharValue(text.charCodeAt(i)) >= 0;

/**
 * Reads the IBAN that starts at `start`: exactly its country's length, written solid or in groups of four split by
 * single spaces. Reads at most 34 characters plus spaces, so the whole scan stays linear.
 */
function readIban(text: string, start: number, length: number): { end: number; iban: string } | null {
  const spaced = text[start + 4] === ' ';
  const chars: string[] = [];
  let i = start;
  while (chars.length < length) {
    if (spaced && chars.length > 0 && chars.length % 4 === 0 && text[i++] !== ' ') return null;
    if (!isAlnumAt(text, i)) return null;
    chars.push(text[i++]);
  }
  return isAlnumAt(text, i) ? null : { end: i, iban: chars.join('').toUpperCase() };
}

export function ibanHits(text: string): SecretHit[] {
  return scanMatches(IBAN_START, text, (m) => {
    const length = IBAN_LENGTH[m[0].slice(0, 2).toUpperCase()];
    const read = length ? readIban(text, m.index, length) : null;
    if (!read || !ibanChecksumValid(read.iban)) return null;
    return { kind: 'bank account number (IBAN)', start: m.index, end: read.end };
  });
}
