// Finding the synced memories in a folder: its header files, copies included, identified by their content (a copy an
// engine made is the same header; a header someone planted under a known vault id is another, and does not unlock).
import { sameBytes } from './bytes';
import { headerPath, parseListing, type FolderListing } from './folder-layout';
import { headerText, parseHeader, type VaultHeader } from './vault';
import { canonicalHeader, MAX_HEADER_BYTES } from './vault-header';
import { SyncPlaceError, type SyncStorage } from './types';
import { writeOver } from './log-writer';

export interface FoundVault {
  vaultId: string;
  header: VaultHeader;
  /** Every file holding this header, the plain name first. */
  paths: string[];
}

export interface FoundVaults {
  vaults: FoundVault[];
  /** Header files that could not be read, in words. */
  problems: { path: string; words: string }[];
}

/** The headers in the folder, one entry per distinct header. */
export async function findVaults(storage: SyncStorage): Promise<FoundVaults> {
  const listing = parseListing(await storage.list());
  const byContent = new Map<string, FoundVault>();
  const problems: FoundVaults['problems'] = [];
  const files = [...listing.headers].sort((a, b) => Number(a.copy) - Number(b.copy) || (a.path < b.path ? -1 : 1));
  for (const f of files) {
    if (f.size > MAX_HEADER_BYTES) {
      problems.push({ path: f.path, words: `${f.path} is too large to be a sync header; it was not read.` });
      continue;
    }
    let header: VaultHeader;
    try {
      header = parseHeader(await storage.read(f.path), f.path);
    } catch (e) {
      if (e instanceof SyncPlaceError && e.problem === 'gone') continue;
      if (e instanceof SyncPlaceError) throw e;
      problems.push({ path: f.path, words: e instanceof Error ? e.message : String(e) });
      continue;
    }
    if (header.vaultId !== f.vaultId) {
      problems.push({ path: f.path, words: `${f.path} holds the header of another synced memory; it was not used.` });
      continue;
    }
    const key = headerText(header);
    const found = byContent.get(key);
    if (found) found.paths.push(f.path);
    else byContent.set(key, { vaultId: header.vaultId, header, paths: [f.path] });
  }
  return { vaults: [...byContent.values()], problems };
}

/**
 * Writes this memory's header again (from the copy this device holds) when the folder holds no file of it that reads
 * as this memory's header: a header changed or cut short there (a server's disk, a restore, a hand) left no new device
 * able to join with the passphrase. A file at the size of this device's copy is taken as it; one at another size is
 * read, and kept if it is this memory's header with its key wrapped otherwise (its canonical form, which every seal
 * is bound to, the same). The copy a mend writes beside the header first counts for nothing here: a worker stopped
 * before the header was under its name again gets it written there at the next pass, and one stopped after gets the
 * copy removed. True when the header was written.
 */
export async function mendHeader(storage: SyncStorage, listing: FolderListing, vaultId: string, header: VaultHeader): Promise<boolean> {
  const bytes = new TextEncoder().encode(headerText(header));
  const path = headerPath(vaultId);
  // Under a name an engine's copy of it would have (a header is found by its content, whatever copy holds it).
  const beside = headerPath(vaultId, 'mended');
  const files = listing.headers.filter((h) => h.vaultId === vaultId && h.path !== beside);
  const left = listing.headers.find((h) => h.path === beside);
  if (files.some((h) => h.size === bytes.length)) {
    if (left) await storage.remove(beside);
    return false;
  }
  const plain = files.find((h) => h.path === path);
  if (plain && plain.size <= MAX_HEADER_BYTES) {
    try {
      const there = parseHeader(await storage.read(path), path);
      if (sameBytes(canonicalHeader(there), canonicalHeader(header))) {
        if (left) await storage.remove(beside);
        return false;
      }
    } catch (e) {
      if (e instanceof SyncPlaceError && e.problem !== 'gone') throw e;
    }
  }
  // First beside it: a worker stopped after the damaged file was removed, before the header was written again under
  // its name, leaves this one, and the memory is not taken for gone. A copy a stopped mend left there at the right
  // size is kept as it is: removed to be written again, it would leave the folder a moment with no header at all.
  if (left?.size !== bytes.length) await writeOver(storage, beside, bytes);
  await writeOver(storage, path, bytes);
  await storage.remove(beside);
  return true;
}
