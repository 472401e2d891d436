import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { strToU8 } from 'fflate';
import { describe, expect, it } from 'vitest';
import { BATCH_SIZE, readImport } from '../../lib/import/index';
import { ImportFileError, type ImportFile, type ReadProgress } from '../../lib/import/types';
import { makeChatGPTExport } from '../fixtures/import/generate';
import { bytesFile, readAll } from './import-fixtures';

const memoryFile = (items: unknown[], head = '"format": "backstory-memory", "version": 1') => `{ ${head}, "items": ${JSON.stringify(items)} }`;

/** A Blob whose stream hands out its bytes in small chunks and records how far it has been read. */
function meteredFile(name: string, bytes: Uint8Array, chunk = 64 * 1024): { file: ImportFile; read: () => number } {
  let read = 0;
  const blob = new Blob([bytes as BlobPart]);
  Object.defineProperty(blob, 'stream', {
    value: () =>
      new ReadableStream<Uint8Array>({
        pull(ctrl) {
          if (read >= bytes.length) return ctrl.close();
          ctrl.enqueue(bytes.slice(read, read + chunk));
          read += chunk;
        },
      }),
  });
  return { file: { name, blob }, read: () => Math.min(read, bytes.length) };
}

describe('memory file, streamed', () => {
  it('reads items as they come, keeping unknown fields, in batches', async () => {
    const items = Array.from({ length: 450 }, (_, i) => ({ id: `m${i}`, text: `Note ${i}`, colour: 'teal' }));
    const { items: got, batches } = await readAll([bytesFile('backstory-memory.json', memoryFile(items))]);
    expect(got).toHaveLength(450);
    expect(got[449]).toMatchObject({ id: 'm449', text: 'Note 449', extra: { colour: 'teal' } });
    expect(batches.map((b) => b.items.length)).toEqual([200, 200, 50]);
    expect(batches.every((b) => b.format === 'memory-file')).toBe(true);
  });

  it("hands over the file's feedback events, which the learner stores once the items land", async () => {
    const feedback = { enabled: true, events: [{ at: 1, itemId: 'm0', action: 'insert', shown: [] }] };
    const got: unknown[] = [];
    const file = `{ "format": "backstory-memory", "version": 1, "feedback": ${JSON.stringify(feedback)}, "items": [{ "id": "m0", "text": "Note" }] }`;
    const { items } = await readAll([bytesFile('backstory-memory.json', file)], { onFeedback: (f) => got.push(f) });
    expect(items).toHaveLength(1);
    expect(got).toEqual([feedback]);
  });

  it.each([
    ['an item without text', memoryFile([{ text: 'ok' }, { title: 'no text' }]), /^m\.json: Item 1 has no "text"\.$/],
    ['the wrong format', memoryFile([{ text: 'a' }], '"format": "other", "version": 1'), /^m\.json: Wrong format "other"/],
    ['duplicate ids', memoryFile([{ id: 'x', text: 'a' }, { id: 'x', text: 'b' }]), /^m\.json: Item 1: duplicate id "x"/],
    ['a cut-off file', memoryFile([{ text: 'a' }, { text: 'b' }]).slice(0, -12), /^m\.json: The file ends in the middle of item 1/],
    ['no items list', '{ "format": "backstory-memory", "version": 1 }', /^m\.json: The file has no "items" list/],
    ['other JSON', '{ "uuid": "u1", "full_name": "Sam" }', /^m\.json: This JSON is neither a Backstory memory file .* nor a ChatGPT or Claude export/],
  ])('rejects %s, naming the file and the item', async (_name, content, message) => {
    const err = await readAll([bytesFile('m.json', content)]).catch((e) => e);
    expect(err).toBeInstanceOf(ImportFileError);
    expect(err.message).toMatch(message);
    expect(err.file).toBe('m.json');
    if (/Item 1/.test(err.message)) expect(err.itemIndex).toBe(1);
  });

  it('accepts items before "format" when the format turns out right', async () => {
    const { items } = await readAll([bytesFile('m.json', `{ "items": [{"text": "a"}], "version": 1, "format": "backstory-memory" }`)]);
    expect(items).toMatchObject([{ text: 'a' }]);
  });
});

describe('a big ChatGPT export', () => {
  const conversations = 1000;
  const turns = 20;
  const zip = makeChatGPTExport({ conversations, turns, seed: 7 });

  it('is read in batches while the zip is still being read, with progress by bytes', async () => {
    const { file, read } = meteredFile('chatgpt-export.zip', zip);
    const progress: ReadProgress[] = [];
    let firstBatchAt = -1;
    let count = 0;
    let batches = 0;
    let largest = 0;
    const started = performance.now();
    for await (const b of readImport([file], { onProgress: (p) => progress.push(p) })) {
      if (firstBatchAt < 0) firstBatchAt = read();
      batches++;
      count += b.items.length;
      largest = Math.max(largest, b.items.length);
    }
    const ms = performance.now() - started;
    console.log(`read ${count} messages (${(zip.length / 1e6).toFixed(1)} MB zip) in ${batches} batches, ${ms.toFixed(0)} ms`);
    expect(count).toBe(conversations * turns);
    expect(largest).toBeLessThanOrEqual(BATCH_SIZE);
    expect(batches).toBeGreaterThanOrEqual(count / BATCH_SIZE);
    // The first batch came while most of the zip was still unread.
    expect(firstBatchAt).toBeLessThan(zip.length / 2);
    const last = progress[progress.length - 1];
    expect(last).toEqual({ bytesRead: zip.length, bytesTotal: zip.length, items: count });
    expect(progress.every((p, i) => i === 0 || p.bytesRead >= progress[i - 1].bytesRead)).toBe(true);
  });

  it('stops when the signal aborts', async () => {
    const { file, read } = meteredFile('chatgpt-export.zip', zip);
    const ctrl = new AbortController();
    let batches = 0;
    const err = await (async () => {
      for await (const _ of readImport([file], { signal: ctrl.signal })) if (++batches === 3) ctrl.abort();
    })().catch((e) => e);
    expect(err?.name).toBe('AbortError');
    expect(batches).toBe(3);
    expect(read()).toBeLessThan(zip.length);
  });

  it('reads the same ids from a generated export each time', async () => {
    const small = makeChatGPTExport({ conversations: 5, turns: 4, seed: 3 });
    const a = await readAll([bytesFile('a.zip', small)]);
    const b = await readAll([bytesFile('b.zip', makeChatGPTExport({ conversations: 5, turns: 4, seed: 3 }))]);
    expect(a.items.length).toBe(20);
    expect(b.items.map((i) => i.id)).toEqual(a.items.map((i) => i.id));
    expect(new Set(a.items.map((i) => i.thread!.id)).size).toBe(5);
  });
});

describe('several files in one import', () => {
  it('reads each in turn, batches naming their file', async () => {
    const { batches } = await readAll([
      bytesFile('a.md', '# A\nalpha'),
      bytesFile('m.json', memoryFile([{ text: 'x' }])),
      bytesFile('b.txt', strToU8('beta')),
    ]);
    expect(batches.map((b) => [b.file, b.format, b.items.length])).toEqual([
      ['a.md', 'markdown', 1],
      ['m.json', 'memory-file', 1],
      ['b.txt', 'text', 1],
    ]);
  });
});

describe('where the readers run', () => {
  it('lib/import uses nothing that exists only in Node or only in pages (the service worker has neither)', () => {
    const dir = join(__dirname, '../../lib/import');
    for (const name of readdirSync(dir).filter((n) => n.endsWith('.ts'))) {
      const src = readFileSync(join(dir, name), 'utf8');
      expect(src, name).not.toMatch(/from 'node:|require\(|\bBuffer\b|\bprocess\.|\bdocument\.|\bwindow\.|DOMParser|FileReader/);
    }
  });
});
