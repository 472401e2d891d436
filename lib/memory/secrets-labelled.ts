/**
 * Secrets known by their label rather than their shape: passwords (in the major languages), PINs, card security
 * codes, and `.env`/JSON/YAML names ending in SECRET, TOKEN or KEY. The label finds the spot; the value decides:
 * `password: hunter22` is held, `password: <your password>` and "the password is required" are not.
 * Every quantifier is bounded, so each match attempt costs a constant and a scan stays linear.
 */
import { scanMatches, spanOf, type SecretHit } from './secrets-scan';
import { isPath, isPlaceholder, looksChosen, looksLikeIdentifier, looksRandom, unquote } from './secrets-values';

/** Words for "password" long enough to be matched inside names (`DB_PASSWORD`, `adminPassword`, `userKennwort`). */
const PASSWORD_LONG =
  'pass(?:word|wd|phrase|code)|passwort|kennwort|wachtwoord|contrase[nñ]a|l[oö]senord|adgangskode|passord|salasana|jelsz[oó]|mot[ -]de[ -]passe|пароль|密[码碼]|パスワード|비밀번호|סיסמ[הא]|كلمة (?:المرور|السر)|m[aậ]t kh[aẩ]u|รหัสผ่าน';
const PASSWORD_WORD = new RegExp(PASSWORD_LONG, 'iu');
/** Short ones, matched only as whole words (`resenha` is a review, not a password). */
const PASSWORD_SHORT = 'pwd|senha|has[lł]o|heslo|[şs]ifre|암호';

/** "password for the office wifi is …": a few words naming what the password is for. */
const QUALIFIER = '(?:[ \\t]{1,3}(?:for|to|of|on|für|pour|para|de|do|da|voor|van|для)(?:[ \\t]{1,3}[^\\s:=：]{1,40}){1,4})?';

/** `:`, `=`, `=>`, `:=`, a full-width colon, or "is" in the languages above. */
const SEPARATOR =
  '(["\']?[ \\t]{0,3}(?:=>|:=|=(?!=)|[:：])|[ \\t]{1,3}(?:is|was|ist|war|est|es|era|é|är|er|jest|je)(?:[ \\t]{0,2}:)?(?=[ \\t])|[ \\t]{0,2}(?:是|为|為|は|는|은))[ \\t]{0,3}';

/** Quoted, or up to a space or the `,` `;` `}` `]` that ends it in prose and code. */
const VALUE = '("[^"\\n]{1,200}"|\'[^\'\\n]{1,200}\'|[^\\s,;}\\]]{1,200})';

const PASSWORD = new RegExp(`(?:${PASSWORD_LONG}|(?<![\\p{L}\\p{N}])(?:${PASSWORD_SHORT}))${QUALIFIER}${SEPARATOR}${VALUE}`, 'dgiu');
/** `PASS=` only as a config line's assignment: "boarding pass: AB1234" and `const pass = ok` are not passwords. */
const PASS_ASSIGNMENT = /(?<![\p{L}\p{N}])pass["']?=(?!=)("[^"\n]{1,200}"|'[^'\n]{1,200}'|[^\s]{1,200})/dgiu;
/** A `.netrc` line: `machine host login alice password hunter22`. */
const NETRC = /\blogin[ \t]{1,3}[^\s]{1,100}[ \t]{1,3}password[ \t]{1,3}([^\s]{1,200})/dg;

const PIN = new RegExp(
  `(?<![\\p{L}\\p{N}])(?:PIN(?:[ -]?(?:code|number|nummer|nr\\.?|no\\.?|#))?|Geheimzahl|code PIN)${SEPARATOR}(\\d{4,8})(?![\\d]|[.,:/-]\\d)`,
  'dgiu',
);
/** Card security codes; upper case only, as printed on forms. */
const CARD_CODE = /(?<![\p{L}\p{N}])(?:CVV2?|CVC2?|CVN|CV2)(?:[ \t]{0,3}(?:[:=]|is))?[ \t]{0,3}(\d{3,4})(?![\d])/dgu;

/** A name ending in SECRET, TOKEN or KEY, assigned a value (`.env`, JSON, YAML, code). */
const NAMED = /(secret|token|key)["']?[ \t]{0,3}(?:=>|:=|=(?!=)|[:：])[ \t]{0,3}("[^"\n]{1,300}"|'[^'\n]{1,300}'|[^\s,;]{1,300})/dgi;
/** Names ending in KEY that always hold a secret (`API_KEY`, `apiKey`, `ENCRYPTION_KEY`), unlike `SORT_KEY`. */
const SECRET_KEY_NAME = /(?:api|access|secret|private|auth|encryption|signing|master|license|account|subscription|app|hmac|session|server|admin|client)key$/;

/** What "the password is …" ends with when it describes the password rather than giving it. */
const DESCRIPTIONS = new Set(
  [
    'wrong incorrect invalid valid required expired expiring correct right weak strong good fine okay secure insecure',
    'safe unsafe long short missing empty blank needed necessary optional mandatory different same new old changed',
    'reset saved stored sent shared written protected encrypted hashed hidden visible masked unknown known compromised',
    'leaked stolen lost forgotten case-sensitive mine yours his hers theirs ours something anything nothing simple',
    'easy hard complex complicated obvious random unique temporary permanent accepted rejected blocked locked disabled',
    'enabled active inactive working broken ready done below above attached included available unavailable there here',
    'falsch richtig abgelaufen ungültig gültig korrekt sicher unsicher erforderlich leer geändert',
    'expiré invalide valide obligatoire vide nouveau changé sécurisé incorrecta correcta válida inválida segura',
    'obligatoria vacía nueva caducada',
  ].join(' ').split(' '),
);

type Separator = 'assign' | 'label' | 'word';

function separatorKind(sep: string): Separator {
  if (sep.includes('=')) return 'assign';
  return /[:：]/.test(sep) ? 'label' : 'word';
}

/**
 * Nothing but spaces and a full stop after the value on its line: `Password: sunshine` as a line of its own (and
 * not a statement of code, `password = strict;`).
 */
function endsItsLine(text: string, end: number): boolean {
  const re = /[ \t]{0,20}[.,]?[ \t]{0,20}(?:\r?\n|$)/y;
  re.lastIndex = end;
  return re.test(text);
}

/** Is this the value of a password, given how it was introduced? */
function passwordValue(raw: string, sep: Separator, alone: boolean): boolean {
  const { value, quoted } = unquote(raw);
  if (isPlaceholder(value) || value.length < 4) return false;
  // `WRONG_PASSWORD: "Wrong Password"`, `label: "Enter your password"`: a message about a password.
  if (/\s/.test(value) && PASSWORD_WORD.test(value)) return false;
  if (quoted) return true;
  if (isPath(value)) return false;
  if (looksChosen(value)) return true;
  // "Password: sunshine" alone on its line is a password; "Passwort: mindestens 12 Zeichen" is a rule about one,
  // and "the password is required" a description.
  if (sep === 'assign') return alone;
  if (sep === 'word') return alone && !DESCRIPTIONS.has(value.toLowerCase()); // "my password is sunshine."
  return alone && value.length >= 6;
}

function valueHit(kind: string, m: RegExpExecArray, group: number): SecretHit {
  const span = spanOf(m, group);
  const { value, quoted } = unquote(m[group]);
  // Point at the value itself, without its quotes or a sentence's full stop.
  const start = span.start + (quoted ? 1 : m[group].indexOf(value));
  return { kind, start, end: Math.min(span.end, start + value.length) };
}

function passwordHits(text: string): SecretHit[] {
  const labelled = scanMatches(PASSWORD, text, (m) => {
    const alone = endsItsLine(text, spanOf(m, 2).end);
    return passwordValue(m[2], separatorKind(m[1]), alone) ? valueHit('password', m, 2) : null;
  });
  const assigned = [PASS_ASSIGNMENT, NETRC].flatMap((re) =>
    scanMatches(re, text, (m) => (passwordValue(m[1], 'assign', endsItsLine(text, spanOf(m, 1).end)) ? valueHit('password', m, 1) : null)),
  );
  return [...labelled, ...assigned];
}

function pinHits(text: string): SecretHit[] {
  return [
    ...scanMatches(PIN, text, (m) => ({ kind: 'PIN', ...spanOf(m, 2) })),
    ...scanMatches(CARD_CODE, text, (m) => ({ kind: 'card security code', ...spanOf(m, 1) })),
  ];
}

/** Up to 60 name characters before `at`: `MY_SERVICE_API_` before `KEY`. */
function nameBefore(text: string, at: number): string {
  let i = at;
  while (i > 0 && at - i < 60 && /[A-Za-z0-9_.-]/.test(text[i - 1])) i--;
  return text.slice(i, at);
}

function namedHits(text: string): SecretHit[] {
  return scanMatches(NAMED, text, (m) => {
    const word = m[1];
    const before = nameBefore(text, m.index);
    const name = (before + word).toLowerCase().replace(/[^a-z0-9]/g, '');
    const { value } = unquote(m[2]);
    // Keys and tokens are written in a token's alphabet: a quoted phrase after `secret:` is a label or a sentence,
    // and `o.key=t?r.C0.ESC+…` is code.
    if (isPlaceholder(value) || isPath(value) || !/^[\w+/=.~-]{8,}$/.test(value)) return null;
    const lower = word.toLowerCase();
    if (lower === 'key') {
      // `monkey: …` is not a key; `SORT_KEY`, `sortKey` and `key` are, and weak ones need a random-looking value.
      const last = before[before.length - 1];
      const joined = last === undefined || /[_.-]/.test(last) || (word[0] === 'K' && /[a-z]/.test(last));
      if (!joined) return null;
      if (!(SECRET_KEY_NAME.test(name) ? !looksLikeIdentifier(value) : looksRandom(value, 16))) return null;
    } else if (looksLikeIdentifier(value)) {
      // `exports.isArrowToken = isArrowToken`, `token: refresh_token`
      return null;
    }
    return valueHit(name.endsWith('clientsecret') ? 'client secret' : 'API key or token', m, 2);
  });
}

export function labelledHits(text: string): SecretHit[] {
  return [...passwordHits(text), ...pinHits(text), ...namedHits(text)];
}
