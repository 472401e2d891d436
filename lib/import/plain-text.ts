import { decodeFileBytes } from '../memory/decode-text';
import type { MemoryInput } from '../memory/types';
import { itemDates, plausibleTime } from './dates';
import { paragraphs } from './note-text';

const basename = (p: string) => p.slice(p.lastIndexOf('/') + 1);

/**
 * A plain text file as one item, or as the parts of one thread (`note:<path>`) split at blank lines when it is long.
 * Older tools' encodings (UTF-16, Windows-1252) are read as such.
 */
export function textItems(raw: Uint8Array | string, path: string, lastModified?: number): MemoryInput[] {
  const decoded = typeof raw === 'string' ? raw : decodeFileBytes(raw).text;
  const text = decoded.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n').trim();
  const title = basename(path).replace(/\.(txt|text)$/i, '');
  const threadId = `note:${path}`;
  const dates = itemDates([plausibleTime(lastModified)]);
  return paragraphs(text).map((piece, n) => ({
    id: `${threadId}#${n}`,
    text: piece,
    title,
    ...dates,
    source: { format: 'text', title },
    thread: { id: threadId, seq: n },
  }));
}
