import { IMPORT_FORMATS, IMPORT_FORMAT_NAMES } from '../core/import-formats';

/**
 * Who may write ids under each prefix: every reader keys its items by the export's own ids under a prefix of its own
 * (`mail:<Message-ID>`, `note:<path>#n`), so a re-import finds the same items. A source may not write into another
 * reader's prefix: that would overwrite an item it did not bring (an imported mail's text replaced by a file's).
 * Each format declares its prefixes in lib/core/import-formats.ts (`file:` is where ids a memory file from elsewhere
 * gives in another reader's prefix are kept).
 */
export const ID_NAMESPACES: Readonly<Record<string, readonly string[]>> = namespacesOf();

function namespacesOf(): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const format of IMPORT_FORMAT_NAMES) for (const prefix of IMPORT_FORMATS[format].idPrefixes) (out[prefix] ??= []).push(format);
  return out;
}

/** The prefix an id is under, when it is one of the readers' (`mail` for `mail:<id>`). */
export function idNamespace(id: string): string | undefined {
  const colon = id.indexOf(':');
  if (colon <= 0) return undefined;
  const prefix = id.slice(0, colon);
  return Object.hasOwn(ID_NAMESPACES, prefix) ? prefix : undefined;
}

/** Whether a source of `format` may write this id (ids under no reader's prefix are anyone's). */
export function mayWriteId(id: string, format: string | undefined): boolean {
  const ns = idNamespace(id);
  return ns === undefined || (!!format && ID_NAMESPACES[ns].includes(format));
}
