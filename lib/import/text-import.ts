import { parseMemoryFile } from '../memory/memory-file';
import type { MemoryInput } from '../memory/types';
import { noteFormat, noteItems } from './notes';
import { textItems } from './plain-text';

/** Markdown notes given as text: see noteItems. */
export function parseMarkdownNotes(md: string, fileName = 'notes.md'): MemoryInput[] {
  return noteItems(md, fileName, { format: noteFormat(fileName) });
}

/** Plain text given as text: see textItems. */
export function parsePlainText(txt: string, fileName = 'note.txt'): MemoryInput[] {
  return textItems(txt, fileName);
}

/** A small file already read as text: a memory file, Markdown, or plain text, by content and name. */
export function parseImport(fileName: string, content: string): MemoryInput[] {
  const trimmed = content.trimStart();
  if (/\.json$/i.test(fileName) || trimmed.startsWith('{')) return parseMemoryFile(content);
  if (/\.(md|markdown)$/i.test(fileName)) return parseMarkdownNotes(content, fileName);
  return parsePlainText(content, fileName);
}
