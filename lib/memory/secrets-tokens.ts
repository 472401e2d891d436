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
  /**
   * Text the shape cannot match without (lower case for a case-blind regex): most texts hold none of them, and
   * looking for a few words costs far less than running the regex.
   */
  needs?: string[];
}

const hasDigitAndLetter = (s: string) => /\d/.test(s) && /[A-Za-z]/.test(s);

export const TOKEN_SHAPES: TokenShape[] = [
  { kind: 'private key', needs: ['PRIVATE KEY', 'PuTTY-User-Key-File-', 'AGE-SECRET-KEY-'], re: /-----BEGIN (?:[A-Z0-9]{1,12} ){0,2}PRIVATE KEY(?: BLOCK)?-----|---- BEGIN SSH2 (?:ENCRYPTED )?PRIVATE KEY ----|PuTTY-User-Key-File-\d{1,2}:|AGE-SECRET-KEY-1[0-9A-Z]{58}/dg },
  { kind: 'AWS access key', needs: ['AKIA', 'ASIA', 'ABIA', 'ACCA'], re: /(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}(?![A-Za-z0-9])/dg },
  {
    kind: 'AWS secret key', needs: ['secret'],
    re: /aws[_-]?secret[_-]?(?:access[_-]?)?key(?:[_-]?id)?["']?[ \t]{0,3}[:=][ \t]{0,3}["']?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])/dgi,
  },
  { kind: 'GitHub token', needs: ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_', 'github_pat_'], re: /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255}\b|\bgithub_pat_[A-Za-z0-9_]{60,255}\b/dg },
  { kind: 'GitLab token', needs: ['gl', 'GR1348941'], re: /(?<![A-Za-z0-9_-])gl(?:pat|dt|rt|ptt|ft|soat|cbt|imt|agent)-[A-Za-z0-9_-]{20,64}|(?<![A-Za-z0-9_-])GR1348941[A-Za-z0-9_-]{20,64}/dg },
  { kind: 'OpenAI or Anthropic key', needs: ['sk-'], re: /(?<![A-Za-z0-9_-])sk-(?:ant-(?:api|admin)\d{2}-|proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,300}/dg, check: hasDigitAndLetter },
  { kind: 'Slack token', needs: ['xox'], re: /(?<![A-Za-z0-9_-])xox[abposre]-[A-Za-z0-9-]{10,250}/dg, check: (s) => /\d/.test(s) },
  { kind: 'Slack webhook', needs: ['hooks.slack.com'], re: /https:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9_/-]{20,200}/dg },
  { kind: 'Stripe key', needs: ['_live_', '_test_', 'whsec_'], re: /\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,255}|\bwhsec_[A-Za-z0-9]{24,255}/dg },
  { kind: 'Google API key', needs: ['AIza'], re: /\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/dg },
  { kind: 'Google OAuth client secret', needs: ['GOCSPX-'], re: /\bGOCSPX-[A-Za-z0-9_-]{28}(?![A-Za-z0-9_-])/dg },
  { kind: 'Google sign-in token', needs: ['ya29.', '1//0'], re: /(?<![A-Za-z0-9_-])ya29\.[A-Za-z0-9_-]{20,2048}|(?<![A-Za-z0-9/])1\/\/0[A-Za-z0-9_-]{40,512}/dg },
  {
    kind: 'JSON web token', needs: ['eyJ'],
    re: /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{10,400}\.eyJ[A-Za-z0-9_-]{10,4000}\.[A-Za-z0-9_-]{10,1000}/dg,
  },
  { kind: 'npm token', needs: ['npm_'], re: /\bnpm_[A-Za-z0-9]{36}(?![A-Za-z0-9])/dg },
  { kind: 'PyPI token', needs: ['pypi-'], re: /\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,300}/dg },
  { kind: 'Hugging Face token', needs: ['hf_'], re: /\bhf_[A-Za-z0-9]{30,40}(?![A-Za-z0-9])/dg, check: (s) => /[A-Z]/.test(s) && /[a-z]/.test(s) },
  { kind: 'SendGrid key', needs: ['SG.'], re: /\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/dg },
  { kind: 'Twilio key', needs: ['SK', 'AC'], re: /\b(?:SK|AC)[0-9a-f]{32}\b/dg },
  { kind: 'Mailchimp key', needs: ['-us'], re: /\b[0-9a-f]{32}-us\d{1,2}\b/dg },
  { kind: 'Shopify token', needs: ['shp'], re: /\bshp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}\b/dg },
  { kind: 'DigitalOcean token', needs: ['_v1_'], re: /\bdo[por]_v1_[a-f0-9]{64}\b/dg },
  { kind: 'Databricks token', needs: ['dapi'], re: /\bdapi[0-9a-f]{32}(?:-\d)?\b/dg },
  { kind: 'Square token', needs: ['sq0'], re: /(?<![A-Za-z0-9_-])sq0(?:atp|csp)-[0-9A-Za-z_-]{22,43}/dg },
  { kind: 'Notion token', needs: ['secret_', 'ntn_'], re: /\b(?:secret_[A-Za-z0-9]{43}|ntn_[A-Za-z0-9]{40,50})\b/dg, check: hasDigitAndLetter },
  { kind: 'Linear key', needs: ['lin_'], re: /\blin_(?:api|oauth)_[A-Za-z0-9]{40}\b/dg },
  { kind: 'Postman key', needs: ['PMAK-'], re: /\bPMAK-[0-9a-f]{24}-[0-9a-f]{34}\b/dg },
  { kind: 'Atlassian token', needs: ['ATATT3'], re: /(?<![A-Za-z0-9_-])ATATT3[A-Za-z0-9_=-]{150,250}/dg },
  {
    kind: 'Discord bot token',
    re: /(?<![A-Za-z0-9_-])[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}(?![A-Za-z0-9_-])/dg,
    check: hasDigitAndLetter,
  },
  { kind: 'Discord webhook', needs: ['discord'], re: /https:\/\/(?:ptb\.|canary\.)?discord(?:app)?\.com\/api\/webhooks\/\d{5,25}\/[A-Za-z0-9_-]{40,100}/dg },
  { kind: 'Telegram bot token', needs: [':AA'], re: /(?:(?<![A-Za-z0-9])|(?<=\/bot))\d{8,10}:AA[A-Za-z0-9_-]{33}(?![A-Za-z0-9_-])/dg },
  {
    kind: 'Azure connection string', needs: ['AccountKey=', 'SharedAccessKey='],
    re: /(?:AccountKey|SharedAccessKey)=([A-Za-z0-9+/]{20,200}={0,2})/dg,
    check: (s) => !isPlaceholder(s),
  },
  {
    // The header, or a bearer credential on its own; the scheme word alone ("a Bearer token") is prose.
    kind: 'authorization header', needs: ['authorization', 'bearer'],
    re: /\b(?:Proxy-)?Authorization["']?[ \t]{0,3}[:=][ \t]{0,3}["']?(?:(?:Bearer|Basic|Token|Digest|Bot|ApiKey|SSWS)[ \t]{1,3})?([A-Za-z0-9._~+/=-]{8,4096})|\bBearer[ \t]{1,3}([A-Za-z0-9._~+/-]{20,4096}=*)/dgi,
    check: (s) => !isPlaceholder(s) && !looksLikeWords(s) && (looksRandom(s, 16) || /[A-Z]/.test(s) && /[a-z]/.test(s) && s.length >= 16),
  },
  {
    // scheme://user:password@host. The user may be empty (redis://:pass@host); a port has no @ after it.
    kind: 'password in a web address', needs: ['://'],
    re: /(?<![a-z0-9+.-])[a-z][a-z0-9+.-]{1,20}:\/\/([^\s:/?#@"'<>]{0,128}:([^\s/?#@"'<>]{1,128})@)(?=[^\s/?#@:])/dgi,
    secretGroup: 2,
    check: (s) => !isPlaceholder(s),
  },
];

/** Hits of every shape above, each spanning the secret (its first capture group that matched, or the whole match). */
export function tokenHits(text: string): SecretHit[] {
  const hits: SecretHit[] = [];
  let lower: string | undefined;
  for (const shape of TOKEN_SHAPES) {
    if (shape.needs) {
      const haystack = shape.re.ignoreCase ? (lower ??= text.toLowerCase()) : text;
      if (!shape.needs.some((n) => haystack.includes(n))) continue;
    }
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
