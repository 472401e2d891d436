// The token counter's vocabulary (o200k_base) as bytes, with a hash table over them made as it is read. gpt-tokenizer
// keeps the same vocabulary as a JSON array of 200,000 strings and a Map built from it: in Node that was about 100 ms
// to parse and 150 ms to build, and the worker paid both at every start before it could rank anything. This file is
// read as one buffer, and its table is made in a few milliseconds.

/** What a token table file starts with ("BSTK" and the format's version, 1). */
const MAGIC = 0x4b545342;
const FORMAT = 1;
const HEADER_BYTES = 16;
/** The longest token o200k_base has is 128 bytes; a length is one byte in the file. */
const MAX_TOKEN_BYTES = 255;

/** Each token's bytes, in rank order: token k is `bytes[k]`, its rank k. */
export type TokenBytes = readonly Uint8Array[];

export class TokenTable {
  /** How many tokens (ranks 0 … size - 1). */
  readonly size: number;
  private readonly bytes: Uint8Array;
  private readonly starts: Uint32Array;
  /** Open addressing by FNV-1a of a token's bytes: rank + 1, 0 for an empty slot. */
  private readonly slots: Int32Array;
  private readonly mask: number;

  /** `lengths[k]` bytes of `bytes` are token k's, one after another. Throws when they do not add up or repeat. */
  constructor(lengths: Uint8Array, bytes: Uint8Array) {
    this.size = lengths.length;
    this.bytes = bytes;
    const starts = (this.starts = new Uint32Array(lengths.length + 1));
    for (let k = 0; k < lengths.length; k++) starts[k + 1] = starts[k] + lengths[k];
    if (starts[lengths.length] !== bytes.length) throw new Error('The token table is damaged: its lengths do not add up to its bytes.');
    // A load factor under 0.4: a lookup of a word piece probes one or two slots.
    let cap = 1;
    while (cap < lengths.length * 2.5) cap *= 2;
    this.mask = cap - 1;
    const slots = (this.slots = new Int32Array(cap));
    for (let k = 0; k < lengths.length; k++) {
      const from = starts[k];
      const to = starts[k + 1];
      if (to === from) throw new Error('The token table is damaged: it has an empty token.');
      let s = hash(bytes, from, to) & this.mask;
      while (slots[s] !== 0) {
        if (this.same(slots[s] - 1, bytes, from, to)) throw new Error('The token table is damaged: a token appears twice.');
        s = (s + 1) & this.mask;
      }
      slots[s] = k + 1;
    }
  }

  /** The rank of `buf[from..to)` as one token, or -1 when it is none. */
  rankOf(buf: Uint8Array, from: number, to: number): number {
    if (to - from > MAX_TOKEN_BYTES || to <= from) return -1;
    const slots = this.slots;
    for (let s = hash(buf, from, to) & this.mask; slots[s] !== 0; s = (s + 1) & this.mask) {
      if (this.same(slots[s] - 1, buf, from, to)) return slots[s] - 1;
    }
    return -1;
  }

  private same(rank: number, buf: Uint8Array, from: number, to: number): boolean {
    const at = this.starts[rank];
    if (this.starts[rank + 1] - at !== to - from) return false;
    const bytes = this.bytes;
    for (let i = from; i < to; i++) if (bytes[at + i - from] !== buf[i]) return false;
    return true;
  }
}

function hash(buf: Uint8Array, from: number, to: number): number {
  let h = 0x811c9dc5;
  for (let i = from; i < to; i++) h = Math.imul(h ^ buf[i], 0x01000193);
  return h >>> 0;
}

/** gpt-tokenizer's ranks (each token's string, or its bytes where they are not UTF-8) as bytes, in rank order. */
export function tokenBytes(ranks: readonly (string | readonly number[])[]): TokenBytes {
  const utf8 = new TextEncoder();
  return ranks.map((r) => (typeof r === 'string' ? utf8.encode(r) : Uint8Array.from(r)));
}

/** The file `scripts/install-assets.mjs` writes (the same layout): a header, each token's length, then their bytes. */
export function tokenTableFile(tokens: TokenBytes): Uint8Array {
  const total = tokens.reduce((n, t) => n + t.length, 0);
  const out = new Uint8Array(HEADER_BYTES + tokens.length + total);
  const head = new DataView(out.buffer);
  head.setUint32(0, MAGIC, true);
  head.setUint32(4, FORMAT, true);
  head.setUint32(8, tokens.length, true);
  head.setUint32(12, total, true);
  let at = HEADER_BYTES + tokens.length;
  tokens.forEach((t, k) => {
    if (t.length > MAX_TOKEN_BYTES) throw new Error(`Token ${k} is longer than a token table holds.`);
    out[HEADER_BYTES + k] = t.length;
    out.set(t, at);
    at += t.length;
  });
  return out;
}

/** Reads a token table file; throws, in words, when it is not one or is cut short. */
export function readTokenTable(file: ArrayBuffer): TokenTable {
  const head = file.byteLength >= HEADER_BYTES ? new DataView(file, 0, HEADER_BYTES) : undefined;
  if (!head || head.getUint32(0, true) !== MAGIC || head.getUint32(4, true) !== FORMAT) throw new Error('The token table is not in a format this version reads.');
  const count = head.getUint32(8, true);
  const total = head.getUint32(12, true);
  if (file.byteLength !== HEADER_BYTES + count + total) throw new Error('The token table is damaged: it is not the length its header gives.');
  return new TokenTable(new Uint8Array(file, HEADER_BYTES, count), new Uint8Array(file, HEADER_BYTES + count, total));
}

/** The table of `tokens` (Node: from gpt-tokenizer's module, without a file). */
export function tableOf(tokens: TokenBytes): TokenTable {
  const file = tokenTableFile(tokens);
  return readTokenTable(file.buffer as ArrayBuffer);
}
