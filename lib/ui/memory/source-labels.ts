import { IMPORT_FORMATS, isImportFormat } from '../../core/import-formats';
import type { ImportFacet } from '../../memory-browse/memory-query';

/** How the browser names a kind of file ("chatgpt" → "ChatGPT"); a name it does not know, as it is. */
export function formatName(format: string | undefined): string {
  if (!format) return 'Import';
  return isImportFormat(format) ? IMPORT_FORMATS[format].label : format;
}

/** "ChatGPT · 12,000 memories · latest 3 Mar 2025" (the newest item's date: the export's own dates, not the import's). */
export function importLabel(imp: ImportFacet): string {
  const when = imp.newest ? ` · latest ${new Date(imp.newest).toLocaleDateString(undefined, { day: 'numeric', month: 'short', year: 'numeric' })}` : '';
  return `${formatName(imp.format)} · ${imp.count.toLocaleString()} ${imp.count === 1 ? 'memory' : 'memories'}${when}`;
}
