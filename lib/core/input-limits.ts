// Limits on what is read from outside (an export file, a synced folder), shared by the layers that read it.

/**
 * What an import reads at most. A file is made by someone else: a 2 MB zip can unpack to gigabytes, a zip can hold
 * itself, and a few kilobytes of "[" make a JSON parser build millions of nested arrays. Past these limits the
 * import stops with a message naming the file and the limit, and nothing of it is kept.
 */
export const IMPORT_LIMITS = {
  /** A note or text file is read whole. */
  noteBytes: 16 * 1024 * 1024,
  /** One mail message (an .eml, or one message of an mbox) is read whole. */
  mailBytes: 64 * 1024 * 1024,
  /** One value of a JSON export (a conversation, a memory item) is built whole. */
  jsonValueChars: 64 * 1024 * 1024,
  /** Arrays and objects inside each other: exports nest about ten deep. */
  jsonDepth: 64,
  /** A zip in a zip (Notion's Part-1.zip) is read; a zip in that is not. */
  zipDepth: 2,
  /** Unpacked bytes per packed byte: text packs about ten to one, a zip bomb a thousand to one. */
  zipRatio: 100,
  /** Below this much unpacked, the ratio is not judged (small files of repeated text pack very well). */
  zipRatioAfter: 32 * 1024 * 1024,
};

/**
 * The largest time, in ms from 1970 either way, that is a date (ECMAScript's range): a number past it in a file or a
 * synced change is refused, since a date made of it cannot be written out and the export of the whole memory failed.
 */
export const LAST_TIME_MS = 8.64e15;
