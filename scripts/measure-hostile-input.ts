/**
 * Measures by hand what hostile page or file content costs: the cases of a page's very long "To" field, a note of
 * brackets, an HTML-only mail of "<", a note of one unbroken run (its token count), a zip that inflates a hundredfold
 * and more, deeply nested JSON and zips inside zips. Run with `npx tsx scripts/measure-hostile-input.ts [case…]`;
 * prints milliseconds and the process's peak resident memory in MB (one case per run gives that case's own peak).
 * Not a test: the figures depend on the machine.
 */
import { Zip, ZipDeflate, zipSync } from 'fflate';
import { readImport } from '../lib/import/index';
import { personKeys } from '../lib/rank/situation';
import { markdownToText } from '../lib/import/note-text';
import { noteItems } from '../lib/import/notes';
import { mailItems } from '../lib/import/mail';
import type { ImportFile } from '../lib/import/types';
import { createItem } from '../lib/memory/normalize';

const MB = 1024 * 1024;

async function measure(name: string, run: () => unknown | Promise<unknown>): Promise<void> {
  const start = performance.now();
  let outcome = 'done';
  try {
    await run();
  } catch (e) {
    outcome = `refused: ${(e as Error).message}`;
  }
  const ms = performance.now() - start;
  // The process's peak resident memory so far: run one case per process for a figure that is that case's own.
  const peakMb = process.resourceUsage().maxRSS / 1024;
  console.log(`${name}: ${ms.toFixed(0)} ms, process peak ${peakMb.toFixed(0)} MB, ${outcome}`);
}

async function readFiles(files: ImportFile[]): Promise<number> {
  let n = 0;
  for await (const b of readImport(files)) n += b.items.length;
  return n;
}

/** A zip made as a stream, so a huge entry never sits whole in this script's memory. */
function streamedZip(name: string, chunks: () => Iterable<Uint8Array>): Uint8Array {
  const out: Uint8Array[] = [];
  const zip = new Zip((err, data) => {
    if (err) throw err;
    out.push(data);
  });
  const entry = new ZipDeflate(name, { level: 9 });
  zip.add(entry);
  let last: Uint8Array | undefined;
  for (const c of chunks()) {
    if (last) entry.push(last);
    last = c;
  }
  entry.push(last ?? new Uint8Array(0), true);
  zip.end();
  const all = new Uint8Array(out.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of out) {
    all.set(p, at);
    at += p.length;
  }
  return all;
}

function* repeated(byte: number, total: number, chunk = MB): Iterable<Uint8Array> {
  const piece = new Uint8Array(chunk).fill(byte);
  for (let left = total; left > 0; left -= chunk) yield left >= chunk ? piece : piece.subarray(0, left);
}

const file = (name: string, bytes: Uint8Array): ImportFile => ({ name, blob: new Blob([bytes as BlobPart]) });

const cases: Record<string, () => Promise<void>> = {
  async person() {
    const to = 'a'.repeat(80_000);
    await measure('personKeys of an 80,000-character "To"', () => personKeys(to));
  },
  async note() {
    const md = '['.repeat(100_000);
    await measure('markdownToText of a 100 KB note of "["', () => markdownToText(md));
    await measure('noteItems of a 100 KB note of "["', () => noteItems(md, 'n.md', { format: 'markdown' }));
  },
  async run() {
    for (const [what, ch] of [['one letter', 'a'], ['zero-width spaces', '\u200b'], ['one CJK character', '\u7684']]) {
      const text = ch.repeat(100_000);
      await measure(`createItem of a 100,000-character note of ${what}`, () => createItem({ text, kind: 'evidence' }));
    }
  },
  async mail() {
    const html = '<'.repeat(100_000);
    const raw = new TextEncoder().encode(`From: a@x.test\r\nTo: b@x.test\r\nSubject: s\r\nContent-Type: text/html\r\n\r\n${html}`);
    await measure('mailItems of an HTML-only mail of 100 KB of "<"', () => mailItems(raw, 'eml'));
  },
  async 'zip-md'() {
    const size = Number(process.env.MD_MB ?? 700) * MB;
    const zip = streamedZip('notes/huge.md', () => repeated(0x61, size));
    await measure(`a ${(zip.length / 1024).toFixed(0)} KB zip holding a ${size / MB} MB .md`, () => readFiles([file('notes.zip', zip)]));
  },
  async 'zip-json'() {
    const depth = Number(process.env.DEPTH ?? 10_000_000);
    const zip = streamedZip('conversations.json', () => repeated(0x5b, depth));
    await measure(`a ${(zip.length / 1024).toFixed(1)} KB zip of ${depth} nested arrays`, () => readFiles([file('export.zip', zip)]));
  },
  async 'zip-nested'() {
    const levels = Number(process.env.LEVELS ?? 30);
    let inner: Uint8Array = zipSync({ 'note.md': new TextEncoder().encode('# A note\n\nWords.') });
    for (let k = 1; k < levels; k++) inner = zipSync({ [`level-${k}.zip`]: inner }, { level: 0 });
    await measure(`zips nested ${levels} deep`, () => readFiles([file('nested.zip', inner)]));
  },
};

const wanted = process.argv.slice(2);
for (const [name, run] of Object.entries(cases)) if (!wanted.length || wanted.includes(name)) await run();
