// Sealed files (docs/sync.md, "Sealed files"): magic | kind | salt | iv | AES-256-GCM of deflated JSON. Each file has
// its own key (HKDF of the vault key with a fresh salt) and is bound to its vault and kind by the associated data.
// Sizes are checked before decrypting and while inflating, so a large or crafted file costs nothing to refuse.
import { Inflate, deflateSync } from 'fflate';
import { buf, concat, fromUtf8, randomBytes, utf8 } from './bytes';

export const MAGIC = utf8('BSSYNC01');
export const SEAL_KINDS = { device: 1, segment: 2, snapshot: 3, 'snapshot-part': 4 } as const;
export type SealKind = keyof typeof SEAL_KINDS;
const PREFIX = MAGIC.length + 1 + 32 + 12;
const TAG = 16;

/** The most a sealed file of a kind may be, and the most its JSON may inflate to. */
export const SEAL_LIMITS: Record<SealKind, { sealed: number; plain: number }> = {
  device: { sealed: 64 * 1024, plain: 256 * 1024 },
  segment: { sealed: 16 * 1024 * 1024, plain: 64 * 1024 * 1024 },
  // A snapshot's manifest since version 2; the first format's snapshots held the whole state and may be this large.
  snapshot: { sealed: 128 * 1024 * 1024, plain: 512 * 1024 * 1024 },
  'snapshot-part': { sealed: 16 * 1024 * 1024, plain: 64 * 1024 * 1024 },
};

/** What sealing needs of an unlocked vault (lib/sync/vault.ts `Vault`). */
export interface SealingVault {
  /** The vault key, for HKDF. */
  key: CryptoKey;
  /** SHA-256 of the header's canonical form. */
  digest: Uint8Array;
}

export type SealProblem = 'too-large' | 'not-sealed' | 'wrong-kind' | 'unreadable' | 'bomb' | 'not-json';

/** A file that could not be opened; the message says why in words. */
export class SealError extends Error {
  constructor(
    readonly problem: SealProblem,
    message: string,
  ) {
    super(message);
    this.name = 'SealError';
  }
}

function fileKey(vault: SealingVault, kind: SealKind, salt: Uint8Array, use: KeyUsage): Promise<CryptoKey> {
  return crypto.subtle.deriveKey(
    { name: 'HKDF', hash: 'SHA-256', salt: buf(salt), info: buf(utf8(`backstory sync v1 ${kind}`)) },
    vault.key,
    { name: 'AES-GCM', length: 256 },
    false,
    [use],
  );
}

/** Seals a body as a file of `kind` for this vault. */
export function seal(vault: SealingVault, kind: SealKind, body: unknown, limits = SEAL_LIMITS[kind]): Promise<Uint8Array> {
  return sealJson(vault, kind, JSON.stringify(body), limits);
}

/** `seal` of a body already written as JSON (a snapshot's part is written record by record). */
export async function sealJson(vault: SealingVault, kind: SealKind, text: string, limits = SEAL_LIMITS[kind]): Promise<Uint8Array> {
  const json = utf8(text);
  if (json.length > limits.plain) {
    throw new SealError('too-large', `This ${kind} is ${json.length} bytes, more than the ${limits.plain} a ${kind} may hold.`);
  }
  const prefix = concat(MAGIC, Uint8Array.of(SEAL_KINDS[kind]), randomBytes(32), randomBytes(12));
  const salt = prefix.subarray(MAGIC.length + 1, MAGIC.length + 33);
  const iv = prefix.subarray(MAGIC.length + 33, PREFIX);
  const key = await fileKey(vault, kind, salt, 'encrypt');
  const cipher = await crypto.subtle.encrypt(
    { name: 'AES-GCM', iv: buf(iv.slice()), additionalData: buf(concat(vault.digest, prefix)) },
    key,
    buf(deflateSync(json, { level: 6 })),
  );
  const sealed = concat(prefix, new Uint8Array(cipher));
  if (sealed.length > limits.sealed) {
    throw new SealError('too-large', `This ${kind} seals to ${sealed.length} bytes, more than the ${limits.sealed} allowed.`);
  }
  return sealed;
}

/** Inflates at most `max` bytes, feeding the input in small pieces so a bomb stops before it fills memory. */
function inflateBounded(data: Uint8Array, max: number): Uint8Array {
  const parts: Uint8Array[] = [];
  let total = 0;
  let over = false;
  const inflater = new Inflate((chunk) => {
    total += chunk.length;
    if (total > max) over = true;
    else parts.push(chunk);
  });
  const STEP = 16 * 1024;
  try {
    for (let at = 0; at < data.length && !over; at += STEP) inflater.push(data.subarray(at, at + STEP), at + STEP >= data.length);
  } catch {
    throw new SealError('not-json', 'The file opened but its contents are not what Backstory writes.');
  }
  if (over) throw new SealError('bomb', `The file's contents unpack to more than ${max} bytes; it was not read.`);
  return concat(...parts);
}

/** Opens a sealed file of `kind`: its JSON body, not yet validated. Throws SealError in words. */
export async function open(vault: SealingVault, kind: SealKind, bytes: Uint8Array, limits = SEAL_LIMITS[kind]): Promise<unknown> {
  if (bytes.length > limits.sealed) {
    throw new SealError('too-large', `The file is ${bytes.length} bytes, more than the ${limits.sealed} a ${kind} may be; it was not read.`);
  }
  if (bytes.length < PREFIX + TAG || !MAGIC.every((b, i) => bytes[i] === b)) {
    throw new SealError('not-sealed', 'The file is not a sealed Backstory sync file (or was cut short).');
  }
  if (bytes[MAGIC.length] !== SEAL_KINDS[kind]) {
    throw new SealError('wrong-kind', `The file is not a ${kind}; it sits where a ${kind} belongs.`);
  }
  const prefix = bytes.subarray(0, PREFIX);
  const key = await fileKey(vault, kind, bytes.slice(MAGIC.length + 1, MAGIC.length + 33), 'decrypt');
  let plain: Uint8Array;
  try {
    plain = new Uint8Array(
      await crypto.subtle.decrypt(
        { name: 'AES-GCM', iv: buf(bytes.slice(MAGIC.length + 33, PREFIX)), additionalData: buf(concat(vault.digest, prefix)) },
        key,
        buf(bytes.slice(PREFIX)),
      ),
    );
  } catch {
    throw new SealError(
      'unreadable',
      'The file does not open with this synced memory\'s key: it was changed, cut short, or belongs to another synced memory.',
    );
  }
  const json = inflateBounded(plain, limits.plain);
  try {
    return JSON.parse(fromUtf8(json));
  } catch {
    throw new SealError('not-json', 'The file opened but its contents are not what Backstory writes.');
  }
}
