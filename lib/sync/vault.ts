// The vault (docs/sync.md, "The header"): making a synced memory's key, wrapping it for the passphrase and the
// recovery key, and unlocking it on a device. A wrong passphrase is known by the failed unwrap, before anything
// else is read or written.
import { argon2id } from 'hash-wasm';
import { buf, fromBase32, fromBase64, randomBytes, randomId, toBase32, toBase64, utf8 } from './bytes';
import {
  DEFAULT_KDF,
  HEADER_FORMAT,
  HEADER_VERSION,
  VaultError,
  canonicalHeader,
  checkHeader,
  headerDigest,
  type VaultHeader,
} from './vault-header';

export { VaultError, parseHeader, headerText, type VaultHeader } from './vault-header';

/** An unlocked vault: what sealing and opening files needs. */
export interface Vault {
  vaultId: string;
  header: VaultHeader;
  /** SHA-256 of the header's canonical form. */
  digest: Uint8Array;
  /** The vault key, non-extractable, for HKDF only (IndexedDB can keep it as it is). */
  key: CryptoKey;
}

const RECOVERY_BYTES = 20;
export const MIN_PASSPHRASE = 10;
const RECOVERY_INFO = utf8('backstory sync v1 recovery');

/** The passphrase's key: Argon2id with the header's parameters. The passphrase is NFC so every keyboard types the same. */
async function passphraseKey(kdf: VaultHeader['kdf'], passphrase: string): Promise<CryptoKey> {
  const raw = await argon2id({
    password: passphrase.normalize('NFC'),
    salt: fromBase64(kdf.salt)!,
    iterations: kdf.iterations,
    memorySize: kdf.memoryKiB,
    parallelism: kdf.parallelism,
    hashLength: 32,
    outputType: 'binary',
  });
  const key = await crypto.subtle.importKey('raw', buf(raw), 'AES-GCM', false, ['encrypt', 'decrypt']);
  raw.fill(0);
  return key;
}

/** The recovery key's key: HKDF-SHA-256 of its 20 random bytes (they need no stretching), salted by the header. */
async function recoveryKey(header: VaultHeader, bytes: Uint8Array): Promise<CryptoKey> {
  const ikm = await crypto.subtle.importKey('raw', buf(bytes), 'HKDF', false, ['deriveKey']);
  return crypto.subtle.deriveKey(
    { name: 'HKDF', hash: 'SHA-256', salt: buf(fromBase64(header.kdf.salt)!), info: buf(RECOVERY_INFO) },
    ikm,
    { name: 'AES-GCM', length: 256 },
    false,
    ['encrypt', 'decrypt'],
  );
}

/** Shows a recovery key as eight groups of four base32 characters. */
export function formatRecoveryKey(bytes: Uint8Array): string {
  return toBase32(bytes).match(/.{1,4}/g)!.join('-');
}

/** Reads a recovery key as the user typed it: any case, spaces or dashes between groups. */
export function parseRecoveryKey(text: string): Uint8Array {
  const compact = text.replace(/[\s-]+/g, '');
  const bytes = compact.length === 32 ? fromBase32(compact) : undefined;
  if (!bytes || bytes.length !== RECOVERY_BYTES) {
    throw new VaultError(
      'bad-recovery-key',
      'A recovery key is 32 letters and digits (A to Z, 2 to 7) in eight groups of four, like ABCD-EFGH-…; check what you typed.',
    );
  }
  return bytes;
}

async function wrap(key: CryptoKey, aad: Uint8Array, vaultKey: Uint8Array) {
  const iv = randomBytes(12);
  const data = new Uint8Array(
    await crypto.subtle.encrypt({ name: 'AES-GCM', iv: buf(iv), additionalData: buf(aad) }, key, buf(vaultKey)),
  );
  return { iv: toBase64(iv), data: toBase64(data) };
}

async function unwrap(header: VaultHeader, key: CryptoKey, which: 'passphrase' | 'recovery'): Promise<Vault | undefined> {
  const w = header.wrapped[which];
  let raw: Uint8Array;
  try {
    raw = new Uint8Array(
      await crypto.subtle.decrypt(
        { name: 'AES-GCM', iv: buf(fromBase64(w.iv)!), additionalData: buf(canonicalHeader(header)) },
        key,
        buf(fromBase64(w.data)!),
      ),
    );
  } catch {
    return undefined;
  }
  return toVault(header, raw);
}

async function toVault(header: VaultHeader, raw: Uint8Array): Promise<Vault> {
  const key = await crypto.subtle.importKey('raw', buf(raw), 'HKDF', false, ['deriveKey', 'deriveBits']);
  raw.fill(0);
  return { vaultId: header.vaultId, header, digest: await headerDigest(header), key };
}

export interface NewVault {
  vault: Vault;
  header: VaultHeader;
  /** Shown to the user once; never stored. */
  recoveryKey: string;
}

/** Makes a new synced memory's vault: a random key, wrapped for the passphrase and a new recovery key. */
export async function createVault(
  passphrase: string,
  kdf: { memoryKiB: number; iterations: number; parallelism: number } = DEFAULT_KDF,
): Promise<NewVault> {
  // The header sits in a folder others may read; a short passphrase falls to guessing whatever Argon2id costs.
  if ([...passphrase.normalize('NFC')].length < MIN_PASSPHRASE) {
    throw new VaultError('weak-passphrase', `A passphrase needs at least ${MIN_PASSPHRASE} characters; a few words are easier to remember.`);
  }
  const vaultKey = randomBytes(32);
  const recovery = randomBytes(RECOVERY_BYTES);
  const unwrapped: VaultHeader = {
    format: HEADER_FORMAT,
    version: HEADER_VERSION,
    vaultId: randomId(),
    kdf: { name: 'argon2id', ...kdf, salt: toBase64(randomBytes(16)) },
    wrapped: { passphrase: { iv: '', data: '' }, recovery: { iv: '', data: '' } },
  };
  const aad = canonicalHeader(unwrapped);
  const header: VaultHeader = {
    ...unwrapped,
    wrapped: {
      passphrase: await wrap(await passphraseKey(unwrapped.kdf, passphrase), aad, vaultKey),
      recovery: await wrap(await recoveryKey(unwrapped, recovery), aad, vaultKey),
    },
  };
  const vault = await toVault(header, vaultKey);
  const shown = formatRecoveryKey(recovery);
  recovery.fill(0);
  return { vault, header, recoveryKey: shown };
}

/** Unlocks a vault with its passphrase, or throws VaultError('wrong-passphrase') in the user's words. */
export async function unlockWithPassphrase(given: VaultHeader, passphrase: string): Promise<Vault> {
  const header = checkHeader(given);
  const vault = await unwrap(header, await passphraseKey(header.kdf, passphrase), 'passphrase');
  if (!vault) throw new VaultError('wrong-passphrase', 'That passphrase does not open the synced memory in this folder.');
  return vault;
}

/** Unlocks a vault with its recovery key as the user typed it. */
export async function unlockWithRecoveryKey(given: VaultHeader, typed: string): Promise<Vault> {
  const header = checkHeader(given);
  const bytes = parseRecoveryKey(typed);
  const vault = await unwrap(header, await recoveryKey(header, bytes), 'recovery');
  bytes.fill(0);
  if (!vault) throw new VaultError('wrong-recovery-key', 'That recovery key does not open the synced memory in this folder.');
  return vault;
}
