/**
 * A crafted file cannot make an import take all memory or never end: entries read whole have a size the user is
 * told, zips that unpack a hundredfold and more, zips nested past two and JSON nested past any export are refused
 * with a message naming the file and the problem, and nothing of the file is kept.
 */
import { strToU8, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { TooLargeError, bytesOf } from '../../lib/import/byte-stream';
import { JsonStreamError, jsonValues } from '../../lib/import/json-stream';
import { IMPORT_LIMITS } from '../../lib/import/limits';
import { mboxMessages } from '../../lib/import/mbox';
import { readImport } from '../../lib/import/index';
import type { ImportBatch, ImportFile } from '../../lib/import/types';
import { bytesFile, readAll } from './import-fixtures';

const MB = 1024 * 1024;
const NOTE = strToU8('# Plan\n\nBook the venue for the offsite.');

/** Reads an import to its end; what it yielded before failing, and the message it failed with. */
async function readUntilRefused(files: ImportFile[]): Promise<{ batches: ImportBatch[]; message?: string }> {
  const batches: ImportBatch[] = [];
  try {
    for await (const b of readImport(files)) batches.push(b);
  } catch (e) {
    return { batches, message: (e as Error).message };
  }
  return { batches };
}

describe('sizes an import reads whole', () => {
  it('refuses a note in a zip that unpacks past the limit, naming it and its size', async () => {
    const huge = new Uint8Array(20 * MB).fill(0x61);
    const zip = zipSync({ 'notes/plan.md': NOTE, 'notes/huge.md': huge }, { level: 1 });
    expect(zip.length).toBeLessThan(MB);
    const { message } = await readUntilRefused([bytesFile('notes.zip', zip)]);
    expect(message).toBe('notes.zip: notes/huge.md is 20 MB unpacked; Backstory reads notes up to 16 MB');
  });

  it('refuses a picked note past the limit, and reads one within it', async () => {
    const { message } = await readUntilRefused([bytesFile('huge.md', new Uint8Array(17 * MB).fill(0x61))]);
    expect(message).toBe('huge.md: the file is 17 MB; Backstory reads notes up to 16 MB');
    const { items } = await readAll([bytesFile('plan.md', NOTE)]);
    expect(items.map((i) => i.text)).toEqual(['Book the venue for the offsite.']);
  });

  it('stops an mbox at a message past the limit', async () => {
    const mbox = strToU8(`From a@x Mon Mar 03 10:00:00 2026\nSubject: s\n\n${'a'.repeat(5000)}\n`);
    await expect(async () => {
      for await (const _ of mboxMessages(bytesOf(mbox), 1000)) void _;
    }).rejects.toThrow(TooLargeError);
  });
});

describe('zips', () => {
  it('refuses a zip bomb: an entry that unpacks more than a hundredfold', async () => {
    const zip = zipSync({ 'notes/plan.md': NOTE, 'padding.bin': new Uint8Array(IMPORT_LIMITS.zipRatioAfter + 8 * MB) }, { level: 9 });
    expect(zip.length).toBeLessThan(MB);
    const { message } = await readUntilRefused([bytesFile('bomb.zip', zip)]);
    expect(message).toBe(
      'bomb.zip: the zip unpacks to more than 100 times its size, which real exports never do (it looks like a "zip bomb"); Backstory does not open it',
    );
  });

  it('reads a zip inside a zip (Notion) and refuses a third level', async () => {
    const two = zipSync({ 'Part-1.zip': zipSync({ 'Plan.md': NOTE }) });
    expect((await readAll([bytesFile('export.zip', two)])).items.map((i) => i.text)).toEqual(['Book the venue for the offsite.']);
    const three = zipSync({ 'level-1.zip': zipSync({ 'level-2.zip': zipSync({ 'Plan.md': NOTE }) }) });
    const { batches, message } = await readUntilRefused([bytesFile('nested.zip', three)]);
    expect(message).toBe('nested.zip: level-1.zip/level-2.zip is a zip inside a zip inside a zip; Backstory opens zips only 2 deep');
    expect(batches).toEqual([]);
  });
});

describe('JSON nesting and size', () => {
  it('refuses a chat export of nested arrays without building them', async () => {
    const zip = zipSync({ 'conversations.json': new Uint8Array(1_000_000).fill(0x5b) }, { level: 9 });
    const { message } = await readUntilRefused([bytesFile('export.zip', zip)]);
    expect(message).toBe('export.zip: conversations.json nests lists more than 64 deep, which no chat export does; Backstory does not read it');
  });

  it('refuses a memory file with an item nested past the limit', async () => {
    const deep = '['.repeat(100) + ']'.repeat(100);
    const file = `{"format":"backstory-memory","version":1,"items":[{"text":"a","tags":${deep}}]}`;
    const { message } = await readUntilRefused([bytesFile('memory.json', file)]);
    expect(message).toBe('memory.json: The file nests lists more than 64 deep, which no memory file does; Backstory does not read it.');
  });

  it('reads nesting up to the limit, and stops at a value larger than the reader builds', async () => {
    const within = `[${'['.repeat(63)}1${']'.repeat(63)}]`;
    const values: unknown[] = [];
    for await (const vs of jsonValues(bytesOf(strToU8(within)), ['$.*'])) values.push(...vs.map((v) => v.value));
    expect(values).toHaveLength(1);
    const big = strToU8(`[{"text":"${'a'.repeat(200_000)}"}]`);
    const error = await (async () => {
      for await (const _ of jsonValues(bytesOf(big), ['$.*'], { depth: 64, valueChars: 100_000 })) void _;
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JsonStreamError);
    expect((error as JsonStreamError).kind).toBe('too-large');
  });
});
