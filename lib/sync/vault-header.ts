// The vault header's shape and its checks (docs/sync.md, "The header"). The file comes from a synced folder anyone
// may have written to: its size, its fields and above all its key derivation cost are bounded before any of it is
// used, so a crafted header cannot make Argon2id take gigabytes or minutes.
import * as v from 'valibot';
import { canonicalJson, fromBase64, fromUtf8, sha256, utf8 } from './bytes';

export const HEADER_FORMAT = 'backstory-sync';
export const HEADER_VERSION = 1;
/** A header is a few hundred bytes; anything much larger is not one. */
export const MAX_HEADER_BYTES = 4096;

/** What this version writes: about 0.55 s in Node 20 on the development machine (docs/sync.md). */
export const DEFAULT_KDF = { memoryKiB: 131072, iterations: 4, parallelism: 1 } as const;
/** What a reader accepts. The product bounds the time: 2x the default's memory at 4x its passes at most. */
export const KDF_BOUNDS = {
  memoryKiB: { min: 8192, max: 262144 },
  iterations: { min: 1, max: 16 },
  parallelism: { min: 1, max: 4 },
  maxCost: DEFAULT_KDF.memoryKiB * DEFAULT_KDF.iterations * 4,
} as const;

export const ID_PATTERN = /^[a-z0-9]{16,40}$/;

const b64 = (min: number, max: number) =>
  v.pipe(
    v.string(),
    v.maxLength(200),
    v.check((s) => {
      const bytes = fromBase64(s);
      return bytes !== undefined && bytes.length >= min && bytes.length <= max;
    }, `base64 of ${min}–${max} bytes`),
  );

const int = (min: number, max: number) => v.pipe(v.number(), v.integer(), v.minValue(min), v.maxValue(max));

const Wrapped = v.strictObject({ iv: b64(12, 12), data: b64(48, 48) });

const HeaderSchema = v.strictObject({
  format: v.literal(HEADER_FORMAT),
  version: v.literal(HEADER_VERSION),
  vaultId: v.pipe(v.string(), v.regex(ID_PATTERN)),
  kdf: v.pipe(
    v.strictObject({
      name: v.literal('argon2id'),
      memoryKiB: int(KDF_BOUNDS.memoryKiB.min, KDF_BOUNDS.memoryKiB.max),
      iterations: int(KDF_BOUNDS.iterations.min, KDF_BOUNDS.iterations.max),
      parallelism: int(KDF_BOUNDS.parallelism.min, KDF_BOUNDS.parallelism.max),
      salt: b64(16, 64),
    }),
    v.check((k) => k.memoryKiB * k.iterations <= KDF_BOUNDS.maxCost, 'memory cost times passes is too large'),
  ),
  wrapped: v.strictObject({ passphrase: Wrapped, recovery: Wrapped }),
});

export type VaultHeader = v.InferOutput<typeof HeaderSchema>;

export type VaultProblem = 'weak-passphrase' | 'wrong-passphrase' | 'wrong-recovery-key' | 'bad-recovery-key' | 'bad-header';

export class VaultError extends Error {
  constructor(
    readonly problem: VaultProblem,
    message: string,
  ) {
    super(message);
    this.name = 'VaultError';
  }
}

/** Reads a header file's bytes, or throws VaultError('bad-header') saying what is wrong, without deriving anything. */
export function parseHeader(bytes: Uint8Array, name = 'The sync header'): VaultHeader {
  const bad = (why: string) => new VaultError('bad-header', `${name} is not a Backstory sync header Backstory can open: ${why}.`);
  if (bytes.length > MAX_HEADER_BYTES) throw bad(`it is ${bytes.length} bytes, more than a header's ${MAX_HEADER_BYTES}`);
  let json: unknown;
  try {
    json = JSON.parse(fromUtf8(bytes));
  } catch {
    throw bad('it is not JSON');
  }
  if (json && typeof json === 'object' && (json as { version?: unknown }).version !== HEADER_VERSION
    && (json as { format?: unknown }).format === HEADER_FORMAT) {
    throw bad('it was written by another version of Backstory; update Backstory on this device');
  }
  return checkHeader(json, name);
}

/** Checks a parsed header (from a file, or handed in by a caller) against the schema and its bounds. */
export function checkHeader(json: unknown, name = 'The sync header'): VaultHeader {
  const result = v.safeParse(HeaderSchema, json);
  if (!result.success) {
    const issue = result.issues[0];
    const where = v.getDotPath(issue) ?? 'the file';
    throw new VaultError('bad-header', `${name} is not a Backstory sync header Backstory can open: ${where}: ${issue.message}.`);
  }
  return result.output;
}

/** The header without its wrapped keys, as canonical JSON: what the wraps and every sealed file are bound to. */
export function canonicalHeader(header: VaultHeader): Uint8Array {
  const { wrapped: _wrapped, ...rest } = header;
  return utf8(canonicalJson(rest));
}

/** SHA-256 of the canonical form: the vault's identity in every sealed file's associated data. */
export function headerDigest(header: VaultHeader): Promise<Uint8Array> {
  return sha256(canonicalHeader(header));
}

/** The header file's text as written: the canonical JSON of the whole header. */
export function headerText(header: VaultHeader): string {
  return canonicalJson(header);
}
