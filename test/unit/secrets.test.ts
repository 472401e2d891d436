import { describe, expect, it } from 'vitest';
import { findSecretHits, findSecrets, secretHoldReason } from '../../lib/memory/secrets';
import { MAX_MATCHES_PER_SHAPE } from '../../lib/memory/secrets-scan';

// Token-shaped samples are built from two halves so that secret scanners reading this repository do not take these
// made-up values for leaked ones.
const j = (...parts: string[]) => parts.join('');

/** A made-up token body: `n` characters of `alphabet`, the same on every run. */
function body(alphabet: string, n: number, seed = 7): string {
  let x = seed;
  let out = '';
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    out += alphabet[(x >>> 16) % alphabet.length];
  }
  return out;
}
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const URLSAFE = `${ALNUM}_-`;
const HEX = '0123456789abcdef';
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** [the kind the review shows, text a user might paste]. Each must be held. */
const HELD: [string, string][] = [
  // Assignments whose name ends in PASSWORD or SECRET_ACCESS_KEY (a `\b` after `_` never matched them).
  ['AWS secret key', j('AWS_SECRET_', 'ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq8Hd3Tk1L')],
  ['AWS secret key', j('aws_secret_access_key', ' = 9drTJvcXLB89EXAMPLEKEY+Zk2b7yJq0PZ3vKc1d')],
  ['password', 'DB_PASSWORD=s3cr3tpass'],
  ['password', 'export DB_PASSWORD="pa55word!"'],
  ['password', 'MYSQL_ROOT_PASSWORD: Winter2024'],
  // Short passwords and the ways people write them.
  ['password', 'password: hunter22'],
  ['password', 'Password: Tr0ub4dor&3'],
  ['password', 'my password is hunter22'],
  ['password', 'The password is "correct horse battery staple"'],
  ['password', 'the wifi password for the office is Guest2024!'],
  ['password', 'pwd=qwerty123'],
  ['password', 'SMTP_HOST=mail.example.com\nSMTP_PASS=bluebird\n'],
  ['password', 'the password was Hunter22'],
  ['password', 'my gmail password is sunshine'],
  ['password', 'Das WLAN-Passwort ist Sonnenblume.'],
  ['password', 'adminPassword: "Winter2024!"'],
  ['password', '{"username": "alice", "password": "hunter22"}'],
  ['password', 'login: alice\nPassword: sunshine\n'],
  ['password', 'machine api.example.com login alice password hunter22'],
  ['password', 'passphrase = "blue cactus 77"'],
  // Other languages.
  ['password', 'Passwort: Sommer2024'],
  ['password', 'Das Passwort ist Sommer2024!'],
  ['password', 'Kennwort: Geheim!42'],
  ['password', 'mot de passe : soleil123'],
  ['password', 'Le mot de passe est soleil123'],
  ['password', 'contraseña: Gato1234'],
  ['password', 'la contraseña es Gato1234'],
  ['password', 'senha: banana99'],
  ['password', 'wachtwoord: fiets2023'],
  ['password', 'пароль: qwerty123'],
  ['password', 'Пароль: Zima2024'],
  ['password', '密码：abc12345'],
  ['password', 'パスワード: sakura2024'],
  ['password', '비밀번호: hangul1234'],
  ['password', 'hasło: Kotek123'],
  ['password', 'lösenord: Sommar2024'],
  // PINs and card security codes.
  ['PIN', 'PIN: 4821'],
  ['PIN', 'PIN code: 90210'],
  ['PIN', 'my bank card PIN is 7391'],
  ['PIN', 'PIN-Code: 739155'],
  ['card security code', 'CVV: 123'],
  ['card security code', 'exp 12/27, CVC 4821'],
  // Web addresses that carry a password.
  ['password in a web address', 'https://alice:s3cret@example.com/path'],
  ['password in a web address', 'https://user:pass@host'],
  ['password in a web address', 'postgres://u:p@h/db'],
  ['password in a web address', 'DATABASE_URL=mongodb+srv://admin:Hunter22@cluster0.abcde.mongodb.net/test'],
  ['password in a web address', 'redis://:mypass@localhost:6379/0'],
  // Card numbers: Luhn-valid, with spaces, dashes or none, 13-19 digits.
  ['card number', '4111 1111 1111 1111'],
  ['card number', 'card 5555-5555-5555-4444 exp 09/28'],
  ['card number', '378282246310005'],
  ['card number', 'Amex 3782 822463 10005'],
  ['card number', '6011111111111117'],
  ['card number', 'my card is 4012888888881881.'],
  ['card number', 'Diners 30569309025904'],
  ['card number', 'JCB 3530 1113 3330 0000'],
  ['card number', 'old visa 4222222222222'],
  ['card number', 'Card: 4242 4242 4242 4242 exp 12/27'],
  ['card number', '5105105105105100'],
  // IBANs: mod-97 checked, with or without spaces, any case.
  ['bank account number (IBAN)', 'DE89 3704 0044 0532 0130 00'],
  ['bank account number (IBAN)', 'Please pay to GB82WEST12345698765432 by Friday'],
  ['bank account number (IBAN)', 'FR14 2004 1010 0505 0001 3M02 606'],
  ['bank account number (IBAN)', 'IBAN: NL91ABNA0417164300'],
  ['bank account number (IBAN)', 'send it to iban ch9300762011623852957 please'],
  ['bank account number (IBAN)', 'ES91 2100 0418 4502 0005 1332.'],
  // Service tokens.
  ['Slack webhook', j('https://hooks.slack.com/services/', 'T024BE7LD/B01ABCDEF12/abcdefGhijklMnop1234qrst')],
  ['GitLab token', j('glpat-', 'xK9mP2vQ7rT4wY8zB3nL')],
  ['npm token', j('//registry.npmjs.org/:_authToken=npm_', 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8')],
  ['Hugging Face token', j('HF token hf_', 'aBcDeFgHiJkLmNoPqRsTuVwXyZaBcDeFgH')],
  ['SendGrid key', j('SG.', 'ngeVfQFYQlKU0ufo8x5d1A', '.', 'TwL2iGABf9DHoTf-09kqeF8tAmbihYzrnopKc-1s5cr')],
  ['Twilio key', j('SK', '0123456789abcdef0123456789abcdef')],
  ['Twilio key', j('account AC', 'a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6')],
  ['private key', '-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIFHDBOBgkqhkiG9w0BBQ0wQTApBgkqhkiG9w0BBQwwHAQI\n'],
  ['private key', 'PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\n'],
  ['private key', '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ\n'],
  ['private key', '-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQdGBF4'],
  ['authorization header', 'curl -H "Authorization: Bearer abc123def456ghi789jkl" https://api.example.com'],
  ['authorization header', 'Authorization: Basic YWxhZGRpbjpvcGVuc2VzYW1l'],
  ['Azure connection string', j('DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=', 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==', ';EndpointSuffix=core.windows.net')],
  ['Azure connection string', j('Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=', 'mT3kq7yB0z9u4bXw8yPZ2vH1Qp6d5Lr0sNfJxCgE3aA=')],
  ['Google OAuth client secret', j('"client_secret": "GOCSPX-', 'aB3dE5fG7hI9jK1lM3nO5pQ7rS9t"')],
  ['Google sign-in token', j('ya29.', 'a0AfH6SMBx1y2Z3w4V5u6T7s8R9q0P1o2N3m4L5k6J7i8H9g0F')],
  ['Discord bot token', j('MTIzNDU2Nzg5MDEyMzQ1Njc4', '.GhJkLm.', 'aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789ab')],
  ['Discord webhook', j('https://discord.com/api/webhooks/123456789012345678/', 'aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789aBcDeFgHiJkLmNoPqRsTuVwXyZ01234')],
  ['Telegram bot token', j('bot token 123456789:AA', 'HdqTcvCH1vGWJxfSeofSAs0K5PALDsaw3')],
  ['client secret', '"client_secret": "8Q~abcDEF123ghiJKL456mnoPQR789stu"'],
  ['client secret', 'CLIENT_SECRET=f3a9c27b51e84d06a7c2'],
  // .env style names ending in SECRET, TOKEN or KEY with a real value.
  ['API key or token', 'JWT_SECRET=9f86d081884c7d659a2feaa0c55ad015'],
  ['API key or token', 'SESSION_TOKEN=Zx8fQ2mN7pL4kR9s'],
  ['API key or token', 'MY_SERVICE_API_KEY=abcd1234efgh5678ijkl'],
  ['API key or token', 'apiKey: "4f9a2c7e1b8d3f6a"'],
  ['API key or token', 'ENCRYPTION_KEY=Kq7yB0z9u4bXw8yPZ2vH'],
  ['API key or token', 'token = "fd82b1c94e7a03d5"'],
  // More of each vendor's shapes, with generated bodies.
  ['GitLab token', `CI uses ${j('gldt-', body(URLSAFE, 20, 1))} to deploy`],
  ['GitLab token', `runner token ${j('glrt-', body(URLSAFE, 24, 2))}`],
  ['npm token', `NPM_TOKEN=${j('npm_', body(ALNUM, 36, 3))}`],
  ['Hugging Face token', `export HF_TOKEN="${j('hf_', body(ALNUM, 34, 4))}"`],
  ['SendGrid key', `SENDGRID_API_KEY=${j('SG.', body(URLSAFE, 22, 5), '.', body(URLSAFE, 43, 6))}`],
  ['Twilio key', `TWILIO_AUTH=${j('SK', body(HEX, 32, 7))} for sms`],
  ['Slack webhook', `post to ${j('https://hooks.slack.com/', 'workflows/T01234567/A0123456789/', body(ALNUM, 24, 8))}`],
  ['Google OAuth client secret', `GOOGLE_CLIENT_SECRET=${j('GOCSPX-', body(URLSAFE, 28, 9))}`],
  ['Google sign-in token', `refresh_token: ${j('1//0', body(URLSAFE, 60, 10))}`],
  ['Discord bot token', `DISCORD_TOKEN=${j('OTk', body(URLSAFE, 21, 11), '.', body(URLSAFE, 6, 12), '.', body(URLSAFE, 38, 13))}`],
  ['Telegram bot token', `https://api.telegram.org/bot${j('7012345678:AA', body(URLSAFE, 33, 14))}/sendMessage`],
  ['Azure connection string', `AccountKey=${j(body(ALNUM, 86, 15), '==')};`],
  ['PyPI token', `password = ${j('pypi-AgEIcHlwaS5vcmc', body(URLSAFE, 70, 16))}`],
  ['Shopify token', `X-Shopify-Access-Token: ${j('shpat_', body(HEX, 32, 17))}`],
  ['DigitalOcean token', j('dop_v1_', body(HEX, 64, 18))],
  ['Mailchimp key', `mailchimp ${j(body(HEX, 32, 19), '-us21')}`],
  ['Databricks token', `DATABRICKS_TOKEN=${j('dapi', body(HEX, 32, 20))}`],
  ['Square token', j('sq0atp-', body(URLSAFE, 22, 21))],
  ['Notion token', `NOTION_KEY=${j('ntn_', body(ALNUM, 46, 22))}`],
  ['Linear key', j('lin_api_', body(ALNUM, 40, 23))],
  ['Postman key', j('PMAK-', body(HEX, 24, 24), '-', body(HEX, 34, 25))],
  ['Atlassian token', j('ATATT3', body(URLSAFE, 180, 26))],
  ['private key', j('AGE-SECRET-KEY-1', body(UPPER, 58, 27))],
  ['private key', '---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----\nComment: "rsa-key"'],
  ['AWS access key', `aws_access_key_id = ${j('ASIA', body(UPPER, 16, 28))}`],
  ['JSON web token', `Cookie: session=${j('eyJhbGciOiJSUzI1NiIsImtpZCI6IjEifQ', '.eyJzdWIiOiJhbGljZSJ9.', body(URLSAFE, 86, 29))}`],
  ['authorization header', `{"headers": {"Authorization": "Bearer ${body(ALNUM, 40, 30)}"}}`],
  ['Stripe key', j('whsec_', body(ALNUM, 32, 31))],
  // Shapes found before, still held.
  ['AWS access key', 'deploy with AKIAIOSFODNN7EXAMPLE and the usual bucket'],
  ['GitHub token', j('token ghp_', 'abcdefghijklmnopqrstuvwxyz0123456789ABCD')],
  ['OpenAI or Anthropic key', j('OPENAI_API_KEY=sk-proj-', 'abcdefghijklmnopqrstuvwx1234')],
  ['OpenAI or Anthropic key', j('sk-ant-api03-', 'aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789')],
  ['Slack token', j('xoxb-', '1234567890-abcdefghijkl')],
  ['Stripe key', j('sk_live_', '4eC39HqLyjWDarjtT1zdp7dc')],
  ['Google API key', j('AIza', 'SyD-abcdefghijklmnopqrstuvwxyz01234')],
  ['JSON web token', j('eyJhbGciOiJIUzI1NiJ9', '.eyJzdWIiOiIxMjM0NTY3ODkwIn0', '.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U')],
];

/** Text that must not be held: prose about secrets, placeholders, and numbers that only look like cards or IBANs. */
const NOT_HELD: string[] = [
  'I forgot my password again',
  'Reset your password from the settings page; the API key rotates monthly.',
  'the PIN code policy requires six digits',
  'token economy in behavioral therapy',
  'We talked about the password manager and the secret santa list.',
  'Password reset: done',
  'Your password: at least 12 characters and one symbol.',
  'Passwort: mindestens 12 Zeichen',
  'Kennwort vergessen? Kein Problem.',
  'mot de passe oublié',
  'The password is wrong',
  'The password is incorrect.',
  'the password is expired',
  'Your password is too weak.',
  'the password is fine.',
  'The new password is saved.',
  'Das Passwort ist falsch.',
  'the password is required',
  'my password is too short',
  'My password is 12 characters long',
  'PIN: see the letter from the bank',
  'The PIN is 4 digits long',
  'Das Passwort ist abgelaufen.',
  'le mot de passe est trop court',
  'Mi contraseña es segura',
  'Password: 8+ characters',
  'password: stored in 1Password',
  'Password Manager: Bitwarden',
  'the wifi password is on the fridge',
  '| password | string | required |',
  'token: ERC-20',
  'API key: see the dashboard',
  'Answer key: B, C, A, D',
  'PIN: 12',
  'Pin it to the board: 4 items',
  // Placeholders and references to a value kept elsewhere.
  'password: <your password>',
  'password: ********',
  'password: changeme',
  'password: none',
  "password: ''",
  'API_KEY=xxx',
  'API_KEY=XXXXXXXXXXXXXXXX',
  'API_KEY=your_api_key_here',
  'API_KEY=${API_KEY}',
  'SECRET_KEY=<replace me>',
  'DB_PASSWORD=',
  'PASSWORD=$DB_PASS',
  'password = process.env.DB_PASSWORD',
  'token: null',
  'GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}',
  'PWD=/home/alice/project',
  'SORT_KEY=created_at',
  'PRIMARY_KEY=id',
  'CACHE_KEY_PREFIX=app',
  'boarding pass: AB1234',
  'monkey: banana, turkey: 12345678',
  'The Authorization header carries a Bearer token.',
  'Authorization: Bearer <token>',
  'Use sk-learn for the model',
  // Code that names a secret without holding one.
  'exports.isArrowToken = isArrowToken;',
  'if ("password"===a.type||"search"===a.type) return;',
  'var inputTypes = {number:!0,password:!0,range:!0,search:!0};',
  "const getAuthToken = require('registry-auth-token')",
  "{token: 'someToken', type: 'Bearer'}",
  'this.#t.password = this.#c();',
  'password = user.password',
  "kind = name.endsWith('clientsecret') ? 'client secret' : 'API key or token';",
  'db.password=multi word pass',
  'token = tokens[i];',
  'accessKey: spaceSeparated,',
  'sign({ privateKey: secretOrPrivateKey, header })',
  'WRONG_PASSWORD: "Wrong Password",',
  'exports.isJSXToken = isJSXToken;',
  'o.key=t?r.C0.ESC+`OA`:r.C0.ESC+`[A`;break;',
  'r.pCancelToken=r.CancelToken=e("./CancelToken")',
  'password = strict;',
  'const pass = expectedTrimmed === (rawSnapshot)',
  'E:()=>ar,ERR_INVALID_PASSWORD:()=>Mt,ERR_INVALID_KEY:()=>Nt',
  'ftp.login(user = "anonymous", password = "guest")',
  // Near misses of vendor shapes: too short, wrong case or alphabet, or words.
  'ghp_short and glpat-short',
  `npm_${body(ALNUM, 35, 40)} is one short`,
  'hf_model_name = "bert-base"',
  `SK${body(HEX, 32, 41).toUpperCase()}`,
  `AC${body(HEX, 31, 42)}`,
  'AKIA12345 is not a key id',
  'Use sk-my-very-long-hyphenated-name-here for nothing',
  'eyJhbGciOiJIUzI1NiJ9 alone is only a header',
  'Mozilla.firefox.desktopapplication',
  'SG.x.y is a placeholder',
  'see hooks.slack.com/services for details',
  // Numbers that are not card numbers or IBANs.
  'score: 0.5768911502526741',
  '│ 10.088643060721703 │ 12.58113134631177 │',
  'Order #4111111111111112',
  'Order number 1234 5678 9012 3456',
  'Amazon order 114-1234567-1234567',
  'call +4915123456787 tomorrow',
  'call +1 (555) 123-4567',
  'office +44 20 7946 0958',
  'ISBN 978-3-16-148410-0',
  'ISBN 9780306406157',
  'created 1700000000000',
  'meeting on 2024-01-15 at 10:30, or 15.01.2024',
  'Chrome/120.0.6099.109 on v1.2.3',
  'id 123e4567-e89b-12d3-a456-426614174000',
  'commit 9fceb02d0ae598e95dc970b74767f19372d61af8',
  'DE89 3704 0044 0532 0130 01',
  'GB82WEST12345698765433',
  'AB12 CD34 is the room code',
  // Addresses that are not credentials.
  'write to alice@example.com',
  'see https://example.com:8080/path?user=alice@example.com',
  'ssh git@github.com:owner/repo.git',
];

describe('secrets held for review', () => {
  it.each(HELD)('holds %s in %j', (kind, text) => {
    expect(findSecrets(text)).toContain(kind);
  });

  it.each(NOT_HELD)('does not hold %j', (text) => {
    expect(findSecrets(text)).toEqual([]);
  });

  it('names each kind once, the specific one rather than a generic assignment', () => {
    const text = j('OPENAI_API_KEY=sk-proj-', 'abcdefghijklmnopqrstuvwx1234\npassword: hunter22\nDB_PASSWORD=hunter33');
    expect(findSecrets(text)).toEqual(['OpenAI or Anthropic key', 'password']);
  });

  it('says where each secret is, so the review can show it', () => {
    const text = 'prod: postgres://app:Hunter22@db.internal/main and card 4111 1111 1111 1111.';
    const hits = findSecretHits(text);
    expect(hits.map((h) => [h.kind, text.slice(h.start, h.end)])).toEqual([
      ['password in a web address', 'app:Hunter22@'],
      ['card number', '4111 1111 1111 1111'],
    ]);
  });

  it('gives the review one readable reason naming each kind once', () => {
    const text = 'password: hunter22\ncard 4111 1111 1111 1111\nDB_PASSWORD=Hunter33!';
    expect(secretHoldReason(findSecrets(text))).toBe('it looks like it contains a secret (password, card number)');
  });

  it('keeps the list of hits short when a file is full of them, and still finds a card after many look-alikes', () => {
    const cards = '4111 1111 1111 1111\n'.repeat(5000);
    expect(findSecretHits(cards).length).toBe(MAX_MATCHES_PER_SHAPE);
    const orders = 'order 4111 1111 1111 1112\n'.repeat(5000);
    expect(findSecrets(`${orders}card 4111 1111 1111 1111`)).toEqual(['card number']);
  });

  it('points at the password value, not the label', () => {
    const text = 'Passwort: Sommer2024!\n';
    const [hit] = findSecretHits(text);
    expect(text.slice(hit.start, hit.end)).toBe('Sommer2024!');
  });
});
