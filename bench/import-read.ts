/**
 * How fast the importers read exports, in Node: a generated ChatGPT data export (the zip as mailed) and a generated
 * Gmail mbox, each read through readImport (the code the extension runs) from a Blob. Prints MB/s, messages/s and
 * the heap high-water mark above the file itself (streaming: it should not grow with the export).
 * Usage: npx tsx bench/import-read.ts [--conversations 2000] [--turns 20] [--mails 20000]
 */
import { readImport } from '../lib/import/index';
import type { ImportFile } from '../lib/import/types';
import { unzipSync } from 'fflate';
import { makeChatGPTExport } from '../test/fixtures/import/generate';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};

/** A plain-text mbox of `n` mails in threads of up to five, with quoted replies and signatures. */
function makeMbox(n: number): Uint8Array {
  const words = 'kiln glaze budget offsite venue invoice schedule studio quote thermocouple order shift review plan'.split(' ');
  const parts: string[] = [];
  for (let i = 0; i < n; i++) {
    const thread = Math.floor(i / 5);
    const depth = i % 5;
    const refs = Array.from({ length: depth }, (_, k) => `<m${thread}-${k}@example.com>`).join(' ');
    const body = Array.from({ length: 40 }, (_, k) => words[(i * 7 + k * 3) % words.length]).join(' ');
    parts.push(
      `From sender${i}@example.com Mon Mar 09 08:00:00 +0000 2026\n` +
        `X-GM-THRID: ${1790000000000000000n + BigInt(thread)}\nX-Gmail-Labels: Inbox\n` +
        `Message-ID: <m${thread}-${depth}@example.com>\n${refs ? `References: ${refs}\nIn-Reply-To: <m${thread}-${depth - 1}@example.com>\n` : ''}` +
        `Date: Mon, 9 Mar 2026 08:${String(depth).padStart(2, '0')}:00 +0000\nFrom: Person ${i % 40} <p${i % 40}@example.com>\nTo: Lea <lea@example.org>\n` +
        `Subject: ${depth ? 'Re: ' : ''}Thread ${thread} about the ${words[thread % words.length]}\nContent-Type: text/plain; charset=utf-8\n\n` +
        `${body}.\n\nOn Mon, 9 Mar 2026 at 08:00, Someone <s@example.com> wrote:\n> earlier text\n> more earlier text\n\n-- \nPerson ${i % 40}\n`,
    );
  }
  return new TextEncoder().encode(parts.join('\n'));
}

async function measure(label: string, file: ImportFile) {
  (globalThis as { gc?: () => void }).gc?.();
  const base = process.memoryUsage().heapUsed;
  let peak = base;
  let items = 0;
  let batches = 0;
  const t0 = performance.now();
  let first = -1;
  for await (const b of readImport([file])) {
    if (first < 0) first = performance.now() - t0;
    items += b.items.length;
    batches++;
    if (batches % 10 === 0) peak = Math.max(peak, process.memoryUsage().heapUsed);
  }
  const ms = performance.now() - t0;
  const mb = file.blob.size / 1e6;
  console.log(
    `${label.padEnd(46)} ${mb.toFixed(1).padStart(7)} MB  ${String(items).padStart(7)} items  ${ms.toFixed(0).padStart(6)} ms  ` +
      `${(mb / (ms / 1000)).toFixed(1).padStart(6)} MB/s  ${Math.round(items / (ms / 1000)).toString().padStart(6)} items/s  ` +
      `first batch ${first.toFixed(0)} ms  heap +${((peak - base) / 1e6).toFixed(0)} MB`,
  );
}

const conversations = arg('conversations', 2000);
const turns = arg('turns', 20);
const mails = arg('mails', 20000);
const zip = makeChatGPTExport({ conversations, turns, seed: 11 });
const jsonMb = unzipSync(zip, { filter: (f) => f.name === 'conversations.json' })['conversations.json'].length / 1e6;
await measure(`ChatGPT export ${conversations}x${turns} (zip of ${jsonMb.toFixed(0)} MB JSON)`, { name: 'chatgpt.zip', blob: new Blob([zip as BlobPart]) });
const mbox = makeMbox(mails);
await measure(`Gmail mbox ${mails} mails`, { name: 'all-mail.mbox', blob: new Blob([mbox as BlobPart]) });
