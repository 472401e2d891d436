// The shapes every part of sync agrees on (docs/sync.md). The merge rules are lib/sync/merge.ts's; the files and their
// seals are lib/sync/segment.ts's and lib/sync/seal.ts's; the places files are kept implement SyncStorage.

/**
 * A hybrid logical clock stamp (lib/sync/hlc.ts): wall time, counter and device id in a fixed-width string, so that
 * comparing two stamps as strings compares them as clocks.
 */
export type Stamp = string;

/** One change to one field of one record (an item, or the synced settings), as a device made it. */
export interface SyncOp {
  /** The record: an item's id, or a reserved id starting with `$` (`$settings`). */
  id: string;
  /** A field of the record, or `deleted`; see docs/sync.md, "Merging". */
  field: string;
  /** The field's new value, JSON. */
  value: unknown;
  stamp: Stamp;
  /** The register's heads this change replaced, as its device saw them. */
  base: Stamp[];
}

/**
 * A change this device did not send: its value is past what every device accepts (`FIELD_VALUE`), and one such change
 * would make them refuse its whole segment and every later one of this device. It stays here until it fits.
 */
export interface HeldValue {
  id: string;
  field: string;
  /** Why, in words (`badValue`). */
  why: string;
  /** `valuePrint` of the value held: said once per value. */
  print: number;
}

/** A segment of a device's log, as sealed in `log/<device>/<seq>.bin`. */
export interface SegmentBody {
  device: string;
  seq: number;
  /** Hex SHA-256 of the previous segment's sealed bytes; '' for the first. */
  prev: string;
  /** How far the writer had applied each device's log (its own included) when it wrote. */
  seen: Record<string, number>;
  ops: SyncOp[];
}

/** A snapshot, as sealed in `snap/<device>/<seq>.bin`: the whole merged state after the writer's segment `seq`. */
export interface SnapshotBody {
  device: string;
  seq: number;
  /** Which segments of each device the state includes. */
  covers: Record<string, number>;
  /** The merged state (lib/sync/merge.ts validates it on reading). */
  state: unknown;
}

/** A file in a sync place, as listed. */
export interface SyncFileEntry {
  /** Relative to the folder the user chose, with `/`. */
  path: string;
  size: number;
  /**
   * The place's mark of this version of the file, where it gives one (a WebDAV ETag or modified time, a folder file's
   * modified time): it changes when the file is written again, so its writer reads again only a file marked anew.
   */
  stamp?: string;
}

/** What went wrong with a sync place, for the status line in the user's words. */
export type SyncPlaceProblem = 'gone' | 'auth' | 'permission' | 'offline' | 'full' | 'exists' | 'refused';

export class SyncPlaceError extends Error {
  constructor(
    readonly problem: SyncPlaceProblem,
    message: string,
  ) {
    super(message);
    this.name = 'SyncPlaceError';
  }
}

/**
 * A place files are kept: a local folder, a WebDAV folder, or memory in tests. Every file is written once
 * (`create`) and never changed; a device removes only its own files.
 */
export interface SyncStorage {
  /** Every file under the folder, in any order, with paths relative to it. */
  list(): Promise<SyncFileEntry[]>;
  /** A file's bytes; SyncPlaceError('gone') when it is not there. */
  read(path: string): Promise<Uint8Array>;
  /**
   * Writes a new file, making folders on its path. Where the place can refuse to replace a file it does
   * (`If-None-Match: *`): SyncPlaceError('exists'). Not every place can, so callers never rely on it.
   */
  create(path: string, bytes: Uint8Array): Promise<void>;
  /** Removes a file; a file already gone is not an error. */
  remove(path: string): Promise<void>;
  /**
   * The place's own time at its last answer, and this device's (`Date.now()`) when that answer came, where the place
   * says it (a WebDAV server's `Date` header): the one clock every device reads alike.
   */
  placeTime?(): { place: number; local: number } | undefined;
}
