/**
 * Credentials recognisable by their own shape: a vendor prefix and a fixed alphabet and length. Every quantifier is
 * bounded so that a match attempt costs at most a few hundred steps wherever it starts, and each regex runs over the
 * text once: the scan stays linear in the text's length whatever a page or file puts in it. A token whose alphabet
 * holds its own prefix (`sk-`, `eyJ`) must start after a character outside that alphabet, so a run like `eyJ-eyJ-…`
 * is tried once, not at every repeat.
 */
import { scanMatches, spanOf, type SecretHit } from './secrets-scan';
import { isPlaceholder, looksLikeWords, looksRandom } from './secrets-values';

interface TokenShape {
  kind: string;
  /** Global, with `d` so the span of group 1 (when there is one) is what the review points at. */
  re: RegExp;
  /** A further look at the secret (the first group that matched, or the whole match), for loose shapes. */
  check?: (secret: string) => boolean;
  /** The group holding the secret to check, when it is not the span shown. */
  secretGroup?: number;
}

const hasDigitAndLetter = (s: string) => /\d/.test(s) && /[A-Za-z]/.test(s);

export const TOKEN_SHAPES: TokenShape[] = [
  { kind: 'private key', re: /-----BEGIN (?:[A-Z0-9]{1,12} ){0,2}PRIVATE KEY(?: BLOCK)?-----|---- BEGIN SSH2 (?:ENCRYPTED )?PRIVATE KEY ----|PuTTY-User-Key-File-\d{1,2}:|AGE-SECRET-KEY-1[0-9A-Z]{58}/dg },
  { kind: 'AWS access key', re: /(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}(?![A-Za-z0-9])/dg },
  {
    kind: 'AWS secret key',
    re: /aws[_-]?secret[_-]?(?:access[_-]?)?key(?:[_-]?id)?["']?[ \t]{0,3}[:=][ \t]{0,3}["']?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])/dgi,
  },
  { kind: 'GitHub token', re: /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255}\b|\bgithub_pat_[A-Za-z0-9_]{60,255}\b/dg },
  { kind: 'GitLab token', re: /(?<![A-Za-z0-9_-])gl(?:pat|dt|rt|ptt|ft|soat|cbt|imt|agent)-[A-Za-z0-9_-]{20,64}|(?<![A-Za-z0-9_-])GR1348941[A-Za-z0-9_-]{20,64}/dg },
  { kind: 'OpenAI or Anthropic key', re: /(?<![A-Za-z0-9_-])sk-(?:ant-(?:api|admin)\d{2}-|proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,300}/dg, check: hasDigitAndLetter },
  { kind: 'Slack token', re: /(?<![A-Za-z0-9_-])xox[abposre]-[A-Za-z0-9-]{10,250}/dg, check: (s) => /\d/.test(s) },
  { kind: 'Slack webhook', re: /https:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9_/-]{20,200}/dg },
  { kind: 'Stripe key', re: /\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,255}|\bwhsec_[A-Za-z0-9]{24,255}/dg },
  { kind: 'Google API key', re: /\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/dg },
  { kind: 'Google OAuth client secret', re: /\bGOCSPX-[A-Za-z0-9_-]{28}(?![A-Za-z0-9_-])/dg },
  { kind: 'Google sign-in token', re: /(?<![A-Za-z0-9_-])ya29\.[A-Za-z0-9_-]{20,2048}|(?<![A-Za-z0-9/])1\/\/0[A-Za-z0-9_-]{40,512}/dg },
  {
    kind: 'JSON web token',
    re: /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{10,400}\.eyJ[A-Za-z0-9_-]{10,4000}\.[A-Za-z0-9_-]{10,1000}/dg,
  },
  { kind: 'npm token', re: /\bnpm_[A-Za-z0-9]{36}(?![A-Za-z0-9])/dg },
  { kind: 'PyPI token', re: /\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,300}/dg },
  { kind: 'Hugging Face token', re: /\bhf_[A-Za-z0-9]{30,40}(?![A-Za-z0-9])/dg, check: (s) => /[A-Z]/.test(s) && /[a-z]/.test(s) },
  { kind: 'SendGrid key', re: /\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/dg },
  { kind: 'Twilio key', re: /\b(?:SK|AC)[0-9a-f]{32}\b/dg },
  { kind: 'Mailchimp key', re: /\b[0-9a-f]{32}-us\d{1,2}\b/dg },
  { kind: 'Shopify token', re: /\bshp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}\b/dg },
  { kind: 'DigitalOcean token', re: /\bdo[por]_v1_[a-f0-9]{64}\b/dg },
  { kind: 'Databricks token', re: /\bdapi[0-9a-f]{32}(?:-\d)?\b/dg },
  { kind: 'Square token', re: /(?<![A-Za-z0-9_-])sq0(?:atp|csp)-[0-9A-Za-z_-]{22,43}/dg },
  { kind: 'Notion token', re: /\b(?:secret_[A-Za-z0-9]{43}|ntn_[A-Za-z0-9]{40,50})\b/dg, check: hasDigitAndLetter },
  { kind: 'Linear key', re: /\blin_(?:api|oauth)_[A-Za-z0-9]{40}\b/dg },
  { kind: 'Postman key', re: /\bPMAK-[0-9a-f]{24}-[0-9a-f]{34}\b/dg },
  { kind: 'Atlassian token', re: /(?<![A-Za-z0-9_-])ATATT3[A-Za-z0-9_=-]{150,250}/dg },
  {
    kind: 'Discord bot token',
    re: /(?<![A-Za-z0-9_-])[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}(?![A-Za-z0-9_-])/dg,
    check: hasDigitAndLetter,
  },
  { kind: 'Discord webhook', re: /https:\/\/(?:ptb\.|canary\.)?discord(?:app)?\.com\/api\/webhooks\/\d{5,25}\/[A-Za-z0-9_-]{40,100}/dg },
  { kind: 'Telegram bot token', re: /(?:(?<![A-Za-z0-9])|(?<=\/bot))\d{8,10}:AA[A-Za-z0-9_-]{33}(?![A-Za-z0-9_-])/dg },
  {
    kind: 'Azure connection string',
    re: /(?:AccountKey|SharedAccessKey)=([A-Za-z0-9+/]{20,200}={0,2})/dg,
    check: (s) => !isPlaceholder(s),
  },
  {
    // The header, or a bearer credential on its own; the scheme word alone ("a Bearer token") is prose.
    kind: 'authorization header',
    re: /\b(?:Proxy-)?Authorization["']?[ \t]{0,3}[:=][ \t]{0,3}["']?(?:(?:Bearer|Basic|Token|Digest|Bot|ApiKey|SSWS)[ \t]{1,3})?([A-Za-z0-9._~+/=-]{8,4096})|\bBearer[ \t]{1,3}([A-Za-z0-9._~+/-]{20,4096}=*)/dgi,
    check: (s) => !isPlaceholder(s) && !looksLikeWords(s) && (looksRandom(s, 16) || /[A-Z]/.test(s) && /[a-z]/.test(s) && s.length >= 16),
  },
  {
    // scheme://user:password@host. The user may be empty (redis://:pass@host); a port has no @ after it.
    kind: 'password in a web address',
    re: /(?<![a-z0-9+.-])[a-z][a-z0-9+.-]{1,20}:\/\/([^\s:/?#@"'<>]{0,128}:([^\s/?#@"'<>]{1,128})@)(?=[^\s/?#@:])/dgi,
    secretGroup: 2,
    check: (s) => !isPlaceholder(s),
  },
];

/** Hits of every shape above, each spanning the secret (its first capture group that matched, or the whole match). */
export function tokenHits(text: string): SecretHit[] {
  const hits: SecretHit[] = [];
  for (const shape of TOKEN_SHAPES) {
    hits.push(
      ...scanMatches(shape.re, text, (m) => {
        const shown = Math.max(0, m.findIndex((g, i) => i > 0 && g !== undefined));
        if (shape.check && !shape.check(m[shape.secretGroup ?? shown])) return null;
        return { kind: shape.kind, ...spanOf(m, shown) };
      }),
    );
  }
  return hits;
}
