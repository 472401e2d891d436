/**
 * Is the value after a label ("password:", "API_KEY=") a real secret or a stand-in? Holding a note that says
 * `password: <your password>` only annoys; missing `password: hunter22` leaks it.
 */

/** Words that stand for a value rather than being one (compared lower-cased, without separators). */
const PLACEHOLDER_WORDS = new Set([
  'none', 'null', 'nil', 'undefined', 'empty', 'blank', 'required', 'optional', 'na', 'tbd', 'todo', 'fixme',
  'changeme', 'changeit', 'replaceme', 'password', 'passwort', 'secret', 'token', 'apikey', 'key', 'value',
  'example', 'sample', 'placeholder', 'dummy', 'test', 'fake', 'redacted', 'hidden', 'masked', 'removed', 'omitted',
  'true', 'false', 'yes', 'no', 'same', 'unknown', 'notset', 'default', 'guest', 'anonymous',
]);

/** A value that names where the secret is kept (an environment variable, a template, a vault) holds none itself. */
const REFERENCE = /^(?:\$|%|<|\[|\{|\(|`|process\.env|import\.meta\.env|os\.environ|os\.getenv|getenv|system\.getenv|env\(|env\[|secrets\.|vault:|keychain:|op:\/\/)/i;

/** `your_api_key_here`, `enter-password`, `my-secret`, `insert token`. */
const STAND_IN = /^(?:your|my|the|some|enter|insert|replace|put|paste|generate)(?:[\s_-]|$)|^your[a-z]*$|[\s_-]here$/i;
/** `someToken`, `myPassword`, `exampleKey`. */
const CAMEL_STAND_IN = /^(?:your|my|the|some|example|sample|dummy|fake|test|new|old)[A-Z]/;

/** Code that computes the value rather than holding it: `getPassword()`, `tokens[i]`, `req.body.password`. */
const CODE = /^[A-Za-z_$#][\w$#]*(?:[([]|(?:\.[A-Za-z_$#][\w$#]*)+(?![\w$#]))/;

/** One character repeated, or only masking characters: `********`, `xxxx`, `....`, `0000`, `•••`. */
const MASKED = /^(?:(.)\1+|[xX*.#•·_\-?]+)$/u;

const PATH = /^(?:\/|~\/|\.{1,2}\/|[A-Za-z]:\\)/;

/** The value without its quotes, and whether it was quoted. */
export function unquote(raw: string): { value: string; quoted: boolean } {
  const q = raw[0];
  if ((q === '"' || q === "'" || q === '`') && raw.length >= 2 && raw[raw.length - 1] === q) return { value: raw.slice(1, -1), quoted: true };
  // An unquoted value ends a sentence: "the password is hunter22." keeps no full stop.
  return { value: raw.replace(/^["'`]/, '').replace(/[.,;"'`]+$/, ''), quoted: false };
}

/** A stand-in for a value: a template, a reference, a masked or example word. */
export function isPlaceholder(value: string): boolean {
  if (value.trim() === '') return true;
  if (REFERENCE.test(value) || MASKED.test(value) || STAND_IN.test(value) || CAMEL_STAND_IN.test(value) || CODE.test(value)) return true;
  return PLACEHOLDER_WORDS.has(value.toLowerCase().replace(/[\s_.-]/g, ''));
}

export function isPath(value: string): boolean {
  return PATH.test(value);
}

/** Has a digit, a symbol, or a capital after the first letter: what a chosen password usually has and a word lacks. */
export function looksChosen(value: string): boolean {
  if (looksLikeWords(value) || looksLikeIdentifier(value)) return false; // "case-sensitive", "userPassword"
  return /[\d\p{S}\p{P}]/u.test(value) || /.\p{Lu}/u.test(value);
}

/**
 * Looks machine-made: long enough, letters mixed with digits more than once (`9f86d081…`, `Zx8fQ2mN…`), unlike
 * identifiers such as `created_at` or `user_profile_v2`.
 */
export function looksRandom(value: string, minLength = 12): boolean {
  if (value.length < minLength || !/\d/.test(value) || !/[A-Za-z]/.test(value)) return false;
  let switches = 0;
  for (let i = 1; i < value.length; i++) {
    const a = value.charCodeAt(i - 1) >= 48 && value.charCodeAt(i - 1) <= 57;
    const b = value.charCodeAt(i) >= 48 && value.charCodeAt(i) <= 57;
    if (a !== b) switches++;
  }
  return switches >= 3;
}

/** Lower-case words joined by `_`, `-` or `.`: a setting's name, not a secret (`created_at`, `read-only`). */
export function looksLikeWords(value: string): boolean {
  return /^[a-z]{1,40}(?:[_.-][a-z]{1,40}){0,10}$/.test(value);
}

/**
 * A name made of words, in any case style (`isArrowToken`, `isJSXToken`, `user_profile`): each word has two letters
 * or more and a vowel (or is a short acronym), which random letters (`aBcDeFgH`) seldom give.
 */
export function looksLikeIdentifier(value: string): boolean {
  if (!/^[A-Za-z][A-Za-z_.-]{0,99}$/.test(value)) return false;
  const words = value.split(/[_.-]|(?=[A-Z][a-z])|(?<=[a-z])(?=[A-Z])/).filter(Boolean);
  return words.every((w) => (w.length >= 2 && /[aeiouy]/i.test(w)) || /^[A-Z]{2,5}$/.test(w));
}
