import type { Destination } from './destinations';

/**
 * The kinds of file Backstory imports: the one place a format is declared. Its name is stored (`source.format` of
 * every imported item, memory files): keep it. The reader that turns the file into items is registered for each
 * format in lib/import/format-readers.ts (typed by these names, so a format without one does not compile); which
 * format a file is comes from its first bytes (lib/import/detect.ts).
 */
const FORMAT_TABLE = {
  'memory-file': {
    label: 'Memory file',
    how: 'In Backstory: Export memory, under Import and export, writes one (.json); import that file on its own.',
    scope: 'own',
    idPrefixes: ['file'],
  },
  chatgpt: {
    label: 'ChatGPT',
    how: 'In ChatGPT: Settings → Data controls → Export data. A download link arrives by email; import the zip as it is.',
    scope: 'chat',
    idPrefixes: ['chatgpt'],
  },
  claude: {
    label: 'Claude',
    how: 'In Claude: Settings → Privacy → Export data. A download link arrives by email; import the zip as it is.',
    scope: 'chat',
    idPrefixes: ['claude'],
  },
  mbox: {
    label: 'Mail (mbox)',
    how: 'Gmail: takeout.google.com → Mail gives an .mbox file. Other mail apps export a mailbox as .mbox.',
    scope: 'email',
    idPrefixes: ['mail'],
  },
  eml: {
    label: 'Mail (.eml)',
    how: 'Outlook, Apple Mail and Thunderbird save a message as .eml.',
    scope: 'email',
    idPrefixes: ['mail'],
  },
  markdown: {
    label: 'Notes',
    how: 'Pick an Obsidian vault or any folder of Markdown notes.',
    scope: 'documents',
    idPrefixes: ['note'],
  },
  notion: {
    label: 'Notion',
    how: 'In Notion: Settings → Export → Markdown & CSV, then import the zip.',
    scope: 'documents',
    // A Notion page keeps its own id under `notion:`; its parts are notes.
    idPrefixes: ['note', 'notion'],
  },
  text: {
    label: 'Text',
    how: 'Pick any plain-text file (.txt), or a folder that holds some.',
    scope: 'documents',
    idPrefixes: ['note'],
  },
} as const satisfies Record<string, ImportFormatInfo>;

export interface ImportFormatInfo {
  /** How the memory browser and the README name it: "Mail (mbox)". */
  label: string;
  /** How the user gets the file, shown on the welcome and the options page. */
  how: string;
  /**
   * The scope its items get when their text names no subject: the kind of place its text was written for, or 'own'
   * for Backstory's own file, whose items are the user's own memory (lib/memory/scope-guess.ts).
   */
  scope: Destination | 'own';
  /** The id prefixes its reader writes under (`mail:<Message-ID>`); no other format may write there (lib/memory/id-namespaces.ts). */
  idPrefixes: readonly string[];
}

export type ImportFormat = keyof typeof FORMAT_TABLE;

export const IMPORT_FORMATS: Readonly<Record<ImportFormat, ImportFormatInfo>> = FORMAT_TABLE;
/** Every format, in the order the options page lists them. */
export const IMPORT_FORMAT_NAMES = Object.keys(FORMAT_TABLE) as readonly ImportFormat[];

export function isImportFormat(v: unknown): v is ImportFormat {
  return typeof v === 'string' && Object.hasOwn(FORMAT_TABLE, v);
}
