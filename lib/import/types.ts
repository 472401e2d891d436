import type { ImportFormat } from '../core/import-formats';
import type { MemoryInput } from '../memory/types';

/** The kinds of file Backstory imports (lib/core/import-formats.ts); recognised from content, not only the name (lib/import/detect.ts). */
export type { ImportFormat };

/** One file handed to an import: a picked file, one file of a picked folder, or a dropped file. */
export interface ImportFile {
  name: string;
  /** Path inside a picked folder ("vault/projects/plan.md"), when there is one. */
  path?: string;
  blob: Blob;
}

/**
 * Something found in an export that is offered to the user rather than saved (ChatGPT custom instructions): the
 * options page shows it with "Save as instruction".
 */
export interface ImportOffer {
  text: string;
  title: string;
  /** Where it was found, in words ("ChatGPT custom instructions"). */
  from: string;
}

/**
 * A batch of items read from the files, in file order. Importers give each item a stable `id` made from the export's
 * own ids (a re-import of the same export, or a later export that contains it, keys to the same items), a `thread`
 * for conversations, mail threads and documents, and `source.format`.
 */
export interface ImportBatch {
  items: MemoryInput[];
  /** Which file the batch came from. */
  file: string;
  format: ImportFormat;
}

export interface ReadProgress {
  /** Bytes of the files read so far and in all. */
  bytesRead: number;
  bytesTotal: number;
  /** Items read so far. */
  items: number;
}

export interface ReadOptions {
  signal?: AbortSignal;
  onProgress?: (p: ReadProgress) => void;
  onOffer?: (offer: ImportOffer) => void;
  /** A memory file's top-level `feedback` (what the user did with cards; lib/learn), handed over as it was read. */
  onFeedback?: (feedback: unknown) => void;
  /** This profile's signing key (lib/memory/file-signature.ts), to tell its own memory files from others. */
  signingKey?: () => Promise<CryptoKey | undefined>;
  /** A memory file was read to its end: whether this profile signed it. */
  onMemoryFile?: (verdict: { signed: boolean }) => void;
}

/** A file that could not be read: the message names the file and the problem ("chat.zip: conversations.json is cut off …"). */
export class ImportFileError extends Error {
  constructor(
    readonly file: string,
    problem: string,
    readonly itemIndex?: number,
  ) {
    super(`${file}: ${problem}`);
    this.name = 'ImportFileError';
  }
}
