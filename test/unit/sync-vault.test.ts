import { describe, expect, it, vi } from 'vitest';
import { fromUtf8, utf8 } from '../../lib/sync/bytes';
import {
  createVault,
  headerText,
  parseHeader,
  unlockWithPassphrase,
  unlockWithRecoveryKey,
  VaultError,
  type VaultHeader,
} from '../../lib/sync/vault';
import { DEFAULT_KDF, KDF_BOUNDS } from '../../lib/sync/vault-header';

// Argon2id is spied on so a test can tell it was never run for a header that was refused.
const argon = vi.hoisted(() => ({ calls: 0 }));
vi.mock('hash-wasm', async (orig) => {
  const real = await orig<typeof import('hash-wasm')>();
  return { ...real, argon2id: (o: Parameters<typeof real.argon2id>[0]) => (argon.calls++, real.argon2id(o)) };
});

const FAST = { memoryKiB: 8192, iterations: 1, parallelism: 1 };
const PASS = 'a meadow of purple turnips';

async function sameKey(a: CryptoKey, b: CryptoKey): Promise<boolean> {
  const derive = (k: CryptoKey) =>
    crypto.subtle.deriveBits({ name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(1), info: new Uint8Array(1) }, k, 256);
  return Buffer.from(await derive(a)).equals(Buffer.from(await derive(b)));
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a header being tampered with, field by field
type Loose = Record<string, any>;

function reparse(header: VaultHeader, change: (h: Loose) => void): VaultHeader {
  const json = JSON.parse(headerText(header));
  change(json);
  return parseHeader(utf8(JSON.stringify(json)));
}

describe('the vault header', () => {
  it('opens with the passphrase and with the recovery key, to the same vault key', async () => {
    const made = await createVault(PASS, FAST);
    const header = parseHeader(utf8(headerText(made.header)));
    const byPass = await unlockWithPassphrase(header, PASS);
    expect(await sameKey(byPass.key, made.vault.key)).toBe(true);
    expect(made.recoveryKey).toMatch(/^([A-Z2-7]{4}-){7}[A-Z2-7]{4}$/);
    // As a user might type it: lower case, spaces instead of dashes.
    const typed = made.recoveryKey.toLowerCase().replaceAll('-', ' ');
    const byRecovery = await unlockWithRecoveryKey(header, typed);
    expect(await sameKey(byRecovery.key, made.vault.key)).toBe(true);
    expect(byPass.key.extractable).toBe(false);
    await expect(crypto.subtle.exportKey('raw', byPass.key)).rejects.toThrow();
    // IndexedDB stores by structured clone: the key survives it and still derives the same keys.
    expect(await sameKey(structuredClone(byPass.key), made.vault.key)).toBe(true);
    expect(Buffer.from(byPass.digest).equals(Buffer.from(made.vault.digest))).toBe(true);
  });

  it('says a wrong passphrase or recovery key does not open it', async () => {
    const { header, recoveryKey } = await createVault(PASS, FAST);
    await expect(unlockWithPassphrase(header, 'a meadow of purple turnip')).rejects.toThrow(
      'That passphrase does not open the synced memory in this folder.',
    );
    const other = (await createVault(PASS, FAST)).recoveryKey;
    expect(other).not.toBe(recoveryKey);
    await expect(unlockWithRecoveryKey(header, other)).rejects.toThrow('That recovery key does not open');
    await expect(unlockWithRecoveryKey(header, 'ABCD-1234')).rejects.toThrow(/32 letters and digits/);
  });

  it('refuses to make a vault with a short passphrase', async () => {
    await expect(createVault('hunter2', FAST)).rejects.toThrow('A passphrase needs at least 10 characters');
  });

  it('normalises the passphrase, so a composed and a decomposed accent are the same passphrase', async () => {
    const { header } = await createVault('café crème', FAST);
    await expect(unlockWithPassphrase(header, 'cafe\u0301 cre\u0300me')).resolves.toBeTruthy();
  });

  it('fails to open when a parameter, the salt or a wrapped key was changed', async () => {
    const { header, recoveryKey } = await createVault(PASS, FAST);
    const changedIterations = reparse(header, (h) => (h.kdf.iterations = 2));
    await expect(unlockWithPassphrase(changedIterations, PASS)).rejects.toBeInstanceOf(VaultError);
    const otherSalt = (await createVault(PASS, FAST)).header.kdf.salt;
    const changedSalt = reparse(header, (h) => (h.kdf.salt = otherSalt));
    await expect(unlockWithPassphrase(changedSalt, PASS)).rejects.toThrow('does not open');
    await expect(unlockWithRecoveryKey(changedSalt, recoveryKey)).rejects.toThrow('does not open');
    const swapped = reparse(header, (h) => {
      [h.wrapped.passphrase, h.wrapped.recovery] = [h.wrapped.recovery, h.wrapped.passphrase];
    });
    await expect(unlockWithPassphrase(swapped, PASS)).rejects.toThrow('does not open');
    await expect(unlockWithRecoveryKey(swapped, recoveryKey)).rejects.toThrow('does not open');
    // The vault id is bound too: a header copied under another id does not open.
    const otherId = reparse(header, (h) => (h.vaultId = 'a'.repeat(26)));
    await expect(unlockWithPassphrase(otherId, PASS)).rejects.toThrow('does not open');
  });

  it('refuses crafted headers in words, without running Argon2id', async () => {
    const { header } = await createVault(PASS, FAST);
    const before = argon.calls;
    const crafted: [string, (h: Loose) => void, RegExp][] = [
      ['10 GB of memory', (h) => (h.kdf.memoryKiB = 10 * 1024 * 1024), /kdf\.memoryKiB/],
      ['an hour of passes', (h) => (h.kdf.iterations = 100_000), /kdf\.iterations/],
      ['the largest memory at the most passes', (h) => {
        h.kdf.memoryKiB = KDF_BOUNDS.memoryKiB.max;
        h.kdf.iterations = KDF_BOUNDS.iterations.max;
      }, /too large/],
      ['another kdf', (h) => (h.kdf.name = 'pbkdf2'), /kdf\.name/],
      ['a fractional parameter', (h) => (h.kdf.parallelism = 1.5), /kdf\.parallelism/],
      ['a short salt', (h) => (h.kdf.salt = 'AAAA'), /kdf\.salt/],
      ['a wrapped key of the wrong size', (h) => (h.wrapped.passphrase.data = 'AAAA'), /wrapped\.passphrase\.data/],
      ['an id with a path in it', (h) => (h.vaultId = '../../etc/passwdxxxxxx'), /vaultId/],
      ['an unknown field', (h) => (h.note = 'hi'), /note/],
    ];
    for (const [, change, where] of crafted) {
      const json = JSON.parse(headerText(header));
      change(json);
      expect(() => parseHeader(utf8(JSON.stringify(json)))).toThrow(where);
      // Handed in without parseHeader, unlocking refuses it the same way.
      await expect(unlockWithPassphrase(json as VaultHeader, PASS)).rejects.toThrow(/not a Backstory sync header/);
    }
    expect(() => parseHeader(utf8('not json'))).toThrow('it is not JSON');
    expect(() => parseHeader(utf8(' '.repeat(5000)))).toThrow(/more than a header/);
    expect(() => parseHeader(utf8(JSON.stringify({ format: 'backstory-sync', version: 2 })))).toThrow(/another version/);
    expect(argon.calls).toBe(before);
  });

  it('holds nothing in clear but its parameters', async () => {
    const { header, recoveryKey } = await createVault(PASS, FAST);
    const text = headerText(header);
    expect(text).not.toContain(PASS);
    expect(text.toUpperCase()).not.toContain(recoveryKey.replaceAll('-', ''));
    expect(Object.keys(JSON.parse(text)).sort()).toEqual(['format', 'kdf', 'vaultId', 'version', 'wrapped']);
    expect(fromUtf8(utf8(text))).toBe(text);
  });

  it('uses the default parameters unless told, within what a reader accepts', async () => {
    const { header } = await createVault(PASS);
    expect(header.kdf).toMatchObject(DEFAULT_KDF);
    expect(() => parseHeader(utf8(headerText(header)))).not.toThrow();
  });
});
