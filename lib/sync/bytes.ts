// Byte helpers sync's files share: encodings (base64, hex, base32), SHA-256, and the canonical JSON the header is
// authenticated by. WebCrypto only, so the same code runs in the service worker, pages and Node.
import { concatBytes } from '../core/concat-bytes';

const B32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

export function utf8(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

export function fromUtf8(bytes: Uint8Array): string {
  return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
}

/** The parts in one new array (a copy even of one part: sealing hands it to WebCrypto). */
export function concat(...parts: Uint8Array[]): Uint8Array {
  return parts.length === 1 ? parts[0].slice() : concatBytes(parts);
}

export function randomBytes(n: number): Uint8Array {
  return crypto.getRandomValues(new Uint8Array(n));
}

/** Whether two byte strings are equal. */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

export function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

export function toBase64(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
}

/** Decodes standard base64; undefined for anything that is not. */
export function fromBase64(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) return undefined;
  const s = atob(text);
  return Uint8Array.from(s, (c) => c.charCodeAt(0));
}

/** RFC 4648 base32 without padding. */
export function toBase32(bytes: Uint8Array): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += B32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += B32[(value << (5 - bits)) & 31];
  return out;
}

/** Decodes base32 (either case); undefined for a character outside the alphabet. */
export function fromBase32(text: string): Uint8Array | undefined {
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const c of text.toUpperCase()) {
    const v = B32.indexOf(c);
    if (v < 0) return undefined;
    value = ((value << 5) | v) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return Uint8Array.from(out);
}

/** A random id: 128 bits as 26 lowercase base32 characters (docs/sync.md, "The folder"). */
export function randomId(): string {
  return toBase32(randomBytes(16)).toLowerCase();
}

export async function sha256(bytes: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', buf(bytes)));
}

/**
 * JSON with object keys sorted and no spaces (a key whose value is undefined left out, as JSON.stringify does): equal
 * values always give the same text (headers, hashes, fingerprints).
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.keys(value)
    .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
  return `{${entries.join(',')}}`;
}

/** WebCrypto wants ArrayBuffer-backed views; ours always are. */
export function buf(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  return bytes as Uint8Array<ArrayBuffer>;
}
