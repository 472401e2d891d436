import { beforeAll, describe, expect, it } from 'vitest';
import { open, seal, SealError } from '../../lib/sync/seal';
import { createVault, type Vault } from '../../lib/sync/vault';

const FAST = { memoryKiB: 8192, iterations: 1, parallelism: 1 };
const MARKER = 'ZEBRA-MARMALADE-7731';
let vault: Vault;
let other: Vault;

beforeAll(async () => {
  vault = (await createVault('one passphrase', FAST)).vault;
  other = (await createVault('one passphrase', FAST)).vault;
});

const body = { device: 'dev', seq: 1, prev: '', seen: {}, ops: [{ id: 'a', field: 'text', value: `${MARKER} `.repeat(50), stamp: 's', base: [] }] };

async function problem(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(SealError);
    return (e as SealError).problem;
  }
  return 'opened';
}

describe('sealed files', () => {
  it('open to what was sealed, with no plaintext in the bytes', async () => {
    const bytes = await seal(vault, 'segment', body);
    expect(await open(vault, 'segment', bytes)).toEqual(body);
    expect(Buffer.from(bytes).includes(Buffer.from(MARKER))).toBe(false);
    expect(Buffer.from(bytes).includes(Buffer.from('text'))).toBe(false);
    // A fresh salt and iv each time: the same body never seals to the same bytes.
    expect(Buffer.from(await seal(vault, 'segment', body)).equals(Buffer.from(bytes))).toBe(false);
  });

  it('refuse a file with any one byte changed', async () => {
    const bytes = await seal(vault, 'segment', body);
    const seen = new Set<string>();
    // Every byte of the prefix and a spread of the ciphertext and its tag.
    const places = [...Array(53).keys(), 60, 80, bytes.length - 17, bytes.length - 1];
    for (const at of places) {
      const changed = bytes.slice();
      changed[at] ^= 0x01;
      const p = await problem(open(vault, 'segment', changed));
      expect(p, `byte ${at}`).not.toBe('opened');
      seen.add(p);
    }
    expect([...seen].sort()).toEqual(['not-sealed', 'unreadable', 'wrong-kind']);
  });

  it('refuse a cut file, a file of another kind and a file from another vault', async () => {
    const bytes = await seal(vault, 'segment', body);
    for (const n of [0, 10, 53, 60, bytes.length - 1]) {
      expect(await problem(open(vault, 'segment', bytes.subarray(0, n)))).not.toBe('opened');
    }
    expect(await problem(open(vault, 'snapshot', bytes))).toBe('wrong-kind');
    expect(await problem(open(other, 'segment', bytes))).toBe('unreadable');
    // Even with the kind byte changed to match, a file sealed as a segment is no snapshot.
    const relabelled = bytes.slice();
    relabelled[8] = 3;
    expect(await problem(open(vault, 'snapshot', relabelled))).toBe('unreadable');
  });

  it('refuse a file over the size limit before decrypting, and a body that inflates past its limit', async () => {
    const big = await seal(vault, 'segment', body);
    await expect(open(vault, 'segment', big, { sealed: big.length - 1, plain: 1e6 })).rejects.toThrow(/more than the/);
    // A zip bomb: 20 MB of one letter seals to a few kilobytes.
    const bomb = await seal(vault, 'segment', { pad: 'x'.repeat(20_000_000) }, { sealed: 1e6, plain: 1e8 });
    expect(bomb.length).toBeLessThan(100_000);
    await expect(open(vault, 'segment', bomb, { sealed: 1e6, plain: 1_000_000 })).rejects.toThrow(/unpack to more than 1000000 bytes/);
    await expect(seal(vault, 'device', { pad: 'x'.repeat(300_000) })).rejects.toThrow(/more than the/);
  });
});
