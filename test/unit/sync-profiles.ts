// Browser profiles syncing through one folder, and the folders they sync through (in memory, or on a real WebDAV
// server), for the sync engine's tests.
import { cpSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect } from 'vitest';
import type { MemoryInput } from '../../lib/memory/types';
import { readDevice } from '../../lib/sync/device';
import type { SyncDeps } from '../../lib/sync/engine';
import type { SyncedSettings } from '../../lib/sync/settings-replica';
import { MemoryStorage } from '../../lib/sync/storage-memory';
import { SyncPlaceError, type SyncStorage } from '../../lib/sync/types';
import { SyncProfile } from './sync-fixtures';
import { WebDavStorage } from '../../lib/sync/storage-webdav';
import { startWebdav, type WebdavServer } from '../webdav-server';

/** A real WebDAV server (rclone serve webdav), started for the first test that asks for a folder on it. */
let server: WebdavServer | undefined;
afterAll(() => server?.stop());
export async function webdavFolder(name: string, through?: typeof fetch): Promise<WebDavStorage> {
  server ??= await startWebdav('u', 'app-password');
  mkdirSync(join(server.dir, name), { recursive: true });
  return new WebDavStorage({ url: `${server.base}/${name}`, user: 'u', password: 'app-password', fetch: through });
}

/**
 * A connection whose next upload to a path that `what` matches is cut off halfway while `cut` is set: the request
 * sends the first half of the bytes and then fails, as when the network drops, the worker is stopped, or the stall
 * watchdog gives up.
 */
export function cuttingUploads(what: RegExp): { fetch: typeof fetch; cut: boolean } {
  const control = {
    cut: false,
    fetch: (async (input, init) => {
      const bytes = init?.body;
      if (!control.cut || init?.method !== 'PUT' || !what.test(String(input)) || !(bytes instanceof Uint8Array)) return fetch(input, init);
      control.cut = false;
      const whole = bytes as Uint8Array;
      const half = whole.slice(0, whole.length >> 1);
      // The connection drops a moment after the half has gone out: timed from the request's start, a busy machine
      // (a full test run) could drop it before the request had sent a byte, and the server kept an empty file.
      let sent = false;
      const body = new ReadableStream<Uint8Array>({
        async pull(c) {
          if (!sent) {
            sent = true;
            c.enqueue(half);
            return;
          }
          await new Promise((r) => setTimeout(r, 300));
          c.error(new Error('the connection dropped'));
        },
      });
      const headers = { ...(init.headers as Record<string, string>), 'Content-Length': String(whole.length) };
      return fetch(input, { ...init, headers, body, duplex: 'half' } as RequestInit);
    }) as typeof fetch,
  };
  return control;
}

/** A browser profile: its memory, its settings, and the folder as its sync client shows it. */
export class Profile extends SyncProfile {
  settings: SyncedSettings = { rank: { weights: { semantic: 1 } }, capture: { sent: false } };
  /** This profile's clock when set (a pass's every time: stamps, who is active, when it last wrote). */
  clock?: number;
  /** The most JSON a part of this profile's snapshots holds (the product's when unset). */
  partBytes?: number;
  /**
   * Whether a WebDAV server's clock moves with this profile's (time passing for everyone: "three months on") rather
   * than staying right while this device's is set wrong.
   */
  worldTime = false;
  protected override moreDeps(): Partial<SyncDeps> {
    const now = this.clock === undefined ? undefined : () => this.clock!;
    const open = async () => {
      const place = this.storage;
      if (!this.worldTime || !place.placeTime || this.clock === undefined) return place;
      const shift = this.clock - Date.now();
      return {
        list: () => place.list(), read: (path) => place.read(path), create: (path, bytes) => place.create(path, bytes), remove: (path) => place.remove(path),
        placeTime: () => {
          const t = place.placeTime!();
          return t && { ...t, place: t.place + shift };
        },
      } satisfies SyncStorage;
    };
    return { now, open, snapshotPartBytes: this.partBytes, settings: { read: async () => this.settings, write: async (v) => void (this.settings = { ...this.settings, ...v }) } };
  }
  add(items: MemoryInput[]) {
    return this.store.add(items, { from: 'user' });
  }
}

/** Text that does not compress (a seeded generator), `n` characters. */
export function noise(seed: number): (n: number) => string {
  return (n) => Array.from({ length: n }, () => ((seed = (seed * 48271) % 2147483647) % 36).toString(36)).join('');
}

/** Enough written by `p` for a snapshot: a large setting that does not compress (within what syncs), changed `passes` times. */
export async function writeEnoughForSnapshot(p: Profile, seed: number, passes = 10): Promise<void> {
  const text = noise(seed);
  for (let k = 0; k < passes; k++) {
    p.settings = { ...p.settings, rank: { weights: { semantic: 1 }, note: text(190_000) } };
    await p.pass();
  }
}

/** The path and bytes of the newest segment `p` wrote to the folder. */
export async function newestSegment(folder: SyncStorage, p: Profile): Promise<[string, Uint8Array]> {
  const id = (await readDevice(p.db))!.deviceId;
  const path = (await folder.list()).map((f) => f.path).filter((path) => path.includes(`/log/${id}/`)).sort().at(-1)!;
  return [path, await folder.read(path)];
}

/** `folder` as a profile reaches it while its connection drops on every write of a log segment (other files land). */
export function droppingLogWrites(folder: SyncStorage): SyncStorage {
  return { list: () => folder.list(), read: (p) => folder.read(p), remove: (p) => folder.remove(p),
    create: async (p, bytes) => {
      if (p.includes('/log/')) throw new SyncPlaceError('offline', 'The connection dropped.');
      return folder.create(p, bytes);
    } };
}

/** Puts other bytes at `path` in any folder (as an engine or a hand would). */
export async function replace(folder: SyncStorage, path: string, bytes: Uint8Array): Promise<void> {
  await folder.remove(path);
  await folder.create(path, bytes);
}

/** The path of the folder's (only) header file. */
export async function headerFile(folder: SyncStorage): Promise<string> {
  return (await folder.list()).map((f) => f.path).find((p) => p.startsWith('backstory-vault-'))!;
}

/** Whether a folder path is a snapshot's part. */
export const isPart = (p: string) => /p\d{5}\.bin$/.test(p);

/**
 * A device alone in the folder that wrote enough for a snapshot (a large setting another device can read, changed until
 * a manifest is there): its snapshot covers every segment, so its pruning left none.
 */
export async function loneDeviceWithSnapshot(folder: SyncStorage, seed: number): Promise<{ a: Profile; paths: () => Promise<string[]>; manifests: () => Promise<string[]> }> {
  const a = new Profile('A', folder);
  await a.add([{ id: 'x', text: 'The lease renews in March.' }]);
  await a.connect();
  await a.pass();
  const text = noise(seed);
  const paths = async () => (await folder.list()).map((f) => f.path);
  const manifests = async () => (await paths()).filter((p) => p.includes('/snap/') && !isPart(p));
  for (let k = 0; k < 30 && !(await manifests()).length; k++) {
    a.settings = { ...a.settings, rank: { weights: { semantic: 1 }, note: text(150_000) } };
    await a.pass();
  }
  expect((await paths()).filter((p) => p.includes('/log/'))).toEqual([]);
  return { a, paths, manifests };
}

/** What a new device holds once it has joined with the passphrase and synced. */
export async function newDeviceHolds(folder: SyncStorage): Promise<Record<string, string>> {
  const c = new Profile('C', folder);
  await c.connect();
  await c.pass();
  return c.texts();
}

/** Two profiles joined through one folder, A's first memories (if any) already with B. */
export async function pair(items?: MemoryInput[]): Promise<{ folder: MemoryStorage; a: Profile; b: Profile }>;
export async function pair<F extends SyncStorage>(items: MemoryInput[], folder: F): Promise<{ folder: F; a: Profile; b: Profile }>;
export async function pair(items: MemoryInput[] = [], folder: SyncStorage = new MemoryStorage()): Promise<{ folder: SyncStorage; a: Profile; b: Profile }> {
  const a = new Profile('A', folder);
  const b = new Profile('B', folder);
  if (items.length) await a.add(items);
  await a.connect();
  await a.pass();
  await b.connect();
  await b.pass();
  return { folder, a, b };
}

/** Another browser profile holding a copy of every table of `from`'s database (a profile copied to another computer). */
export async function copyProfile(from: Profile, name: string): Promise<Profile> {
  const to = new Profile(name, from.storage);
  for (const table of from.db.tables) {
    const keys = await table.toCollection().primaryKeys();
    const rows = await table.bulkGet(keys);
    await to.db.table(table.name).bulkPut(rows, table.schema.primKey.keyPath ? undefined : keys);
  }
  to.settings = structuredClone(from.settings);
  return to;
}

/**
 * A folder that can be put back to an earlier copy: in memory, or a folder on a real WebDAV server (rclone serve
 * webdav), copied and restored on the server's disk as a host's "restore" would.
 */
export async function restorableFolder(where: 'memory' | 'webdav', name: string): Promise<{ folder: SyncStorage; keep: () => () => void }> {
  if (where === 'memory') {
    const folder = new MemoryStorage();
    return {
      folder,
      keep: () => {
        const copy = new Map([...folder.files].map(([path, bytes]) => [path, bytes.slice()]));
        return () => {
          folder.files.clear();
          for (const [path, bytes] of copy) folder.files.set(path, bytes);
        };
      },
    };
  }
  const folder = await webdavFolder(name);
  const dir = join(server!.dir, name);
  return {
    folder,
    keep: () => {
      const copy = `${dir}.copy`;
      cpSync(dir, copy, { recursive: true });
      return () => {
        rmSync(dir, { recursive: true, force: true });
        cpSync(copy, dir, { recursive: true });
      };
    },
  };
}

/**
 * Three profiles joined through one folder; then last week's copy of the folder is kept, the first makes two changes
 * (a memory added, then edited) that the second takes in while the third is away, and the folder is put back to that
 * copy (a host's "restore", a backup copied over it): the first's two segments are gone.
 */
export async function restoredAfterTwoChanges(folder: SyncStorage, keep: () => () => void, names: string[], clock?: number): Promise<{ a: Profile; b: Profile; c: Profile }> {
  const [a, b, c] = names.map((n) => Object.assign(new Profile(n, folder), { worldTime: true }));
  if (clock !== undefined) a.clock = b.clock = c.clock = clock;
  await a.add([{ id: 'x', text: 'The lease renews in March.' }]);
  for (const p of [a, b, c]) {
    await p.connect();
    await p.pass();
  }
  const restore = keep();
  await a.add([{ id: 'y', text: 'Dana wants the report by Friday.' }]);
  await a.pass();
  await a.store.update('x', { text: 'The lease renews in April.' });
  await a.pass();
  await b.pass();
  restore();
  return { a, b, c };
}
