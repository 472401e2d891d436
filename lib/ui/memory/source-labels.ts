import type { ImportFacet } from '../../memory-browse/memory-query';

const FORMAT_NAMES: Record<string, string> = {
  'memory-file': 'Memory file',
  chatgpt: 'ChatGPT',
  claude: 'Claude',
  mbox: 'Mail (mbox)',
  eml: 'Mail (.eml)',
  markdown: 'Notes',
  notion: 'Notion',
  text: 'Text',
};

/** How the browser names a kind of file ("chatgpt" → "ChatGPT"). */
export function formatName(format: string | undefined): string {
  return format ? (FORMAT_NAMES[format] ?? format) : 'Import';
}

/** "ChatGPT · 12,000 memories · latest 3 Mar 2025" (the newest item's date: the export's own dates, not the import's). */
export function importLabel(imp: ImportFacet): string {
  const when = imp.newest ? ` · latest ${new Date(imp.newest).toLocaleDateString(undefined, { day: 'numeric', month: 'short', year: 'numeric' })}` : '';
  return `${formatName(imp.format)} · ${imp.count.toLocaleString()} ${imp.count === 1 ? 'memory' : 'memories'}${when}`;
}
