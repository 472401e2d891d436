import type { ImportFormat } from '../core/import-formats';
import { mayWriteId } from './id-namespaces';
import { guessScope, parseScope } from './scope-guess';
import { findSecrets, secretHoldReason } from './secrets';
import type { MemoryInput, MemoryScope, MemorySource } from './types';

/**
 * Where text entering memory came from; it decides how far the text is trusted.
 * - `user`: typed or chosen by the user in Backstory's own pages (panel notes, the memory browser, an accepted phrase
 *   or import offer). Its kind may be guessed from its words.
 * - `page`: taken from a web page (Remember this, a sent message). Evidence tied to that page until the user says
 *   otherwise in the quick edit or the panel.
 * - `import`: read from a file. Another app's export is evidence; a Backstory memory file counts as the user's own
 *   only when `trusted` (this profile signed it, or the user kept what it asks for).
 * - `restore`: the user's own delete undone: items come back exactly as they were.
 * - `sync`: merged from the user's other devices (lib/sync): each passed intake where it was made, so its kind, scope,
 *   source and hold are kept as they are; only the caps are applied again, as a device of another version may differ.
 */
export type Provenance = { from: 'user' } | { from: 'page'; url: string } | { from: 'import'; trusted: boolean } | { from: 'restore' } | { from: 'sync' };

/** Limits on fields an outside source controls (a title, a list of tags): beyond them the rest is dropped. */
export const FIELD_CAPS = { title: 300, listItems: 50, tag: 80, person: 200, site: 253 } as const;

/** The memory file's own format name (`source.format` of its items, set by its reader whatever the file says). */
export const MEMORY_FILE_FORMAT: ImportFormat = 'memory-file';

const capList = (xs: string[] | undefined, len: number): string[] | undefined =>
  xs?.slice(0, FIELD_CAPS.listItems).map((x) => (typeof x === 'string' ? x.slice(0, len) : '')).filter(Boolean);

function capFields(input: MemoryInput): MemoryInput {
  const out = { ...input };
  if (out.title !== undefined) out.title = String(out.title).slice(0, FIELD_CAPS.title);
  if (out.tags) out.tags = capList(out.tags, FIELD_CAPS.tag);
  if (out.people) out.people = capList(out.people, FIELD_CAPS.person);
  if (out.sites) out.sites = capList(out.sites, FIELD_CAPS.site);
  return out;
}

/** Holds back text that looks like it carries a credential (a held item is in no card and no package until confirmed). */
function holdSecrets(input: MemoryInput): MemoryInput {
  if (input.needsReview) return input;
  const found = findSecrets(`${input.title ?? ''}\n${input.text}`);
  return found.length ? { ...input, needsReview: secretHoldReason(found) } : input;
}

/** A memory file from elsewhere (not signed by this profile, not kept by the user): what its items may claim. */
function foreignMemoryItem(input: MemoryInput, now: number): MemoryInput {
  // Pins are asked about first; "last used" is the user's own use, which a file cannot claim; a date in the future
  // would rank it as newest for years.
  const { pinned: _pinned, lastUsedAt: _used, ...rest } = input;
  if (rest.createdAt !== undefined && rest.createdAt > now) rest.createdAt = now;
  if (rest.updatedAt !== undefined && rest.updatedAt > now) rest.updatedAt = now;
  // An id in another reader's namespace (`mail:<Message-ID>`) is not taken: the item is kept under `file:<id>`, so
  // the file cannot overwrite the mail or note that id belongs to.
  const rekey = (id: string) => (mayWriteId(id, MEMORY_FILE_FORMAT) ? id : `file:${id}`);
  const out: MemoryInput = {
    ...rest,
    ...(rest.id ? { id: rekey(rest.id) } : {}),
    ...(rest.thread ? { thread: { id: rekey(rest.thread.id), seq: rest.thread.seq } } : {}),
    kind: rest.kind ?? 'evidence',
  };
  const foreign: MemorySource = { ...rest.source, format: 'foreign-memory-file' };
  const given = parseScope(rest.scope);
  // A scope the file says the user chose is the file's say, not the user's.
  const scope: MemoryScope = given ? { ...given, set: given.set === 'user' ? 'source' : given.set } : guessScope({ ...out, source: foreign });
  if (out.kind === 'instruction') {
    // Asked about before the commit; arriving here, the user chose "Import as evidence" (or was never asked).
    out.kind = 'evidence';
    out.scope = guessScope({ ...out, sites: [], source: foreign });
  } else out.scope = scope;
  return out;
}

/**
 * The one way into memory: what an input becomes given where it came from. Every add and import commit passes
 * through here (MemoryStore requires a Provenance), so the policy holds on every path:
 * - only the user's own typed text has its kind guessed from its words; page and export text is evidence;
 * - text from a page or another app is scoped to where it came from, never everywhere on its own say;
 * - every path but a restore and a trusted memory file is checked for secrets (held until the user confirms);
 * - ids are written only within the source's own namespace (lib/memory/id-namespaces.ts);
 * - fields an outside source controls are capped.
 */
export function intake(input: MemoryInput, provenance: Provenance, now = Date.now()): MemoryInput {
  const { fileSource, ...rest } = input;
  switch (provenance.from) {
    case 'restore':
      return rest;
    case 'sync':
      return capFields(rest);
    case 'user':
      return holdSecrets(capFields(rest));
    case 'page': {
      const source: MemorySource = { ...rest.source, url: rest.source?.url || provenance.url };
      const out: MemoryInput = { ...capFields(rest), kind: 'evidence', source };
      out.scope = guessScope({ ...out, sites: [], source });
      return holdSecrets(out);
    }
    case 'import': {
      const format = rest.source?.format;
      if (format === MEMORY_FILE_FORMAT) {
        // This profile's own file (or one the user kept): exactly as it was exported, its source included.
        if (provenance.trusted) return fileSource ? { ...rest, source: { ...fileSource } } : rest;
        return holdSecrets(capFields(foreignMemoryItem(rest, now)));
      }
      const out: MemoryInput = { ...capFields(rest), kind: 'evidence', pinned: undefined };
      if (out.id && !mayWriteId(out.id, format)) throw new Error(`An item of a ${format ?? 'file'} import may not use the id "${out.id}" (it belongs to another kind of import).`);
      out.scope = guessScope({ ...out, sites: [] });
      return holdSecrets(out);
    }
  }
}
